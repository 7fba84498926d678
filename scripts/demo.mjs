#!/usr/bin/env node
// `npm run demo [-- <dir>]`: the newcomer's tour. Scaffolds a Memcached operator with the tsop in
// this checkout (as a file: dependency), adds its API, builds and tests it, then runs whichever
// later steps this tsop has (generate, bundle, bundle validate), and prints where everything is.
// Needs no cluster. The directory defaults to a new temporary one.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));
const tsopBin = join(repo, "bin/tsop.cjs");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function step(title) {
  process.stderr.write(`\n==> ${title}\n`);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: ["ignore", "inherit", "inherit"], ...options });
  if (result.status !== 0) {
    const why = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
    process.stderr.write(`\ndemo: \`${[command, ...args].join(" ")}\` failed (${why}).\n`);
    process.exit(result.status || 1);
  }
}

function capture(args) {
  const result = spawnSync(process.execPath, [tsopBin, ...args], { encoding: "utf8" });
  return result.status === 0 ? result.stdout : "";
}

/** Command names listed under "Commands:" in a help text. */
function commandsIn(help) {
  const section = help.split(/^Commands:\s*$/m)[1] ?? "";
  return new Set([...section.matchAll(/^ {2}(\S+)/gm)].map((m) => m[1]));
}

if (!existsSync(join(repo, "dist/cli/tsop.cjs"))) {
  step("building tsop (npm run build)");
  run(npm, ["run", "build"], { cwd: repo });
}

const top = commandsIn(capture(["--help"]));
const has = {
  generate: top.has("generate"),
  bundle: top.has("bundle"),
  validate: top.has("bundle") && commandsIn(capture(["bundle", "--help"])).has("validate"),
};

const parent = process.argv[2] ? resolve(process.argv[2]) : mkdtempSync(join(tmpdir(), "tsop-demo-"));
mkdirSync(parent, { recursive: true });
const project = join(parent, "memcached-operator");
const tsop = (args, cwd = project, env = {}) =>
  run(process.execPath, [tsopBin, ...args], { cwd, env: { ...process.env, ...env } });

step(`tsop init ${project}`);
tsop(
  ["init", project, "--domain", "example.com", "--repo", "https://github.com/example/memcached-operator"],
  parent,
  {
    TSOP_DEPENDENCY: `file:${repo}`,
    // npm would run tsop's own `prepare` (a rebuild of this checkout) for the file: dependency.
    npm_config_ignore_scripts: "true",
  },
);

step("tsop create api --group cache --version v1alpha1 --kind Memcached");
tsop(["create", "api", "--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"]);

step(has.generate ? "npm run build (tsop generate, then tsc)" : "npm run build");
run(npm, ["run", "build"], { cwd: project });

step("npm test (the reconciler test against tsop's in-memory API server)");
run(npm, ["test"], { cwd: project });

if (has.bundle) {
  step("tsop bundle --version 0.0.1");
  tsop([
    "bundle",
    "--version",
    "0.0.1",
    "--description",
    "Runs Memcached instances sized from Memcached resources (tsop demo).",
    "--provider-name",
    "Example",
    "--maintainers",
    "Demo Maintainer <demo@example.com>",
    "--min-kube-version",
    "1.28.0",
  ]);
}
if (has.validate) {
  step("tsop bundle validate bundle");
  tsop(["bundle", "validate", "bundle"]);
}

const lines = [
  "",
  "Demo finished. The Memcached operator is in:",
  `  ${project}`,
  `    src/api/v1alpha1/memcached.ts               the API type (spec/status, validation tags)`,
  `    src/controllers/memcached.controller.ts     the reconciler (Deployment, conditions, finalizer)`,
  `    test/memcached.controller.test.ts           its test against tsop/testing`,
  `    dist/                                       the compiled operator (node dist/main.js --help)`,
];
if (has.generate) {
  lines.push(
    `    config/crd/bases/                           generated CRD`,
    `    config/rbac/role.yaml                       generated RBAC`,
  );
}
if (has.bundle)
  lines.push(
    `    bundle/                                     the OLM bundle (manifests, metadata, scorecard tests)`,
  );
const missing = Object.entries({
  generate: "tsop generate",
  bundle: "tsop bundle",
  validate: "tsop bundle validate",
})
  .filter(([key]) => !has[key])
  .map(([, name]) => name);
if (missing.length > 0) lines.push("", `Skipped (not in this tsop yet): ${missing.join(", ")}.`);
process.stdout.write(`${lines.join("\n")}\n`);
