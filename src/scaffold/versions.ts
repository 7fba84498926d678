// Versions the scaffolded project depends on. Dev tools come from tsop's own package.json, so a
// scaffolded project uses the versions tsop itself is built and tested with.
import { readFileSync } from "node:fs";

interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

let cached: PackageJson | undefined;

function tsopPackage(): PackageJson {
  cached ??= JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as PackageJson;
  return cached;
}

/**
 * Biome lints and formats scaffolded projects. tsop itself is linted with eslint + prettier (pure
 * JavaScript, installable from any npm mirror), so biome's range is pinned here instead.
 */
export const BIOME_RANGE = "^2.6.8";

/** The range tsop itself uses for a package (a dependency or a dev dependency). */
export function tsopRange(name: string): string {
  const pkg = tsopPackage();
  const range = pkg.devDependencies?.[name] ?? pkg.dependencies?.[name];
  if (range === undefined) throw new Error(`tsop's package.json does not list ${name}`);
  return range;
}

/** The scorecard test image of the basic suite (the version operator-sdk v1.42 scaffolds). */
export const SCORECARD_IMAGE = "quay.io/operator-framework/scorecard-test:v1.42.3";
