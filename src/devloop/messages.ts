// User-facing text of the dev-loop commands (install, uninstall, run local, deploy, undeploy), in
// one place so tests can match it.

export interface Message {
  message: string;
  hint?: string;
}

export const messages = {
  replicasWithoutLeaderElection: (replicas: number, where: string): Message => ({
    message: `--replicas ${replicas}: ${where} runs without --leader-elect, so every replica would reconcile every object at once`,
    hint: 'add --leader-elect to its args (and --sharding to share the work between the replicas; docs/runtime.md "Sharding"), or deploy one replica',
  }),
  replicas: (replicas: number, sharding: boolean): string =>
    sharding
      ? `${replicas} manager replicas, each reconciling its share of the objects (--sharding)`
      : `${replicas} manager replicas: one leader reconciles, the others stand by; add --sharding to the manager's args in config/manager/manager.yaml to share the work (docs/runtime.md "Sharding")`,
  noCrds: (): Message => ({
    message: "config/crd lists no CustomResourceDefinitions",
    hint: "run `tsop generate` (or `npm run build`) after `tsop create api` to write them",
  }),
  noManager: (source: string, deployments: string[]): Message => ({
    message:
      deployments.length === 0
        ? `${source} defines no Deployment`
        : `${source} has no single manager Deployment (found: ${deployments.join(", ")})`,
    hint: 'keep one Deployment whose manager container is named "manager" (or named by the kubectl.kubernetes.io/default-container annotation)',
  }),
  target: (server: string, context: string, namespace?: string): string =>
    `cluster ${server} (context "${context}")${namespace ? `, namespace ${namespace}` : ""}`,
  crsExist: (count: number, kinds: string[]): Message => ({
    message: `${count} custom resource(s) still exist: ${kinds.join(", ")}; deleting the CRDs would delete them`,
    hint: "delete them first, or pass --force to delete them (their finalizers run if the operator is running)",
  }),
  finalizersBlock: (lines: string[]): Message => ({
    message: `custom resources are still being deleted:\n${lines.map((l) => `  ${l}`).join("\n")}`,
    hint: 'their finalizers are removed by the operator: keep it running (`tsop run local` or `tsop deploy`) until they are gone, or remove the finalizer by hand with `kubectl patch <kind> <name> --type=merge -p \'{"metadata":{"finalizers":null}}\'`',
  }),
  noBuildScript: (): Message => ({
    message: 'package.json has no "build" script, so tsop cannot rebuild the operator',
    hint: 'add "build": "tsop generate && tsc -p tsconfig.build.json" (what `tsop init` writes), or pass --no-build',
  }),
  buildFailed: (code: number | undefined): Message => ({
    message: `npm run build failed${code === undefined ? "" : ` (exit code ${code})`}`,
    hint: "fix the errors printed above and retry",
  }),
  noEntry: (entry: string): Message => ({
    message: `the operator's entry point ${entry} does not exist`,
    hint: "build the project (`npm run build`) or point --entry at the compiled main file",
  }),
  managerExited: (code: number | null, signal: string | null): Message => ({
    message: `the manager exited ${signal ? `on ${signal}` : `with code ${code ?? "?"}`}`,
    hint: "its log above says why; fix it and run again (with --watch tsop restarts it after the next change)",
  }),
  generating: (): string => "bringing the CRDs and RBAC up to date with src/ (tsop generate)",
  generateFailed: (): string => "tsop generate failed (pass --skip-generate to use config/ as it is on disk)",
  generatedUpToDate: (): string => "the CRDs and RBAC are up to date with src/",
  generatedNow: (files: string[]): string =>
    `the CRDs and RBAC were out of date with src/; tsop generate wrote:\n${files.map((f) => `  ${f}`).join("\n")}`,
  generatedStale: (files: string[]): string =>
    `the CRDs and RBAC on disk are out of date with src/ (shown as they are; deploy without --dry-run runs tsop generate):\n${files.map((f) => `  would be ${f}`).join("\n")}`,
  checkingImages: (count: number): string =>
    `checking that the ${count} image(s) to deploy exist in their registries`,
  imagesChecked: (count: number): string => `the ${count} image(s) to deploy exist in their registries`,
  imagesMissing: (count: number): string => `${count} image(s) to deploy are not in their registries`,
  imageUnchecked: (image: string, why: string): string =>
    `could not check that ${image} exists (${why}); deploying anyway`,
  imageNotFound: (lines: string[]): Message => ({
    message: `the registry does not have the image(s) to deploy; nothing was applied:\n${lines.map((l) => `  - ${l}`).join("\n")}`,
    hint: "check the name and tag (--image), push the image first (tsop image build --push <ref>), or pass --skip-image-check if only the cluster can pull it",
  }),
  metricsOff: (): string =>
    "metrics off, as with `make run` (pass `-- --metrics-bind-address :8080` to serve them)",
  nothingDeployed: (project: string): string => `nothing deployed by tsop for ${project} in this cluster`,
  deleteCrdsNeeded: (): string =>
    "CRDs are kept (pass --delete-crds to delete them, and with them every custom resource)",
};
