// The README's `tsop bundle --version 0.0.1 --channels alpha` without a terminal: the error shows
// the exact command line that supplies the missing base CSV fields (and that line works), and
// --yes fills the documented placeholders instead of asking.
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { TSOP_BIN } from "../support/cli.js";
import { testdir } from "../support/testdir.js";
import { CRD, DEPLOYMENT, miniProject, readYaml, tsop } from "./helpers.js";

const BASE = "config/manifests/bases/demo-operator.clusterserviceversion.yaml";
const project = () =>
  testdir(
    miniProject({ "crd.yaml": CRD, "deployment.yaml": DEPLOYMENT("demo-operator-controller-manager", "sa") }),
  );

describe("tsop bundle without a terminal", () => {
  test("the error shows the command line to run, and that line works", async () => {
    const dir = await project();
    const args = ["bundle", "--skip-generate", "--version", "0.0.1", "--channels", "alpha"];
    const r = await tsop(dir, args);
    expect(r.exitCode).toBe(2);
    const line =
      "tsop bundle --skip-generate --version 0.0.1 --channels alpha --description 'What the operator manages' --provider-name 'Your Company' --maintainers 'Jane Doe <jane@example.com>'";
    expect(r.stderr).toContain(`Run:\n  ${line}\n`);
    expect(r.stderr).toContain("  tsop bundle --skip-generate --version 0.0.1 --channels alpha --yes\n");
    // The suggested line, pasted into a shell, creates the bundle.
    const pasted = await execa("sh", ["-c", line.replace(/^tsop /, `'${process.execPath}' '${TSOP_BIN}' `)], {
      cwd: dir,
      reject: false,
      env: { CI: "1", NO_COLOR: "1" },
    });
    expect(pasted.exitCode, pasted.stderr).toBe(0);
    expect((await readYaml(join(dir, BASE))).spec).toMatchObject({
      description: "What the operator manages",
      provider: { name: "Your Company" },
      maintainers: [{ name: "Jane Doe", email: "jane@example.com" }],
    });
  });

  test("--yes fills the documented placeholders; the bundle validates", async () => {
    const dir = await project();
    const r = await tsop(dir, [
      "bundle",
      "--skip-generate",
      "--version",
      "0.0.1",
      "--channels",
      "alpha",
      "--yes",
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await readYaml(join(dir, BASE))).spec).toMatchObject({
      displayName: "Demo Operator",
      description: "The Demo Operator operator.",
      provider: { name: "The demo-operator Authors" },
      maintainers: [{ name: "The demo-operator Authors", email: "demo-operator@example.com" }],
    });
    const validated = await tsop(dir, ["bundle", "validate", "bundle"]);
    expect(validated.exitCode, validated.stdout + validated.stderr).toBe(0);
  });
});
