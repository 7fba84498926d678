// The README's command reference must name every runnable command `tsop --help` lists, and nothing
// that does not exist (a command appears in help only once it works, so the docs follow the CLI).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Command } from "../../src/cli/commander.js";
import { buildProgram } from "../../src/cli/main.js";
import { REPO_ROOT } from "../support/cli.js";

const runnable = (c: Command) => (c as unknown as { _actionHandler: unknown })._actionHandler != null;
const sub = (c: Command, name: string) => c.commands.find((s) => s.name() === name && name !== "help");

/** Every command with its own action, as "tsop a b". */
function runnablePaths(command: Command, prefix = "tsop"): string[] {
  return command.commands
    .filter((c) => c.name() !== "help")
    .flatMap((c) => {
      const path = `${prefix} ${c.name()}`;
      return [...(runnable(c) ? [path] : []), ...runnablePaths(c, path)];
    });
}

/**
 * The commands one reference cell names: `tsop olm install\|status\|uninstall` is three; arguments and
 * flags (`<image>`, `[dir]`, `bash\|zsh\|fish`, `-o …`) end the command path. Optional subcommands
 * (`tsop generate [crds\|rbac]`) name the parent and each child.
 */
function commandsIn(cell: string, program: Command): string[] {
  const tokens = cell.replace(/\\\|/g, "|").split(" ").slice(1);
  let current: Command | undefined = program;
  const path = ["tsop"];
  for (const token of tokens) {
    const words = token.replace(/^\[|\]$/g, "").split("|");
    const children = words.map((w) => (current ? sub(current, w) : undefined));
    if (words.length > 1 && children.every(Boolean)) {
      const here = token.startsWith("[") ? [path.join(" ")] : [];
      return [...here, ...words.map((w) => `${path.join(" ")} ${w}`)];
    }
    const next: Command | undefined = words.length === 1 && current ? sub(current, token) : undefined;
    if (!next) break;
    current = next;
    path.push(token);
  }
  return [path.join(" ")];
}

describe("README command reference", () => {
  it("documents every runnable command in --help, and only those", async () => {
    const program = buildProgram();
    const readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
    const section = readme.split("## Command reference")[1]?.split("\n## ")[0] ?? "";
    const cells = [...section.matchAll(/^\| `(tsop [^`]*)`/gm)].map((m) => m[1]!);
    expect(cells.length).toBeGreaterThan(5);
    const documented = new Set(cells.flatMap((cell) => commandsIn(cell, program)));
    const inHelp = runnablePaths(program);
    for (const path of inHelp) expect(documented, `README lacks ${path}`).toContain(path);
    for (const path of documented)
      expect(inHelp, `README names ${path}, which is not a command`).toContain(path);
  });
});
