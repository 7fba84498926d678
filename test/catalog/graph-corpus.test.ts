// `tsop catalog validate` over a corpus of upgrade graphs (graph-corpus.ts): each defective graph is
// caught by its check id, names the entries involved and says what to change, exits 1 on errors;
// the sound graphs pass with no finding. Also the Mermaid output and the error for a missing dir.
import { describe, expect, test } from "vitest";
import { runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";
import { CORPUS, PREVIOUS } from "./graph-corpus.js";

interface Finding {
  id: string;
  level: string;
  message: string;
  fix: string;
  entries: string[];
}

describe("tsop catalog validate: the graph corpus", () => {
  for (const c of CORPUS) {
    test(c.label, async () => {
      const dir = await testdir({ "configs/widget/catalog.yaml": c.catalog });
      const run = await runTsop(["catalog", "validate", "configs", "-o", "json"], { cwd: dir });
      const { findings } = JSON.parse(run.stdout) as { findings: Finding[] };
      expect([...new Set(findings.map((f) => f.id))].sort()).toEqual(c.ids);
      const text = findings.map((f) => `${f.message} ${f.fix} ${f.entries.join(" ")}`).join("\n");
      for (const name of c.names ?? []) expect(text).toContain(name);
      for (const f of findings) expect(f.fix.length).toBeGreaterThan(10);
      expect(run.exitCode, run.stderr).toBe(findings.some((f) => f.level === "error") ? 1 : 0);
    });
  }

  for (const c of PREVIOUS) {
    test(`--previous: ${c.label}`, async () => {
      const dir = await testdir({
        "configs/widget/catalog.yaml": c.catalog,
        "released/widget/catalog.yaml": c.previous,
      });
      const run = await runTsop(["catalog", "validate", "configs", "--previous", "released", "-o", "json"], {
        cwd: dir,
      });
      const { findings } = JSON.parse(run.stdout) as { findings: Finding[] };
      expect([...new Set(findings.map((f) => f.id))].sort()).toEqual(c.ids);
      const text = findings.map((f) => `${f.message} ${f.fix}`).join("\n");
      for (const name of c.names ?? []) expect(text).toContain(name);
      expect(run.exitCode, run.stderr).toBe(findings.some((f) => f.level === "error") ? 1 : 0);
    });
  }

  test("text output: level, id, package/channel, message and fix; --graph adds the Mermaid graph", async () => {
    const stranded = CORPUS.find((c) => c.ids.join() === "CAT-05")!;
    const dir = await testdir({ "configs/widget/catalog.yaml": stranded.catalog });
    const run = await runTsop(["catalog", "validate", "configs", "--graph"], { cwd: dir });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(
      /^error CAT-05 widget\/stable: users on widget\.v0\.1\.0|^error CAT-05 widget\/stable: widget\.v0\.1\.0 is neither/m,
    );
    expect(run.stdout).toContain("  fix: ");
    expect(run.stdout).toContain("graph LR\n");
    expect(run.stdout).toContain(
      'widget-stable-widget.v0.2.0["widget.v0.2.0"]-- skip --> widget-stable-widget.v0.3.0["widget.v0.3.0"]',
    );
    expect(run.stderr).toContain("1 error(s)");
  });

  test("a missing catalog directory is a clear error", async () => {
    const dir = await testdir();
    const run = await runTsop(["catalog", "validate", "nowhere"], { cwd: dir });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("catalog directory");
    expect(run.stderr).toContain("does not exist");
    expect(run.stdout).toBe("");
  });
});
