#!/usr/bin/env -S npx tsx
// Generation side by side: `tsop generate` against `controller-gen crd rbac:roleName=manager-role
// paths=./...` (the rig's v0.19.0) on equivalent 1/10/50-kind projects (bench/projects.ts: the same
// types in TypeScript and in Go with kubebuilder markers), in three cases per size:
//   cold      — tsop's cache (node_modules/.cache/tsop) removed: what a fresh clone or CI pays;
//   unchanged — nothing changed since the last run (tsop answers from its generate cache);
//   edit      — one kind's file changed (its spec's description, in both languages) since the last run.
// controller-gen keeps no cache of its own; Go's build cache is warm in every case. One process per
// run, interleaved, the outputs removed before each run; each run's output is checked (the same CRD
// files, names, schema property paths and RBAC rules from both). controller-gen runs offline from
// the Go module cache (GOFLAGS=-mod=mod GOPROXY=off); one unrecorded round per size warms Go's build
// cache and the file cache for both. BENCH_RUNS (default 5), BENCH_KINDS (default 1,10,50).
// Run: npm run bench:vs-generate
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { TSOP_BIN } from "../test/support/cli.js";
import { makeGoProject, makeTsProject } from "./projects.js";
import { type Case, fail, interleave, main, ok, report, rigBinary, timed } from "./side-by-side.js";

const runs = Number(process.env.BENCH_RUNS ?? 5);
const sizes = (process.env.BENCH_KINDS ?? "1,10,50").split(",").map(Number);
const GO_ENV = { GOFLAGS: "-mod=mod", GOPROXY: "off" };

interface Output {
  crds: Record<string, unknown>;
  rules: unknown;
}

/** Every property path of a schema ("spec.containers[].ports[].port"), so a lost field shows. */
function propertyPaths(schema: Schema | undefined, at = ""): string[] {
  if (!schema) return [];
  const own = Object.entries(schema.properties ?? {}).flatMap(([name, child]) => {
    const path = at ? `${at}.${name}` : name;
    return [path, ...propertyPaths(child, path)];
  });
  return [
    ...own,
    ...propertyPaths(schema.items, `${at}[]`),
    ...propertyPaths(schema.additionalProperties, `${at}{}`),
  ];
}

interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema;
}

function readOutput(crdDir: string, roleFile: string): Output {
  const crds: Record<string, unknown> = {};
  for (const file of readdirSync(crdDir).sort()) {
    const crd = parse(readFileSync(join(crdDir, file), "utf8")) as {
      spec: { names: unknown; versions: Array<{ schema: { openAPIV3Schema: Schema } }> };
    };
    crds[file] = {
      names: crd.spec.names,
      paths: propertyPaths(crd.spec.versions[0]?.schema.openAPIV3Schema).sort(),
    };
  }
  return { crds, rules: (parse(readFileSync(roleFile, "utf8")) as { rules: unknown }).rules };
}

/** Both wrote `kinds` CRDs with the same file names, names and property paths, and the same RBAC rules. */
function checkOutputs(kinds: number, tsDir: string, goDir: string): void {
  const tsop = readOutput(join(tsDir, "config/crd/bases"), join(tsDir, "config/rbac/role.yaml"));
  const cg = readOutput(join(goDir, "config/crd"), join(goDir, "config/rbac/role.yaml"));
  if (Object.keys(tsop.crds).length !== kinds)
    fail(`tsop generate wrote ${Object.keys(tsop.crds).length} CRDs, not ${kinds}`);
  if (JSON.stringify(tsop) !== JSON.stringify(cg))
    fail(
      `tsop and controller-gen disagree (${kinds} kinds):\n${JSON.stringify(tsop)}\n${JSON.stringify(cg)}`,
    );
}

type Scenario = "cold" | "unchanged" | "edit";
const SCENARIOS: Scenario[] = ["cold", "unchanged", "edit"];

/** Changes the description of Widget0's spec in both projects (a new text each time). */
function editOneKind(tsDir: string, goDir: string, run: number): void {
  const files = [join(tsDir, "api/widget0.ts"), join(goDir, "api/v1/widget0_types.go")];
  for (const file of files) {
    const text = readFileSync(file, "utf8").replace(
      /Widget0Spec is the desired state[^.]*\./,
      `Widget0Spec is the desired state (edit ${run}).`,
    );
    writeFileSync(file, text);
  }
}

async function measure(kinds: number, controllerGen: string): Promise<Case[]> {
  const tsDir = makeTsProject(kinds);
  const goDir = makeGoProject(kinds);
  const once = async (scenario: Scenario, run: number) => {
    rmSync(join(tsDir, "config"), { recursive: true, force: true });
    rmSync(join(goDir, "config"), { recursive: true, force: true });
    if (scenario === "cold")
      rmSync(join(tsDir, "node_modules/.cache/tsop"), { recursive: true, force: true });
    if (scenario === "edit") editOneKind(tsDir, goDir, run);
    const tsop = ok(
      `tsop generate (${scenario})`,
      await timed(process.execPath, [TSOP_BIN, "generate", "--quiet"], { cwd: tsDir }),
    );
    const cg = ok(
      "controller-gen",
      await timed(controllerGen, ["crd", "rbac:roleName=manager-role", "paths=./..."], {
        cwd: goDir,
        env: GO_ENV,
      }),
    );
    checkOutputs(kinds, tsDir, goDir);
    return { tsop: tsop.ms, "controller-gen": cg.ms };
  };
  try {
    const samples = await interleave(runs, 1, async (run) => {
      const round: Record<string, number> = {};
      for (const scenario of SCENARIOS) {
        const { tsop, "controller-gen": cg } = await once(scenario, run);
        round[`tsop ${scenario}`] = tsop;
        round[`controller-gen ${scenario}`] = cg;
      }
      return round;
    });
    return SCENARIOS.map((scenario) => ({
      label: `${kinds} kind${kinds === 1 ? "" : "s"}, ${scenario}`,
      samples: {
        tsop: samples[`tsop ${scenario}`]!,
        "controller-gen": samples[`controller-gen ${scenario}`]!,
      },
    }));
  } finally {
    rmSync(tsDir, { recursive: true, force: true });
    rmSync(goDir, { recursive: true, force: true });
  }
}

main(async () => {
  const controllerGen = rigBinary("controller-gen");
  const cases: Case[] = [];
  for (const kinds of sizes) cases.push(...(await measure(kinds, controllerGen)));
  report({
    benchmark: "tsop generate vs controller-gen crd rbac:roleName=manager-role paths=./...",
    runs,
    peers: ["controller-gen"],
    cases,
    notes: [
      "wall time of one process each, start-up included (node, and the TypeScript compiler when tsop analyses; go list of the package graph for controller-gen)",
      "cold: tsop's node_modules/.cache/tsop removed; unchanged: nothing changed since the previous run; edit: one kind's file changed in both projects",
    ],
  });
});
