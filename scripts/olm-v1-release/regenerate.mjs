#!/usr/bin/env node
// Regenerates olm-releases/olmv1/{crds.yaml,olmv1.yaml,certificates.yaml}: the OLM v1 that
// `tsop olm install --v1` applies, derived from upstream's own manifests, never written by hand.
// tsop's OLM v1 is catalogd from operator-controller v1.11.0 beside operator-controller's
// ClusterExtension controller from v1.2.0 (the newest that builds from the Go module proxy;
// docs/olm-v1.md), so the two halves come from the two releases, each as that release publishes it:
// - catalogd: v1.11.0's manifests/standard.yaml, with its `quickstart` target's substitutions
//   (":devel" → ":v1.11.0", "cert-git-version" → "cert-v1.11.0"); the objects named for catalogd,
//   the ClusterCatalog CRD and the olmv1-system Namespace.
// - operator-controller: v1.2.0's `kustomize build config/overlays/cert-manager` (the overlay its
//   release builds operator-controller.yaml from, with the same substitutions for v1.2.0); the
//   objects named for operator-controller and the ClusterExtension CRD.
// cert-manager's objects are split off: the Certificates go to certificates.yaml (tsop issues each
// one's Secret itself, from its own CA, docs/olm-v1.md "Certificates without cert-manager"); the
// CA's Certificate, Issuer and ClusterIssuer are dropped, and the webhook's cert-manager
// CA-injection annotation removed (tsop sets its caBundle). Dropped too: v1.11.0's objects for its
// own operator-controller (its Deployment, RBAC, NetworkPolicies, PodDisruptionBudget, the
// serviceAccount deprecation policy), which v1.2.0's half replaces; the NetworkPolicy denying all
// traffic in olmv1-system goes with them, since v1.2.0's operator-controller ships none to open it.
//
// Needs Go (the module cache or proxy) and the rig's kustomize; not run in CI: the output is
// committed data. Deterministic: the same versions give byte-identical files.
//
// Usage: node scripts/olm-v1-release/regenerate.mjs
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, stringify } from "yaml";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const pins = readFileSync(join(root, "src/common/pins.ts"), "utf8");
const pin = (name) => {
  const match = new RegExp(`export const ${name} = "(v[^"]+)";`).exec(pins);
  if (!match) throw new Error(`src/common/pins.ts has no ${name}`);
  return match[1];
};
const CATALOGD = pin("OLM_V1_CATALOGD_VERSION");
const OPERATOR_CONTROLLER = pin("OLM_V1_OPERATOR_CONTROLLER_VERSION");
const MODULE = "github.com/operator-framework/operator-controller";
const go = process.env.GO ?? "go";

function moduleDir(version) {
  const info = JSON.parse(
    execFileSync(go, ["mod", "download", "-json", `${MODULE}@${version}`], { encoding: "utf8" }),
  );
  if (!info.Dir) throw new Error(`go mod download ${MODULE}@${version} gave no directory`);
  return info.Dir;
}

/** What upstream's `quickstart` target does to a release manifest. */
const release = (text, version) =>
  text.replaceAll(":devel", `:${version}`).replaceAll("cert-git-version", `cert-${version}`);

const parse = (text) =>
  parseAllDocuments(text)
    .map((d) => d.toJS())
    .filter((d) => d && typeof d === "object");

const isCertManager = (o) => o.apiVersion?.startsWith("cert-manager.io/");
const named = (o, part) => (o.metadata?.name ?? "").includes(part);

const catalogdSource = release(
  readFileSync(join(moduleDir(CATALOGD), "manifests/standard.yaml"), "utf8"),
  CATALOGD,
);
const kustomize = execFileSync("node", [join(root, "scripts/rig/index.mjs"), "path", "kustomize"], {
  encoding: "utf8",
}).trim();
const operatorControllerSource = release(
  execFileSync(kustomize, ["build", join(moduleDir(OPERATOR_CONTROLLER), "config/overlays/cert-manager")], {
    encoding: "utf8",
  }),
  OPERATOR_CONTROLLER,
);

const catalogdHalf = parse(catalogdSource).filter(
  (o) =>
    (o.kind === "Namespace" && o.metadata.name === "olmv1-system") ||
    o.metadata.name === "clustercatalogs.olm.operatorframework.io" ||
    (named(o, "catalogd") && !(isCertManager(o) && o.kind !== "Certificate")),
);
const operatorControllerHalf = parse(operatorControllerSource).filter(
  (o) =>
    o.metadata.name === "clusterextensions.olm.operatorframework.io" ||
    named(o, "operator-controller") ||
    (o.kind === "Certificate" && o.spec?.secretName === "olmv1-cert"),
);

const all = [...catalogdHalf, ...operatorControllerHalf];
for (const o of all) {
  const annotations = o.metadata.annotations;
  if (annotations)
    for (const key of Object.keys(annotations))
      if (key.startsWith("cert-manager.io/")) delete annotations[key];
  if (annotations && Object.keys(annotations).length === 0) delete o.metadata.annotations;
}
const crds = all.filter((o) => o.kind === "CustomResourceDefinition");
const certificates = all.filter((o) => o.kind === "Certificate");
const rest = all.filter((o) => o.kind !== "CustomResourceDefinition" && !isCertManager(o));
for (const c of certificates)
  if (c.spec?.issuerRef?.kind !== "ClusterIssuer" || c.spec.issuerRef.name !== "olmv1-ca")
    throw new Error(
      `Certificate ${c.metadata.name} is not issued by the olmv1-ca ClusterIssuer; tsop's CA replaces only that one`,
    );

const header = (what) =>
  `# ${what}: generated by scripts/olm-v1-release/regenerate.mjs from operator-controller ${CATALOGD}'s\n` +
  `# manifests/standard.yaml (catalogd) and ${OPERATOR_CONTROLLER}'s config/overlays/cert-manager (operator-controller).\n` +
  `# Do not edit; olm-releases/README.md says how to regenerate.\n`;
const write = (file, what, objects) =>
  objects
    .map((o) => `---\n${stringify(o, { lineWidth: 0 })}`)
    .join("")
    .replace(/^/, header(what));

const out = join(root, "olm-releases", "olmv1");
mkdirSync(out, { recursive: true });
writeFileSync(join(out, "crds.yaml"), write("crds.yaml", "OLM v1's CustomResourceDefinitions", crds));
writeFileSync(join(out, "olmv1.yaml"), write("olmv1.yaml", "OLM v1's other objects", rest));
writeFileSync(
  join(out, "certificates.yaml"),
  write("certificates.yaml", "cert-manager Certificates whose Secrets tsop issues itself", certificates),
);
console.error(
  `wrote ${out}: ${crds.length} CRDs, ${rest.length} objects, ${certificates.length} certificates (catalogd ${CATALOGD}, operator-controller ${OPERATOR_CONTROLLER})`,
);
