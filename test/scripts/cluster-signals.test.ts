// `npm run cluster` stopped by signalling npm (a supervisor, `kill <npm pid>`, a CI step's timeout):
// npm passes SIGTERM and SIGINT on to the script's shell, and dash (Debian's sh) neither passes them
// on nor execs its one command, so the bed ran on, orphaned. The script must receive them. Oracle:
// the machine's npm running package.json's own `cluster` command line, with a stand-in for
// scripts/cluster.ts that records the signals it gets (the real bed's stop is cluster-script.real).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli.js";
import { testdir } from "../support/testdir.js";

const STAND_IN = `
const { appendFileSync } = require("node:fs");
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => { appendFileSync("signals", signal + "\\n"); process.exit(0); });
appendFileSync("signals", "started " + process.pid + "\\n");
setInterval(() => {}, 1000);
`;

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await probe());) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("npm run cluster", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`passes ${signal} sent to npm on to the bed's process`, async () => {
      const scripts = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")).scripts;
      const command = String(scripts.cluster);
      expect(command).toContain("scripts/cluster.ts");
      // The same command line, on a stand-in (tsx's loader dropped: the stand-in is CommonJS).
      const script = command.replace("--import tsx ", "").replace("scripts/cluster.ts", "stand-in.cjs");
      const dir = await testdir({
        "package.json": JSON.stringify({ name: "bed", version: "0.0.0", scripts: { cluster: script } }),
        "stand-in.cjs": STAND_IN,
      });
      const signals = () => readFile(join(dir, "signals"), "utf8").catch(() => "");
      // No pipes: an orphaned stand-in would hold them open.
      const npm = execa("npm", ["run", "cluster"], { cwd: dir, reject: false, stdio: "ignore" });
      await until("the stand-in to start", async () => /started \d+\n/.test(await signals()));
      npm.kill(signal);
      await npm;
      await until(
        `the stand-in to record ${signal}`,
        async () => (await signals()).includes(signal),
        10_000,
      ).catch(() => undefined);
      const pid = Number(/started (\d+)/.exec(await signals())?.[1]);
      try {
        expect((await signals()).split("\n").slice(1)).toEqual([signal, ""]);
      } finally {
        // Never leave an orphaned stand-in running (what this test catches).
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Gone already.
        }
      }
    }, 120_000);
  }
});
