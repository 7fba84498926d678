// tsop's own version, read from package.json at run time so it never drifts from the release.
import { readFileSync } from "node:fs";

let cached: string | undefined;

export function tsopVersion(): string {
  if (cached === undefined) {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    cached = pkg.version;
  }
  return cached;
}
