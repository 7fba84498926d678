// User-facing text of run bundle, bundle-upgrade and cleanup, in one place so tests match wording.
import { describeRef, type ObjectRef } from "../../kube/objects.js";

export const messages = {
  namespaceMissing: (ns: string) => ({
    message: `namespace "${ns}" does not exist`,
    hint: "create it, or pass --create-namespace",
  }),
  secretMissing: (ns: string, name: string) => ({
    message: `pull secret "${name}" (--pull-secret-name) does not exist in namespace "${ns}"`,
    hint: `create it first, e.g. kubectl create secret docker-registry ${name} -n ${ns} --docker-server=... --docker-username=... --docker-password=...`,
  }),
  serviceAccountMissing: (ns: string, name: string) => ({
    message: `service account "${name}" (--service-account) does not exist in namespace "${ns}"`,
    hint: "create it first, or drop --service-account to use the namespace's default service account",
  }),
  catalogExists: (ns: string, name: string, ours: boolean, pkg: string) => ({
    message: ours
      ? `package "${pkg}" is already installed in namespace "${ns}" by tsop run bundle (CatalogSource ${name})`
      : `a CatalogSource named "${name}" that tsop did not create already exists in namespace "${ns}"`,
    hint: ours
      ? `upgrade it with \`tsop run bundle-upgrade <image> -n ${ns}\`, or remove it with \`tsop cleanup ${pkg} -n ${ns}\``
      : "use another namespace (-n); tsop never changes catalog sources it did not create",
  }),
  subscriptionExists: (ns: string, name: string, pkg: string) => ({
    message: `namespace "${ns}" already has Subscription "${name}" for package "${pkg}"`,
    hint: `remove it first (\`tsop cleanup ${pkg} -n ${ns}\` if tsop created it), or use another namespace`,
  }),
  tooManyGroups: (ns: string, names: string[]) => ({
    message: `namespace "${ns}" has ${names.length} OperatorGroups (${names.join(", ")}); OLM installs nothing in a namespace with more than one`,
    hint: "delete all but one, or install into another namespace (-n)",
  }),
  foreignPlan: (plan: string, csv: string, others: string[]) => ({
    message: `InstallPlan ${plan} would install ${others.join(", ")} as well as ${csv}; tsop approves only plans for the bundle it runs`,
    hint: "OLM plans per namespace: another Subscription here has a pending change. Review and approve the plan yourself (kubectl edit installplan), or use a namespace of its own",
  }),
  planWithoutCsv: (plan: string, csv: string, names: string[]) => ({
    message: `InstallPlan ${plan} installs ${names.length ? names.join(", ") : "nothing"}, not ${csv}`,
    hint: "the catalog serves another bundle than the one given; check the image and run `tsop cleanup` before retrying",
  }),
  failed: (command: string, phase: string, message: string) => `${command} failed while ${phase}: ${message}`,
  cleanedUp: (count: number) =>
    count === 0 ? "nothing had been created yet" : `removed the ${count} object(s) this run created`,
  keptOnFailure: (refs: ObjectRef[]) =>
    `kept what this run created (--keep-on-failure): ${refs.map(describeRef).join(", ")}`,
  notUpgradable: (pkg: string, ns: string) => ({
    message: `no Subscription for package "${pkg}" created by tsop run bundle in namespace "${ns}"`,
    hint: `install it first with \`tsop run bundle <image> -n ${ns}\``,
  }),
  notTsopCatalog: (ns: string, name: string) => ({
    message: `the Subscription uses CatalogSource ${ns}/${name}, which tsop did not create`,
    hint: "tsop only upgrades catalogs it created; operators from other catalogs are upgraded through those catalogs",
  }),
  notNewer: (csv: string, version: string, installed: string, installedVersion: string) => ({
    message: `${csv} (version ${version}) is not newer than the installed ${installed} (version ${installedVersion})`,
    hint: "bump spec.version in the CSV (tsop bundle --version) and push a new bundle image",
  }),
  alreadyServed: (csv: string) => ({
    message: `the catalog already serves ${csv}`,
    hint: "build the upgrade with a new CSV name and version",
  }),
  packageMismatch: (pkg: string, installed: string) => ({
    message: `the bundle belongs to package "${pkg}", but the Subscription installs "${installed}"`,
    hint: "check the image reference",
  }),
  noInstalledCsv: (sub: string) => ({
    message: `Subscription ${sub} has no installed CSV yet; nothing to upgrade from`,
    hint: "wait for the running install to finish, or clean up and run the bundle again",
  }),
  cleanupAlreadyGone: () => "already gone (removed with its owner by OLM or the garbage collector)",
  cleanupBlocked: (lines: string[]) => ({
    message: `cleanup stopped before removing the operator: these custom resources were not deleted (the operator did not release their finalizers):\n${lines.map((l) => `  - ${l}`).join("\n")}`,
    hint: "fix the operator and run the cleanup again, or release each resource with the kubectl patch shown (skipping the operator's own clean-up), then run it again",
  }),
  cleanupNotFound: (pkg: string, ns: string, present: string[], near: string | undefined) => ({
    message: `package "${pkg}" not found in namespace "${ns}": no Subscription, ClusterServiceVersion or tsop catalog of it there, and no CRD an earlier cleanup kept`,
    hint: near
      ? `did you mean "${near}"? (tsop cleanup ${near} -n ${ns})`
      : `${present.length > 0 ? `packages found: ${present.join(", ")}` : `no package is installed in namespace "${ns}"`}; -n picks another namespace. If it was cleaned up already, nothing of it is left to do.`,
  }),
  cleanupNothing: (pkg: string, ns: string) =>
    `nothing to clean up: tsop created no objects for package "${pkg}" in namespace "${ns}"`,
};
