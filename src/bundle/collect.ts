// Sorts the rendered manifests into what a bundle needs (operator-sdk's collector): the base CSV,
// CRDs, RBAC, service accounts, services, deployments, webhook entries, custom resources (for
// alm-examples), the scorecard config, and everything else.
import { createHash } from "node:crypto";
import {
  asRecords,
  groupOf,
  isRecord,
  kindOf,
  type ManifestObject,
  type LoadedObject,
  nameOf,
  str,
} from "../manifests/index.js";

export interface WebhookEntry {
  type: "ValidatingAdmissionWebhook" | "MutatingAdmissionWebhook";
  webhook: Record<string, unknown>;
  origin: LoadedObject["origin"];
}

export interface Collected {
  csvs: LoadedObject[];
  crds: LoadedObject[];
  roles: LoadedObject[];
  clusterRoles: LoadedObject[];
  roleBindings: LoadedObject[];
  clusterRoleBindings: LoadedObject[];
  serviceAccounts: LoadedObject[];
  services: LoadedObject[];
  deployments: LoadedObject[];
  webhooks: WebhookEntry[];
  customResources: LoadedObject[];
  scorecard: LoadedObject | undefined;
  others: LoadedObject[];
}

function hash(object: ManifestObject): string {
  return createHash("sha256").update(JSON.stringify(object)).digest("hex");
}

function dedupe(list: LoadedObject[]): LoadedObject[] {
  const seen = new Set<string>();
  return list.filter((l) => {
    const h = hash(l.object);
    if (seen.has(h)) return false;
    seen.add(h);
    return true;
  });
}

/** The served versions of a CRD, as group/version → kind. */
export function servedGvks(crd: ManifestObject): string[] {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const group = str(spec.group);
  const kind = isRecord(spec.names) ? str(spec.names.kind) : "";
  return asRecords(spec.versions)
    .filter((v) => v.served !== false)
    .map((v) => `${group}/${str(v.name)}, Kind=${kind}`);
}

export function collect(objects: readonly LoadedObject[]): Collected {
  const c: Collected = {
    csvs: [],
    crds: [],
    roles: [],
    clusterRoles: [],
    roleBindings: [],
    clusterRoleBindings: [],
    serviceAccounts: [],
    services: [],
    deployments: [],
    webhooks: [],
    customResources: [],
    scorecard: undefined,
    others: [],
  };
  const rest: LoadedObject[] = [];
  for (const l of objects) {
    const o = l.object;
    const gk = `${groupOf(o)}/${kindOf(o)}`;
    switch (gk) {
      case "operators.coreos.com/ClusterServiceVersion":
        c.csvs.push(l);
        break;
      case "apiextensions.k8s.io/CustomResourceDefinition":
        c.crds.push(l);
        break;
      case "rbac.authorization.k8s.io/Role":
        c.roles.push(l);
        break;
      case "rbac.authorization.k8s.io/ClusterRole":
        c.clusterRoles.push(l);
        break;
      case "rbac.authorization.k8s.io/RoleBinding":
        c.roleBindings.push(l);
        break;
      case "rbac.authorization.k8s.io/ClusterRoleBinding":
        c.clusterRoleBindings.push(l);
        break;
      case "/ServiceAccount":
        c.serviceAccounts.push(l);
        break;
      case "/Service":
        c.services.push(l);
        break;
      case "apps/Deployment":
        c.deployments.push(l);
        break;
      case "admissionregistration.k8s.io/ValidatingWebhookConfiguration":
      case "admissionregistration.k8s.io/MutatingWebhookConfiguration": {
        const type = kindOf(o).startsWith("Validating")
          ? "ValidatingAdmissionWebhook"
          : "MutatingAdmissionWebhook";
        for (const webhook of asRecords(o.webhooks)) c.webhooks.push({ type, webhook, origin: l.origin });
        break;
      }
      case "scorecard.operatorframework.io/Configuration":
        if (nameOf(o)) c.scorecard = l;
        break;
      default:
        rest.push(l);
    }
  }
  c.crds = dedupe(c.crds);
  c.roles = dedupe(c.roles);
  c.clusterRoles = dedupe(c.clusterRoles);
  c.deployments = dedupe(c.deployments);
  const served = new Set(c.crds.flatMap((l) => servedGvks(l.object)));
  for (const l of rest) {
    if (served.has(`${str(l.object.apiVersion)}, Kind=${kindOf(l.object)}`)) c.customResources.push(l);
    else c.others.push(l);
  }
  c.customResources = dedupe(c.customResources);
  // Webhook entries that are identical (the same config listed twice) collapse into one.
  const seen = new Set<string>();
  c.webhooks = c.webhooks.filter((w) => {
    const key = `${w.type}:${JSON.stringify(w.webhook)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return c;
}
