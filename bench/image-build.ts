#!/usr/bin/env -S npx tsx
// `tsop image build` timed in a scaffolded project (tsop init + create api + npm run build) against
// a docker-registry on 127.0.0.1 and a Node base assembled by the tests
// (test/operator-image/node-base.ts):
//   cold     no layer cache (npm ci runs) and an empty repository (every layer uploaded);
//   warm     the same inputs again (same digest; the dependencies layer from the cache, no npm,
//            blobs already there, nothing uploaded);
//   app edit dist/ changed (a new app layer; the dependencies layer from the cache).
// The floor each build cannot go under is `npm ci --omit=dev` of the same lock in a fresh directory
// (what the scaffolded Dockerfile's dependency stage runs too), timed in the same run: the ratio
// tsop / npm-ci says what tsop adds on top of installing the dependencies. No container engine runs
// here, so `docker build` is not measured; docs/images.md gives its known shape.
// BENCH_RUNS (default 5). Run: npm run bench:image-build
import { appendFileSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TSOP_BIN } from "../test/support/cli.js";
import { pushNodeBase } from "../test/operator-image/node-base.js";
import { startRegistry, type TestRegistry } from "../test/support/registry.js";
import { type Case, fail, main, ok, report, timed } from "./side-by-side.js";

const runs = Number(process.env.BENCH_RUNS ?? 5);

async function scaffold(work: string): Promise<string> {
  const project = join(work, "memcached-operator");
  ok("tsop init", await timed(process.execPath, [TSOP_BIN, "init", project, "--domain", "example.com"]));
  ok(
    "tsop create api",
    await timed(
      process.execPath,
      [TSOP_BIN, "create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"],
      { cwd: project },
    ),
  );
  ok("npm run build", await timed("npm", ["run", "build"], { cwd: project }));
  return project;
}

function imageBuild(registry: TestRegistry, project: string, repository: string) {
  return timed(
    process.execPath,
    [
      TSOP_BIN,
      "image",
      "build",
      "--base",
      `${registry.host}/base/node:20`,
      "--push",
      `${registry.host}/${repository}:v1`,
      `--plain-http=${registry.host}`,
      "-q",
    ],
    { cwd: project, timeoutMs: 600_000 },
  );
}

/** `npm ci --omit=dev` of the project's lock in a fresh directory: the dependency floor. */
async function npmCiFloor(project: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "tsop-bench-npmci-"));
  try {
    for (const name of ["package.json", "package-lock.json", "vendor"]) {
      cpSync(join(project, name), join(dir, name), { recursive: true });
    }
    const run = ok(
      "npm ci --omit=dev",
      await timed("npm", ["ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: dir }),
    );
    return run.ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main(async () => {
  const registry = await startRegistry();
  const work = mkdtempSync(join(tmpdir(), "tsop-bench-image-"));
  try {
    await pushNodeBase(registry, "base/node", "20");
    const project = await scaffold(work);
    const samples = {
      cold: [] as number[],
      warm: [] as number[],
      edit: [] as number[],
      floor: [] as number[],
    };
    for (let i = 0; i < runs; i++) {
      const repository = `bench/op-${i}`;
      rmSync(join(project, "node_modules/.cache/tsop-image"), { recursive: true, force: true });
      const cold = ok("tsop image build (cold)", await imageBuild(registry, project, repository));
      const warm = ok("tsop image build (warm)", await imageBuild(registry, project, repository));
      if (warm.stdout !== cold.stdout) fail(`same inputs, different image: ${cold.stdout} vs ${warm.stdout}`);
      appendFileSync(join(project, "dist/main.js"), `\n// bench edit ${i}\n`);
      const edit = ok("tsop image build (app edit)", await imageBuild(registry, project, repository));
      if (edit.stdout === warm.stdout) fail("dist/ changed but the image digest did not");
      samples.cold.push(cold.ms);
      samples.warm.push(warm.ms);
      samples.edit.push(edit.ms);
      samples.floor.push(await npmCiFloor(project));
    }
    const against = (label: string, values: number[]): Case => ({
      label,
      samples: { tsop: values, "npm ci --omit=dev": samples.floor },
    });
    report({
      benchmark: "tsop image build (scaffolded memcached operator, local registry)",
      runs,
      peers: ["npm ci --omit=dev"],
      cases: [
        against("cold: no layer cache (npm ci runs), empty repository", samples.cold),
        against("warm: same inputs, same digest", samples.warm),
        against("app edit: dist/ changed, dependencies layer reused", samples.edit),
      ],
      notes: [
        "npm ci --omit=dev of the same lock is the floor every image build of this project pays",
        "no container engine on this machine: docker build is not measured (see docs/images.md)",
      ],
    });
  } finally {
    await registry.stop();
    rmSync(work, { recursive: true, force: true });
  }
});
