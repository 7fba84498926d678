// YAML 1.1 read-back: every YAML file under a directory must mean the same to a YAML 1.1 reader
// (kubectl, many CI tools: on/off/yes/no/y/n are booleans there, 012 octal, 1_000 a number) as to
// a YAML 1.2 one.
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { expect } from "vitest";
import { parseAllDocuments } from "yaml";

function read(text: string, version: "1.1" | "1.2"): unknown[] {
  return parseAllDocuments(text, { version }).map((d) => d.toJS({ maxAliasCount: 100 }) as unknown);
}

/** Every .yaml/.yml file under dir (node_modules aside), relative paths, sorted. */
export async function yamlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function visit(current: string): Promise<void> {
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") await visit(full);
      } else if (/\.ya?ml$/.test(entry.name)) out.push(relative(dir, full));
    }
  }
  await visit(dir);
  return out.sort();
}

/** Asserts that each YAML file under dir reads the same with YAML 1.1 and YAML 1.2; returns the files. */
export async function expectYaml11Safe(dir: string): Promise<string[]> {
  const files = await yamlFiles(dir);
  for (const file of files) {
    const text = await readFile(join(dir, file), "utf8");
    expect(read(text, "1.1"), `${file} read as YAML 1.1`).toEqual(read(text, "1.2"));
  }
  return files;
}

/** The same check for YAML text that is not in a file (stdout of `-o yaml`). */
export function expectYamlText11Safe(text: string, what: string): void {
  expect(read(text, "1.1"), `${what} read as YAML 1.1`).toEqual(read(text, "1.2"));
}
