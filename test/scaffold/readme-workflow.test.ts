// The README's workflow, replayed as written: every line of the "The workflow" block runs in a
// shell with `tsop` on PATH (as `npm link` puts it there), from a fresh directory, with no flag the
// README does not show. The registry is a real local docker-registry serving TLS (its CA given
// the documented way, SSL_CERT_FILE) standing in for registry.example.com. The cluster lines
// (install, run, deploy, olm, cleanup) belong to the real tier and are listed, not run, here.
// The first `tsop bundle` runs without a terminal (--yes placeholders) and again on a real
// pseudo-terminal (its questions answered).
import { chmod, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parse } from "yaml";
import { TSOP_BIN } from "../support/cli.js";
import { runOnTerminal, tail } from "../support/pty.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { testdir } from "../support/testdir.js";
import { pushNodeBase } from "../operator-image/node-base.js";
import { pushStandInOpmBase } from "../catalog/opm-base.js";
import { CLUSTER_COMMANDS, workflowLines } from "./readme-workflow-lines.js";

let registry: TestRegistry;
beforeAll(async () => {
  registry = await startRegistry({ tls: true });
  // `tsop image build` cannot reach gcr.io here: its default base comes from TSOP_IMAGE_BASE, as a
  // user behind a mirror sets it, so the README line runs unchanged.
  await pushNodeBase(registry, "node", "20");
  // `tsop catalog image` cannot reach quay.io either: its opm base comes from TSOP_CATALOG_BASE (a
  // stand-in; the catalog image is not run here).
  await pushStandInOpmBase(registry);
}, 120_000);
afterAll(async () => {
  await registry?.stop();
});

it("runs the README's workflow as written (no terminal, then the bundle step on a terminal)", async () => {
  const home = await testdir();
  const bin = join(home, "bin");
  await execa("mkdir", ["-p", bin]);
  await writeFile(join(bin, "tsop"), `#!/bin/sh\nexec '${process.execPath}' '${TSOP_BIN}' "$@"\n`);
  await chmod(join(bin, "tsop"), 0o755);
  const env = {
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    CI: "1",
    NO_COLOR: "1",
    SSL_CERT_FILE: registry.caFile!,
    TSOP_IMAGE_BASE: `${registry.host}/node:20`,
    TSOP_CATALOG_BASE: `${registry.host}/opm:v1.47.0`,
  };

  const lines = await workflowLines();
  const skipped: string[] = [];
  let cwd = home;
  for (const raw of lines) {
    const line = raw.replaceAll("registry.example.com", registry.host);
    if (line.startsWith("cd ")) {
      cwd = join(cwd, line.slice(3));
      continue;
    }
    if (CLUSTER_COMMANDS.test(line)) {
      skipped.push(raw);
      continue;
    }
    const result = await execa("sh", ["-c", line], { cwd, env, reject: false, all: true, timeout: 600_000 });
    expect(result.exitCode, `${line}\n${String(result.all).slice(-4000)}`).toBe(0);
  }
  // What this tier leaves to the real test bed, exactly.
  expect(skipped.map((l) => l.split(" ").slice(0, 3).join(" "))).toEqual([
    "tsop install",
    "tsop run local",
    "tsop deploy --image",
    "tsop undeploy --delete-crds",
    "tsop olm install",
    "tsop run bundle",
    "tsop run bundle-upgrade",
    "tsop cleanup memcached-operator",
  ]);

  // The project depends on the packed tsop, and the pushed bundle image is in the registry
  // (skopeo, not tsop, reads it back).
  const pkg = JSON.parse(await readFile(join(cwd, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  expect(pkg.dependencies.tsop).toMatch(/^file:vendor\/tsop-/);
  const inspected = await execa("skopeo", [
    "inspect",
    "--tls-verify=false",
    `docker://${registry.host}/memcached-operator-bundle:v0.0.1`,
  ]);
  const labels = (JSON.parse(inspected.stdout) as { Labels: Record<string, string> }).Labels;
  expect(labels["operators.operatorframework.io.bundle.package.v1"]).toBe("memcached-operator");

  // The bundle line again on a terminal: it asks for the three fields instead of placeholders.
  const bundleLine = lines.find((l) => l.startsWith("tsop bundle --version"))!;
  await rm(join(cwd, "config/manifests/bases/memcached-operator.clusterserviceversion.yaml"));
  const term = runOnTerminal(bundleLine.split(" ").slice(1), { cwd, env: { ...env, CI: undefined } });
  for (const [question, answer] of [
    ["Description of the operator", "Runs memcached"],
    ["Provider's name", "Acme"],
    ["Maintainers, comma-separated", "Jo <jo@example.com>"],
  ] as Array<[string, string]>) {
    await term.waitFor(question, 60_000);
    term.type(`${answer}\r`);
  }
  const code = await term.exited;
  expect(code, tail(term.output())).toBe(0);
  const csv = parse(
    await readFile(join(cwd, "bundle/manifests/memcached-operator.clusterserviceversion.yaml"), "utf8"),
  ) as { spec: Record<string, unknown> };
  expect(csv.spec).toMatchObject({
    description: "Runs memcached",
    provider: { name: "Acme" },
    maintainers: [{ name: "Jo", email: "jo@example.com" }],
  });
}, 1_200_000);
