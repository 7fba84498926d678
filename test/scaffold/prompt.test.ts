// init on a real terminal: `script` gives the CLI a pseudo-terminal, and the test answers each
// prompt when it appears (an invalid answer first, to see the validation message).
import { execa } from "execa";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TSOP_BIN } from "../support/cli.js";
import { testdir } from "../support/testdir.js";

const hasScript = await execa("script", ["--version"], { reject: false }).then(
  (r) => r.exitCode === 0,
  () => false,
);

// Missing `script` fails loudly (`bash .ci/run` installs bsdutils) rather than skipping.
describe("tsop init on a terminal", () => {
  it("has `script` (util-linux) to make a pseudo-terminal", () => {
    expect(hasScript, "install bsdutils (apt-get install bsdutils) for the terminal tests").toBe(true);
  });

  it("asks for the missing domain and project name, re-asking after an invalid answer", async () => {
    const parent = await testdir();
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(TSOP_BIN)} init "Bad Dir" --skip-install`;
    const child = execa("script", ["-qfec", command, "/dev/null"], {
      cwd: parent,
      env: { CI: undefined, NO_COLOR: "1", TERM: "xterm" },
      reject: false,
      timeout: 60_000,
    });
    let output = "";
    const answers: Array<[string, string]> = [
      ["Domain of your API groups", "Bad_Domain\r"],
      ["is not a DNS-1123 subdomain", "\u0015example.com\r"],
      ["Project name", "my-op\r"],
    ];
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const next = answers[0];
      if (next && output.includes(next[0])) {
        answers.shift();
        child.stdin?.write(next[1]);
      }
    });
    const result = await child;
    expect(answers, output).toEqual([]);
    expect(result.exitCode, output).toBe(0);
    expect(output).toContain('"Bad_Domain" is not a DNS-1123 subdomain');
    const project = await readFile(join(parent, "Bad Dir", "PROJECT"), "utf8");
    expect(project).toContain("domain: example.com");
    expect(project).toContain("projectName: my-op");
  });

  it("does not prompt with --yes, listing what is missing instead", async () => {
    const parent = await testdir();
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(TSOP_BIN)} init op --skip-install --yes`;
    const result = await execa("script", ["-qfec", command, "/dev/null"], {
      cwd: parent,
      env: { CI: undefined, NO_COLOR: "1", TERM: "xterm" },
      reject: false,
      timeout: 60_000,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toContain("--domain <domain>");
    expect(result.stdout).not.toContain("Domain of your API groups");
  });
});
