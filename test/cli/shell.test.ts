// The CLI shell's conventions: help, versions, completion, exit codes, streams.
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { runTsop } from "../support/cli.js";

describe("tsop CLI shell", () => {
  it("prints help on stdout and exits 0", async () => {
    const result = await runTsop(["--help"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("Usage: tsop");
    expect(result.stdout).toContain("completion");
    expect(result.stderr).toBe("");
  });

  it("prints the version with --version and `version`", async () => {
    const pkg = (await import("../../package.json", { with: { type: "json" } })).default as {
      version: string;
    };
    const flag = await runTsop(["--version"]);
    expect(flag.exitCode).toBe(0);
    expect(flag.stdout.trim()).toBe(pkg.version);
    const command = await runTsop(["version"]);
    expect(command.stdout).toContain(`tsop ${pkg.version}`);
    expect(command.stdout).toMatch(/OLM .* v\d+\.\d+\.\d+/);
    expect(command.stdout).toMatch(/opm image .*opm:v\d/);
    const json = await runTsop(["version", "-o", "json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({ tsop: pkg.version });
  });

  it("exits 2 with a message on stderr for an unknown command or option", async () => {
    const command = await runTsop(["frobnicate"]);
    expect(command.exitCode).toBe(2);
    expect(command.stdout).toBe("");
    expect(command.stderr).toContain("unknown command 'frobnicate'");
    const option = await runTsop(["version", "--bogus"]);
    expect(option.exitCode).toBe(2);
    expect(option.stderr).toContain("unknown option '--bogus'");
    const choice = await runTsop(["version", "-o", "xml"]);
    expect(choice.exitCode).toBe(2);
    expect(choice.stderr).toContain("xml");
  });

  it("suggests the option meant for a misspelt one, with or without =value", async () => {
    for (const flag of ["--plain-htp", "--plain-htp=127.0.0.1:5000"]) {
      const result = await runTsop(["catalog", "image", "x:v1", flag]);
      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("unknown option '--plain-htp'");
      expect(result.stderr).toContain("(Did you mean --plain-http?)");
    }
  });

  it("prints completion scripts that the shells accept", async () => {
    const bash = await runTsop(["completion", "bash"]);
    expect(bash.exitCode).toBe(0);
    expect(bash.stdout).toContain("complete -o default -F _tsop_complete tsop");
    // bash -n parses the script without running it.
    const parsed = await execa("bash", ["-n"], { input: bash.stdout, reject: false });
    expect(parsed.exitCode).toBe(0);
    // Drive the completion function the way bash does, for a nested command.
    const completed = await execa(
      "bash",
      ["-c", `${bash.stdout}\nCOMP_WORDS=(tsop ver); COMP_CWORD=1; _tsop_complete; echo "\${COMPREPLY[@]}"`],
      { reject: false },
    );
    expect(completed.stdout.trim()).toBe("version");
    const zsh = await runTsop(["completion", "zsh"]);
    expect(zsh.stdout.startsWith("#compdef tsop")).toBe(true);
    const fish = await runTsop(["completion", "fish"]);
    expect(fish.stdout).toContain("complete -c tsop -n '__fish_use_subcommand' -a version");
    const bad = await runTsop(["completion", "powershell"]);
    expect(bad.exitCode).toBe(2);
  });

  it("never colors output when NO_COLOR or TERM=dumb is set, and colors it with FORCE_COLOR", async () => {
    const plain = await runTsop(["frobnicate"], { env: { NO_COLOR: "1" } });
    expect(plain.stderr).not.toContain("\u001b[");
    const dumb = await runTsop(["frobnicate"], { env: { NO_COLOR: undefined, TERM: "dumb" } });
    expect(dumb.stderr).not.toContain("\u001b[");
  });
});
