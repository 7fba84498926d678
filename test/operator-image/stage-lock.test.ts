// `tsop image build` installs the production dependencies with npm ci; when npm ci refuses a lock
// npm install wrote because the registry did not serve an optional package (npm/cli#9846), the
// warning names the package, its dependent and the edit that makes npm ci work, not "run npm
// install" (which writes the same lock). The machine's npm runs offline here.
import { describe, expect, it } from "vitest";
import { MemoryReporter } from "../../src/common/reporter.js";
import { stageDependencies } from "../../src/operator-image/stage.js";
import { testdir } from "../support/testdir.js";

const lock = {
  name: "op",
  version: "0.0.1",
  lockfileVersion: 3,
  requires: true,
  packages: {
    "": { name: "op", version: "0.0.1", devDependencies: { "tsop-fake-vite": "^8.0.0" } },
    "node_modules/tsop-fake-vite": {
      version: "8.4.0",
      resolved: "https://registry.npmjs.org/tsop-fake-vite/-/tsop-fake-vite-8.4.0.tgz",
      integrity: `sha512-${"A".repeat(86)}==`,
      dev: true,
      optionalDependencies: { "napi-windows-process-start-time": "^0.1.0" },
    },
  },
};

describe("image build's dependency install on a lock npm ci refuses", () => {
  it("names the package the registry did not serve and the lock edit, not npm install", async () => {
    const project = await testdir({
      "package.json": JSON.stringify({
        name: "op",
        version: "0.0.1",
        devDependencies: { "tsop-fake-vite": "^8.0.0" },
      }),
      "package-lock.json": `${JSON.stringify(lock, null, 2)}\n`,
    });
    const reporter = new MemoryReporter();
    const staged = await stageDependencies(project, reporter, {
      ...process.env,
      npm_config_offline: "true",
    }).catch(() => undefined);
    await staged?.remove();
    const warning = reporter.lines.find((line) => line.level === "warn")?.message ?? "";
    expect(warning).toContain(
      "napi-windows-process-start-time (an optional dependency of tsop-fake-vite@8.4.0)",
    );
    expect(warning).toContain(
      'remove "napi-windows-process-start-time" from "optionalDependencies" of "node_modules/tsop-fake-vite"',
    );
    expect(warning).not.toContain("Run npm install and commit the lock file");
  }, 60_000);
});
