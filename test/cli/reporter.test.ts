// Global output conventions: --quiet, --verbose, colors and spinners.
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { colorEnabled } from "../../src/common/color.js";
import { TerminalReporter } from "../../src/common/reporter.js";
import { runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";

function capture(isTTY = false) {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  }) as Writable & { isTTY?: boolean };
  stream.isTTY = isTTY;
  return { stream, text: () => chunks.join("") };
}

describe("TerminalReporter", () => {
  it("prints info, warnings and errors; debug only with verbose", () => {
    const out = capture();
    const reporter = new TerminalReporter({ stream: out.stream });
    reporter.info("hello");
    reporter.debug("hidden detail");
    reporter.warn("careful");
    reporter.error("broken");
    expect(out.text()).toBe("hello\nwarning: careful\nerror: broken\n");

    const verbose = capture();
    new TerminalReporter({ stream: verbose.stream, verbose: true }).debug("detail");
    expect(verbose.text()).toBe("detail\n");
  });

  it("keeps only warnings and errors with quiet", () => {
    const out = capture();
    const reporter = new TerminalReporter({ stream: out.stream, quiet: true });
    reporter.info("hello");
    reporter.success("done");
    reporter.progress("working").succeed("worked");
    reporter.warn("careful");
    expect(out.text()).toBe("warning: careful\n");
  });

  it("prints progress as plain lines without a TTY, once per change", () => {
    const out = capture(false);
    const progress = new TerminalReporter({ stream: out.stream }).progress("waiting for pod");
    progress.update("waiting for pod");
    progress.update("pod running");
    progress.succeed();
    expect(out.text()).toBe("… waiting for pod\n… pod running\n✔ pod running\n");
    expect(out.text()).not.toContain("\u001b[");
  });

  it("colors only when allowed", () => {
    expect(colorEnabled({ isTTY: true, env: {} })).toBe(true);
    expect(colorEnabled({ isTTY: false, env: {} })).toBe(false);
    expect(colorEnabled({ isTTY: true, env: { NO_COLOR: "1" } })).toBe(false);
    expect(colorEnabled({ isTTY: true, env: { TERM: "dumb" } })).toBe(false);
    expect(colorEnabled({ isTTY: true, env: {}, noColor: true })).toBe(false);
    expect(colorEnabled({ isTTY: false, env: { FORCE_COLOR: "1" } })).toBe(true);
    expect(colorEnabled({ isTTY: true, env: { FORCE_COLOR: "0" } })).toBe(false);
    const out = capture();
    new TerminalReporter({ stream: out.stream, color: true }).warn("x");
    expect(out.text()).toBe("\u001b[33mwarning:\u001b[39m x\n");
  });
});

describe("CLI colors", () => {
  it("colors error messages with FORCE_COLOR and plain text with NO_COLOR, without a TTY", async () => {
    const dir = await testdir();
    const forced = await runTsop(["bundle", "validate", "missing-dir"], {
      cwd: dir,
      env: { NO_COLOR: undefined, FORCE_COLOR: "1" },
    });
    expect(forced.exitCode).toBe(1);
    expect(forced.stderr).toContain("\u001b[31merror:\u001b[39m bundle directory missing-dir does not exist");
    const plain = await runTsop(["bundle", "validate", "missing-dir"], { cwd: dir, env: { NO_COLOR: "1" } });
    expect(plain.stderr).toContain("error: bundle directory missing-dir does not exist");
    expect(plain.stderr).not.toContain("\u001b[");
  });

  it("never colors with --no-color, even when FORCE_COLOR is set", async () => {
    const none = await runTsop(["completion", "bash", "--no-color", "--bogus"], {
      env: { NO_COLOR: undefined, FORCE_COLOR: "1" },
    });
    expect(none.stderr).not.toContain("\u001b[");
  });
});
