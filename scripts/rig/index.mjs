#!/usr/bin/env node
// `npm run rig -- <command>`: builds the real components of the test bed (etcd, kube-apiserver,
// controller-manager, scheduler, kwok, OLM, opm) and the peer tools (operator-sdk, controller-gen,
// kustomize) from Go modules, once per machine, into a cache keyed by what goes into each build.
//
//   path <name>         print the absolute path of one binary, building it first if needed
//   build [names…]      build the named binaries (all when none are named); print name and path
//   list                print every component, its version and whether it is built
//   dir                 print the cache directory
//   assets [names…]     build them (all when none are named), link them into one directory of the
//                       cache and print its path (KUBEBUILDER_ASSETS / TSOP_RIG_ASSETS)
//   links [names…]      the same directory without building (links to unbuilt ones dangle)
//
// Several processes may build at once (CI's background build, the real tier's lanes): one builds a
// component while the others wait for it (lock.mjs).
//
// Cache: $TSOP_RIG_CACHE, else $XDG_CACHE_HOME/tsop-rig, else ~/.cache/tsop-rig. Go's own module
// and build caches (GOMODCACHE, GOCACHE) make a rebuild after a version bump incremental.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { COMPONENTS } from "./components.mjs";
import { withLock } from "./lock.mjs";

const GO = process.env.GO ?? "go";

export function cacheDir() {
  if (process.env.TSOP_RIG_CACHE) return process.env.TSOP_RIG_CACHE;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "tsop-rig");
}

function component(name) {
  const found = COMPONENTS.find((c) => c.name === name);
  if (!found) {
    fail(`unknown component "${name}"; known: ${COMPONENTS.map((c) => c.name).join(", ")}`, 2);
  }
  return found;
}

/** Where a component's binary lives: <cache>/<name>-<version>-<hash of its build recipe>/<name>. */
export function binaryPath(c) {
  const recipe = JSON.stringify({ ...c, goVersion: goVersion() });
  const key = createHash("sha256").update(recipe).digest("hex").slice(0, 12);
  return join(cacheDir(), `${c.name}-${c.version}-${key}`, c.name);
}

let cachedGoVersion;
function goVersion() {
  if (cachedGoVersion) return cachedGoVersion;
  const r = spawnSync(GO, ["env", "GOVERSION"], { encoding: "utf8" });
  if (r.error || r.status !== 0) {
    fail(
      `Go is needed to build the real test bed and was not found (${r.error?.message ?? r.stderr.trim()}). ` +
        "Install Go 1.24 or newer (https://go.dev/dl) or set GO to its path; `bash .ci/run` installs it on CI.",
    );
  }
  cachedGoVersion = r.stdout.trim();
  return cachedGoVersion;
}

function goEnv(c) {
  return {
    ...process.env,
    CGO_ENABLED: "0",
    GOFLAGS: "-mod=mod -buildvcs=false",
    // Modules pinned here are verified by go.sum in the wrappers; some old releases are missing
    // from the checksum database that the proxy fronts, so fall back to the proxy's own hashes.
    GONOSUMDB: process.env.GONOSUMDB ?? "github.com/operator-framework",
    ...(c.env ?? {}),
  };
}

function buildArgs(c) {
  const args = ["-trimpath"];
  if (c.tags?.length) args.push("-tags", c.tags.join(","));
  args.push("-ldflags", ["-s -w", c.ldflags].filter(Boolean).join(" "));
  return args;
}

function run(cmd, args, options) {
  const r = spawnSync(cmd, args, { stdio: ["ignore", "inherit", "inherit"], ...options });
  if (r.error || r.status !== 0) {
    throw new Error(
      `\`${cmd} ${args.join(" ")}\` failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`})`,
    );
  }
}

function writeWrapper(dir, c) {
  const lines = ["module tsop.local/rig/" + c.name, "", "go 1.24", ""];
  lines.push("require (");
  for (const [mod, ver] of Object.entries(c.wrapper.require)) lines.push(`\t${mod} ${ver}`);
  lines.push(")", "");
  const replace = Object.entries(c.wrapper.replace ?? {});
  if (replace.length) {
    lines.push("replace (");
    for (const [mod, target] of replace) lines.push(`\t${mod} => ${target}`);
    lines.push(")", "");
  }
  writeFileSync(join(dir, "go.mod"), lines.join("\n"));
  if (c.wrapper.main) writeFileSync(join(dir, "main.go"), c.wrapper.main);
}

/**
 * Files of the component's module kept beside the binary (`files`: name → path in the module), e.g.
 * the release manifests whose CRDs a test applies: the same version as the binary, without the
 * module cache at test time.
 */
function copyModuleFiles(c, src, stage) {
  const [module] = Object.keys(c.wrapper.require);
  const entries = Object.entries(c.files ?? {});
  if (entries.length === 0) return;
  const r = spawnSync(GO, ["list", "-m", "-f", "{{.Dir}}", module], {
    cwd: src,
    env: goEnv(c),
    encoding: "utf8",
  });
  if (r.error || r.status !== 0)
    throw new Error(`\`go list -m ${module}\` failed: ${r.error?.message ?? r.stderr}`);
  for (const [name, path] of entries) copyFileSync(join(r.stdout.trim(), path), join(stage, name));
}

/**
 * Builds one component unless it is built, waiting instead while another process builds it (CI's
 * background build and a real-tier lane that needs it now).
 */
function build(c) {
  const out = binaryPath(c);
  const finalDir = join(out, "..");
  mkdirSync(cacheDir(), { recursive: true });
  withLock(
    `${finalDir}.lock`,
    () => existsSync(out),
    () => buildUnlocked(c, out),
    (pid) => process.stderr.write(`rig: waiting for process ${pid}, which is building ${c.name}…\n`),
  );
  return out;
}

/** Builds one component into a staging directory and moves it into place (atomic per binary). */
function buildUnlocked(c, out) {
  const started = Date.now();
  process.stderr.write(`rig: building ${c.name} ${c.version} (once per machine)…\n`);
  const finalDir = join(out, "..");
  const stage = `${finalDir}.tmp-${process.pid}`;
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  try {
    if (c.install) {
      run(GO, ["install", ...buildArgs(c), c.install], {
        env: { ...goEnv(c), GOBIN: stage, GOFLAGS: "-buildvcs=false" },
      });
      const built = c.install.split("@")[0].split("/").pop();
      const binary = /^v\d+$/.test(built) ? c.install.split("@")[0].split("/").at(-2) : built;
      if (binary !== c.name) renameSync(join(stage, binary), join(stage, c.name));
    } else {
      const src = join(stage, "src");
      mkdirSync(src);
      writeWrapper(src, c);
      run(GO, ["build", ...buildArgs(c), "-o", join(stage, c.name), c.package], { cwd: src, env: goEnv(c) });
      copyModuleFiles(c, src, stage);
      rmSync(src, { recursive: true, force: true });
    }
    rmSync(finalDir, { recursive: true, force: true });
    renameSync(stage, finalDir);
  } catch (error) {
    rmSync(stage, { recursive: true, force: true });
    throw error;
  }
  process.stderr.write(`rig: built ${c.name} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

/**
 * One directory of links to the built binaries, named by what it holds: runs in parallel (several
 * checkouts, test tiers and benchmarks on one machine) share it and never rebuild it under another
 * run's feet. Made in a staging directory and renamed into place, so it is complete or absent.
 */
function linkAssets(built) {
  const listing = built.map(([name, path]) => `${name}\t${path}`).join("\n");
  const key = createHash("sha256").update(listing).digest("hex").slice(0, 12);
  const dir = join(cacheDir(), `assets-${key}`);
  if (existsSync(dir)) return dir;
  const stage = `${dir}.tmp-${process.pid}`;
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  for (const [name, path] of built) symlinkSync(path, join(stage, name));
  try {
    renameSync(stage, dir);
  } catch (error) {
    // Another run made the same directory first: it holds the same links.
    rmSync(stage, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
  return dir;
}

function fail(message, code = 1) {
  process.stderr.write(`rig: ${message}\n`);
  process.exit(code);
}

function main(argv) {
  const [command, ...rest] = argv;
  switch (command) {
    case "path": {
      if (rest.length !== 1) fail("usage: npm run rig -- path <name>", 2);
      process.stdout.write(build(component(rest[0])) + "\n");
      return;
    }
    case "build": {
      const names = rest.length ? rest : COMPONENTS.map((c) => c.name);
      const started = Date.now();
      for (const name of names) process.stdout.write(`${name}\t${build(component(name))}\n`);
      process.stderr.write(
        `rig: ${names.length} component(s) ready in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
      );
      return;
    }
    case "assets": {
      const names = rest.length ? rest : COMPONENTS.map((c) => c.name);
      const built = names.map((name) => [name, build(component(name))]);
      process.stdout.write(linkAssets(built) + "\n");
      return;
    }
    case "links": {
      // The same directory as `assets`, made without building: a link whose component is not built
      // yet dangles until it is (the real tier starts its lanes while the peers still build).
      const names = rest.length ? rest : COMPONENTS.map((c) => c.name);
      process.stdout.write(linkAssets(names.map((name) => [name, binaryPath(component(name))])) + "\n");
      return;
    }
    case "list": {
      for (const c of COMPONENTS) {
        const p = binaryPath(c);
        process.stdout.write(`${c.name}\t${c.version}\t${existsSync(p) ? p : "(not built)"}\n`);
      }
      return;
    }
    case "dir":
      process.stdout.write(cacheDir() + "\n");
      return;
    default:
      fail(
        "usage: npm run rig -- path <name> | build [names…] | assets [names…] | links [names…] | list | dir",
        2,
      );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
}
