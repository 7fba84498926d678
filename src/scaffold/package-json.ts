// The scaffolded project's package.json. Built as data (not a template) so it is always valid
// JSON; scripts only name tsop commands that exist in the tsop that scaffolds the project.
import { BIOME_RANGE, tsopRange } from "./versions.js";

/** tsop command paths this tsop offers, e.g. "generate", "bundle validate", "run bundle". */
export type TsopCommands = ReadonlySet<string>;

export interface PackageJsonInput {
  projectName: string;
  license: "apache2" | "none";
  image: string;
  tsopDependency: string;
  commands: TsopCommands;
  repo?: string;
}

export function scaffoldScripts(input: PackageJsonInput): Record<string, string> {
  const has = (command: string) => input.commands.has(command);
  const compile = "tsc -p tsconfig.build.json";
  const scripts: Record<string, string> = {
    // Like kubebuilder's `make build`: regenerate CRDs and RBAC, then compile.
    build: has("generate") ? `tsop generate && ${compile}` : compile,
    typecheck: "tsc -p tsconfig.json --noEmit",
    lint: "biome lint .",
    format: "biome format --write .",
    // CI-friendly: fails when generated files are stale instead of rewriting them.
    test: ["npm run typecheck", has("generate") ? "tsop generate --check" : "", "vitest run"]
      .filter(Boolean)
      .join(" && "),
    start: `${compile} && node dist/main.js`,
    "docker-build": `docker build -t ${input.image} .`,
    "docker-push": `docker push ${input.image}`,
  };
  if (has("generate")) scripts.generate = "tsop generate";
  if (has("bundle")) scripts.bundle = "tsop bundle";
  if (has("bundle validate")) scripts["bundle-validate"] = "tsop bundle validate bundle";
  const bundleImage = bundleImageOf(input.image);
  if (has("bundle push")) scripts["bundle-push"] = `tsop bundle push ${bundleImage}`;
  if (has("run bundle")) scripts["run-bundle"] = `tsop run bundle ${bundleImage}`;
  if (has("cleanup")) scripts.cleanup = `tsop cleanup ${input.projectName}`;
  return Object.fromEntries(Object.entries(scripts).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** `example.com/op:0.0.1` → `example.com/op-bundle:v0.0.1` (operator-sdk's naming). */
export function bundleImageOf(image: string): string {
  const slash = image.lastIndexOf("/");
  const colon = image.lastIndexOf(":");
  const name = colon > slash ? image.slice(0, colon) : image;
  const tag = colon > slash ? image.slice(colon + 1) : "latest";
  return `${name}-bundle:${/^\d/.test(tag) ? `v${tag}` : tag}`;
}

export function renderPackageJson(input: PackageJsonInput): string {
  const pkg: Record<string, unknown> = {
    name: input.projectName,
    version: "0.0.1",
    private: true,
    type: "module",
    license: input.license === "apache2" ? "Apache-2.0" : "UNLICENSED",
    engines: { node: ">=20.19" },
    scripts: scaffoldScripts(input),
    dependencies: {
      // The Kubernetes types the scaffolded controller uses (V1Deployment, …), at tsop's own
      // version, so importing them does not depend on how npm hoists tsop's dependencies.
      "@kubernetes/client-node": tsopRange("@kubernetes/client-node"),
      tsop: input.tsopDependency,
    },
    devDependencies: {
      "@biomejs/biome": BIOME_RANGE,
      "@types/node": tsopRange("@types/node"),
      typescript: tsopRange("typescript"),
      vitest: tsopRange("vitest"),
      yaml: tsopRange("yaml"),
    },
  };
  if (input.repo) pkg.repository = input.repo;
  return `${JSON.stringify(pkg, null, 2)}\n`;
}
