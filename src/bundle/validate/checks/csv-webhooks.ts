// CSV-16: spec.webhookdefinitions that OLM can install. OLM creates one webhook configuration (or
// CRD conversion) per entry, served by the named deployment; these are the conditions under which
// it (or the API server, for the configuration it creates) refuses an entry.
import { asRecords, isRecord, str } from "../../../manifests/index.js";
import type { Finding } from "../../load/types.js";
import { type CsvView, finding } from "../util.js";

const TYPES = ["ValidatingAdmissionWebhook", "MutatingAdmissionWebhook", "ConversionWebhook"];
const SIDE_EFFECTS = ["None", "NoneOnDryRun"];
const DNS_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;

export function webhookDefinitionFindings(v: CsvView): Finding[] {
  const file = v.file.file;
  const install = isRecord(v.spec.install) && isRecord(v.spec.install.spec) ? v.spec.install.spec : {};
  const deployments = new Set(asRecords(install.deployments).map((d) => str(d.name)));
  const owned = isRecord(v.spec.customresourcedefinitions)
    ? new Set(asRecords(v.spec.customresourcedefinitions.owned).map((c) => str(c.name)))
    : new Set<string>();
  const out: Finding[] = [];
  const seen = new Set<string>();
  asRecords(v.spec.webhookdefinitions).forEach((w, i) => {
    const at = `spec.webhookdefinitions[${i}]`;
    const bad = (message: string, field = "") =>
      out.push(finding("CSV-16", "error", message, file, field ? `${at}.${field}` : at));
    const type = str(w.type);
    if (!TYPES.includes(type)) bad(`type "${type}" is not one of ${TYPES.join(", ")}`, "type");
    const name = str(w.generateName);
    if (!DNS_NAME.test(name))
      bad(`generateName "${name}" must be a fully qualified DNS name, e.g. vmemcached.kb.io`, "generateName");
    if (seen.has(`${type}/${name}`)) bad(`generateName "${name}" is used twice for ${type}`, "generateName");
    seen.add(`${type}/${name}`);
    if (!deployments.has(str(w.deploymentName)))
      bad(
        `deploymentName "${str(w.deploymentName)}" is not a deployment of the install strategy`,
        "deploymentName",
      );
    const port = w.containerPort ?? 443;
    if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535)
      bad(`containerPort ${String(port)} is not a port number`, "containerPort");
    if (w.webhookPath !== undefined && !str(w.webhookPath).startsWith("/"))
      bad(`webhookPath "${str(w.webhookPath)}" must start with "/"`, "webhookPath");
    const versions = Array.isArray(w.admissionReviewVersions) ? w.admissionReviewVersions : [];
    if (versions.length === 0)
      bad("admissionReviewVersions must list at least one version (v1)", "admissionReviewVersions");
    if (!SIDE_EFFECTS.includes(str(w.sideEffects)))
      bad(`sideEffects "${str(w.sideEffects)}" must be None or NoneOnDryRun`, "sideEffects");
    if (type === "ConversionWebhook") {
      const crds = Array.isArray(w.conversionCRDs) ? w.conversionCRDs.map(String) : [];
      if (crds.length === 0) bad("a ConversionWebhook needs conversionCRDs", "conversionCRDs");
      for (const crd of crds)
        if (!owned.has(crd)) bad(`conversionCRDs names ${crd}, which the CSV does not own`, "conversionCRDs");
    } else if (asRecords(w.rules).length === 0)
      bad("an admission webhook needs rules (which requests it sees)", "rules");
  });
  return out;
}
