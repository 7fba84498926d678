// Reading a Go-style boolean flag out of a container's args, as the manager's flag parser reads it
// (runtime/manager/options.ts: `--name`, `--name=true`, `--name=false`; the last occurrence wins,
// as with Go's flag package). Manifests are read by tsop generate, deploy and bundle alike.

/** The flag's value in `args`, or undefined when `args` does not pass it. */
export function goBoolFlag(args: readonly unknown[], name: string): boolean | undefined {
  let on: boolean | undefined;
  for (const arg of args) {
    if (typeof arg !== "string") continue;
    if (arg === `--${name}` || arg === `--${name}=true`) on = true;
    else if (arg === `--${name}=false`) on = false;
  }
  return on;
}
