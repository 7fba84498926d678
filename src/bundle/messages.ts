// User-facing wording of `tsop bundle`, in one place so tests can match it.
export const msg = {
  notCarried: (kind: string, name: string, file: string, why: string) =>
    `not carried in the bundle: ${kind} ${name} (${file}): ${why}`,
  removed: (path: string) => `removed stale ${path} (no longer produced)`,
  wrote: (dir: string, created: number, updated: number, unchanged: number) =>
    `Bundle written to ${dir} (${created} created, ${updated} updated, ${unchanged} unchanged)`,
  upToDate: (dir: string) => `Bundle in ${dir} is up to date`,
  invalidVersion: (v: string) => `--version "${v}" is not a semantic version such as 0.0.1 (no leading "v")`,
  defaultChannelNotInChannels: (d: string, channels: string[]) =>
    `--default-channel "${d}" is not one of --channels (${channels.join(", ")})`,
};

export function whyNotCarried(kind: string, group: string): string {
  if (kind === "Namespace") return "OLM installs into the namespace chosen by the OperatorGroup";
  if (group === "cert-manager.io") return "OLM generates and rotates webhook serving certificates itself";
  if (kind === "Deployment") return "only Deployments go into the CSV install strategy";
  return `a registry+v1 bundle cannot carry ${kind} objects`;
}
