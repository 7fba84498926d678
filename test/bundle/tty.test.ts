// The prompts on a real terminal: the built CLI runs under `script` (a pseudo-terminal), and the
// test answers each question when it appears, including a rejected answer.
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { TSOP_BIN } from "../support/cli.js";
import { testdir } from "../support/testdir.js";
import { DEPLOYMENT, miniProject } from "./helpers.js";

function runOnTerminal(
  cwd: string,
  args: string[],
  answers: Array<[string, string]>,
): Promise<{ code: number | null; output: string }> {
  const env = Object.fromEntries(
    Object.entries({ ...process.env, TERM: "dumb", NO_COLOR: "1" }).filter(([k]) => k !== "CI"),
  );
  const command = [process.execPath, TSOP_BIN, ...args]
    .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
    .join(" ");
  const child = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], {
    cwd,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let pending = "";
  let output = "";
  const queue = [...answers];
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    pending += chunk.toString();
    const next = queue[0];
    if (next && pending.includes(next[0])) {
      queue.shift();
      pending = "";
      child.stdin.write(`${next[1]}\r`);
    }
  });
  // A stuck prompt must not hang the suite: give up after 30 s and show what was on the screen.
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

describe("prompts on a terminal", () => {
  test(
    "missing base CSV fields are asked for, and a bad email is asked again",
    {
      timeout: 60_000,
    },
    async () => {
      const dir = await testdir(
        miniProject({ "deployment.yaml": DEPLOYMENT("demo-operator-controller-manager", "sa") }),
      );
      const { code, output } = await runOnTerminal(
        dir,
        ["bundle", "--skip-generate", "--yes", "--version", "0.0.1"],
        [
          ["Description of the operator", "A demo operator"],
          ["Provider's name", "Acme"],
          ["Maintainers, comma-separated", "Jo"],
          // inquirer keeps the rejected text on the line: complete it.
          ['maintainer "Jo" must be "Name <email>"', " <jo@example.com>"],
        ],
      );
      expect(output, output).toContain("Bundle written to bundle");
      expect(code).toBe(0);
      const base = parse(
        await readFile(join(dir, "config/manifests/bases/demo-operator.clusterserviceversion.yaml"), "utf8"),
      );
      expect(base.spec).toMatchObject({
        description: "A demo operator",
        provider: { name: "Acme" },
        maintainers: [{ name: "Jo", email: "jo@example.com" }],
        displayName: "Demo Operator",
      });
    },
  );
});
