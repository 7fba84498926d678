// kustomize as the oracle of tsop's built-in reader: `kustomize build <dir>` (the rig's binary) and
// loadManifests on the same directory must give the same objects in the same order, or both refuse.
import { execFile } from "node:child_process";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { expect } from "vitest";
import { loadManifests } from "../../src/manifests/index.js";
import { rigBinary } from "../support/rig.js";

const run = promisify(execFile);

export type Outcome = { ok: true; objects: unknown[] } | { ok: false; error: string };

export async function kustomizeBuild(dir: string): Promise<Outcome> {
  try {
    const { stdout } = await run(rigBinary("kustomize"), ["build", dir], { maxBuffer: 64 << 20 });
    return { ok: true, objects: parseAllDocuments(stdout).map((d) => d.toJS() as unknown) };
  } catch (error) {
    return { ok: false, error: String((error as { stderr?: string }).stderr ?? error) };
  }
}

export async function tsopBuild(root: string, dir: string): Promise<Outcome> {
  try {
    const loaded = await loadManifests({ cwd: root, dir: relative(root, dir) });
    return { ok: true, objects: loaded.map((l) => l.object) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** Every directory under `root` holding a kustomization.yaml (node_modules left out). */
export async function kustomizations(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    const entries = await readdir(dir, { withFileTypes: true });
    if (entries.some((e) => e.isFile() && e.name === "kustomization.yaml")) out.push(dir);
    for (const e of entries) if (e.isDirectory() && e.name !== "node_modules") await walk(join(dir, e.name));
  };
  await walk(root);
  return out.sort();
}

/** `kind/namespace/name` of each object, in order: what a mismatch message shows first. */
const ids = (objects: unknown[]) =>
  objects.map((o) => {
    const { kind, metadata } = o as { kind?: string; metadata?: { name?: string; namespace?: string } };
    return `${kind}/${metadata?.namespace ?? ""}/${metadata?.name ?? ""}`;
  });

/**
 * Both agree: the same objects in kustomize's order, or both refuse. Returns kustomize's outcome,
 * so a case can also assert which way it went.
 */
export async function expectAgreement(root: string, dir: string): Promise<Outcome> {
  const [theirs, ours] = await Promise.all([kustomizeBuild(dir), tsopBuild(root, dir)]);
  const where = relative(root, dir) || ".";
  if (!theirs.ok) {
    expect(ours.ok, `${where}: kustomize refused (${theirs.error.trim()}) but tsop built it`).toBe(false);
    return theirs;
  }
  expect(ours.ok ? undefined : ours.error, `${where}: tsop refused what kustomize builds`).toBeUndefined();
  const objects = ours.ok ? ours.objects : [];
  expect(ids(objects), `${where}: objects or their order`).toEqual(ids(theirs.objects));
  const names = ids(objects);
  objects.forEach((o, i) => expect(o, `${where}: ${names[i]}`).toEqual(theirs.objects[i]));
  return theirs;
}

/** Writes a tree of files: { "dir/file": text }. */
export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}
