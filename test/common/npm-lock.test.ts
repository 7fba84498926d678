// Locks `npm ci` refuses although `npm install` wrote them (src/common/npm-lock.ts). Oracle: the
// machine's own npm, offline (`npm ci --dry-run --offline` validates the lock against package.json
// without fetching anything): it refuses the lock npm 11.16+ writes when the registry cannot serve
// an optional dependency, and accepts it once the dangling edge is dropped.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { danglingOptionals, describeDangling, dropDanglingOptionals } from "../../src/common/npm-lock.js";
import { testdir } from "../support/testdir.js";

const entry = (name: string, version: string, extra: Record<string, unknown> = {}) => ({
  version,
  resolved: `https://registry.npmjs.org/${name}/-/${name.split("/").pop()}-${version}.tgz`,
  integrity: `sha512-${"A".repeat(86)}==`,
  dev: true,
  ...extra,
});

/** What npm install writes here for vite (an optional dependency the registry 404s), in small. */
export const BROKEN_LOCK = {
  name: "x",
  version: "0.0.1",
  lockfileVersion: 3,
  requires: true,
  packages: {
    "": { name: "x", version: "0.0.1", devDependencies: { "tsop-fake-vite": "^8.0.0" } },
    "node_modules/tsop-fake-vite": entry("tsop-fake-vite", "8.4.0", {
      optionalDependencies: { "tsop-fake-fsevents": "~2.3.3", "tsop-fake-napi": "^0.1.0" },
    }),
    // Locked although not installed on this platform: npm records every platform's variant.
    "node_modules/tsop-fake-fsevents": entry("tsop-fake-fsevents", "2.3.3", {
      optional: true,
      os: ["darwin"],
    }),
    "node_modules/tsop-fake-vite/node_modules/@scope/inner": entry("@scope/inner", "1.0.0", {
      optionalDependencies: { "tsop-fake-fsevents": "~2.3.3", "@scope/gone": "1.0.0" },
    }),
  },
};

const npmCi = (cwd: string) =>
  execa("npm", ["ci", "--dry-run", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], {
    cwd,
    reject: false,
    all: true,
    env: { NO_COLOR: "1", npm_config_update_notifier: "false" },
  });

describe("npm locks with dangling optional dependencies", () => {
  it("finds the optional edges that resolve to nothing, nested and scoped, and names them", () => {
    const found = danglingOptionals(BROKEN_LOCK);
    expect(found.map((edge) => [edge.dependent, edge.name])).toEqual([
      ["node_modules/tsop-fake-vite", "tsop-fake-napi"],
      ["node_modules/tsop-fake-vite/node_modules/@scope/inner", "@scope/gone"],
    ]);
    expect(describeDangling(found[0]!)).toBe(
      "tsop-fake-napi (an optional dependency of tsop-fake-vite@8.4.0)",
    );
    expect(describeDangling(found[1]!)).toBe("@scope/gone (an optional dependency of @scope/inner@1.0.0)");
  });

  it("npm ci refuses the lock npm install wrote, and accepts it with the dangling edges dropped", async () => {
    const dir = await testdir({
      "package.json": JSON.stringify({
        name: "x",
        version: "0.0.1",
        devDependencies: { "tsop-fake-vite": "^8.0.0" },
      }),
      "package-lock.json": `${JSON.stringify(BROKEN_LOCK, null, 2)}\n`,
    });
    const refused = await npmCi(dir);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.all).toContain("Missing: tsop-fake-napi@ from lock file");

    const text = await readFile(join(dir, "package-lock.json"), "utf8");
    const repaired = dropDanglingOptionals(text);
    expect(repaired.dropped).toHaveLength(2);
    const lock = JSON.parse(repaired.text);
    expect(lock.packages["node_modules/tsop-fake-vite"].optionalDependencies).toEqual({
      "tsop-fake-fsevents": "~2.3.3",
    });
    await writeFile(join(dir, "package-lock.json"), repaired.text);
    const accepted = await npmCi(dir);
    expect(accepted.exitCode, accepted.all).toBe(0);
    // A sound lock is left byte for byte.
    expect(dropDanglingOptionals(repaired.text)).toEqual({ text: repaired.text, dropped: [] });
  });
});
