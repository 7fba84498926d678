#!/usr/bin/env -S npx tsx
// Bundle side by side on the memcached fixture (fixtures/bundle/memcached/project): `tsop bundle`
// against what an operator-sdk project runs, `kustomize build config/manifests | operator-sdk
// generate bundle` (the rig's kustomize v5.7.1 and operator-sdk v1.42.2). Each tool works in its own
// temp copy; operator-sdk's copy has a kubebuilder layout in PROJECT (it refuses tsop's). No --image
// on either side (operator-sdk's Makefile sets it with `kustomize edit`, outside the pipeline).
// Each run starts without bundle/ and is checked: the same manifest files, CSV name, container
// images and bundle annotations from both. BENCH_RUNS (default 10). Run: npm run bench:vs-bundle
import { rmSync } from "node:fs";
import { join } from "node:path";
import { TSOP_BIN } from "../test/support/cli.js";
import { BUNDLE_FLAGS, copyProject, sameBundle } from "./bundle-project.js";
import { interleave, main, ok, pipeline, report, rigBinary, timed } from "./side-by-side.js";

const runs = Number(process.env.BENCH_RUNS ?? 10);
const FLAGS = BUNDLE_FLAGS;

main(async () => {
  const sdk = rigBinary("operator-sdk");
  const kustomize = rigBinary("kustomize");
  const tsopDir = copyProject(false);
  const sdkDir = copyProject(true);
  const sdkScript = `${kustomize} build config/manifests | ${sdk} generate bundle -q --overwrite --package memcached-operator ${FLAGS.join(" ")}`;
  try {
    const samples = await interleave(runs, 1, async () => {
      for (const dir of [tsopDir, sdkDir]) {
        rmSync(join(dir, "bundle"), { recursive: true, force: true });
        rmSync(join(dir, "bundle.Dockerfile"), { force: true });
      }
      const tsop = ok(
        "tsop bundle",
        await timed(process.execPath, [TSOP_BIN, "bundle", "--skip-generate", ...FLAGS], { cwd: tsopDir }),
      );
      const peer = ok(
        "kustomize build | operator-sdk generate bundle",
        await pipeline(sdkScript, { cwd: sdkDir }),
      );
      sameBundle(tsopDir, sdkDir);
      return { tsop: tsop.ms, "kustomize | operator-sdk": peer.ms };
    });
    report({
      benchmark:
        "tsop bundle vs kustomize build config/manifests | operator-sdk generate bundle (memcached fixture)",
      runs,
      peers: ["kustomize | operator-sdk"],
      cases: [{ label: "memcached, 9 manifests", samples }],
      notes: ["the pipeline runs under bash (set -o pipefail), about 2 ms of its time"],
    });
  } finally {
    rmSync(tsopDir, { recursive: true, force: true });
    rmSync(sdkDir, { recursive: true, force: true });
  }
});
