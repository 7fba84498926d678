// OLM v1 without cert-manager: upstream's manifests ask cert-manager for a self-signed CA (the
// olmv1-ca ClusterIssuer) and a serving certificate per Certificate object. tsop does the same job
// once, at install: one CA (kept as the Secret olmv1-ca beside the components, so a --force repair
// reuses it), each Certificate's Secret (tls.crt, tls.key, ca.crt, as cert-manager writes them)
// for its dnsNames, and the CA as the caBundle of the webhook configurations (cert-manager's CA
// injection). Certificates are not rotated: that is what cert-manager would add (docs/olm-v1.md).
import { issueCertificate, type IssuedCertificate } from "../../common/x509.js";
import type { KubeObject, ObjectRef } from "../../kube/objects.js";
import { caSecretRef, certificateSecretRefs, type OlmV1Release } from "./release.js";

const CA_NAME = "olmv1-ca";
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

export function newCa(): IssuedCertificate {
  return issueCertificate({ commonName: CA_NAME, ca: true });
}

/** The CA stored by an earlier install, if its Secret holds one. */
export function caFromSecret(secret: KubeObject | undefined): IssuedCertificate | undefined {
  const data = secret?.data as Record<string, string> | undefined;
  if (!data?.["tls.crt"] || !data["tls.key"]) return undefined;
  const text = (v: string) => Buffer.from(v, "base64").toString("utf8");
  return { cert: text(data["tls.crt"]), key: text(data["tls.key"]), commonName: CA_NAME, organizations: [] };
}

function tlsSecret(ref: ObjectRef, ca: IssuedCertificate, cert: { cert: string; key: string }): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) },
    type: "kubernetes.io/tls",
    data: { "ca.crt": b64(ca.cert), "tls.crt": b64(cert.cert), "tls.key": b64(cert.key) },
  };
}

/**
 * The Secrets to apply: the CA's and one per Certificate, each signed by `ca`. `keep` names
 * Secrets that already hold a certificate from this CA (a --force repair): they are left alone.
 */
export function certificateSecrets(
  release: OlmV1Release,
  ca: IssuedCertificate,
  keep: Set<string>,
): KubeObject[] {
  const out: KubeObject[] = [];
  const caRef = caSecretRef(release);
  if (!keep.has(caRef.name)) out.push(tlsSecret(caRef, ca, ca));
  const refs = certificateSecretRefs(release);
  release.certificates.forEach((certificate, i) => {
    const ref = refs[i]!;
    if (keep.has(ref.name)) return;
    const dnsNames = (certificate.spec?.dnsNames ?? []) as string[];
    const leaf = issueCertificate({
      commonName: dnsNames[0] ?? ref.name,
      usages: ["server"],
      hosts: dnsNames,
      issuer: ca,
    });
    out.push(tlsSecret(ref, ca, leaf));
  });
  return out;
}

/** The release's objects with the CA as every webhook's caBundle (what cert-manager injects). */
export function withCaBundle(objects: KubeObject[], ca: IssuedCertificate): KubeObject[] {
  return objects.map((o) => {
    if (o.kind !== "MutatingWebhookConfiguration" && o.kind !== "ValidatingWebhookConfiguration") return o;
    const copy = structuredClone(o);
    for (const webhook of (copy.webhooks ?? []) as Array<{ clientConfig?: Record<string, unknown> }>)
      webhook.clientConfig = { ...webhook.clientConfig, caBundle: b64(ca.cert) };
    return copy;
  });
}
