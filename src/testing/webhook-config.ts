// Helpers for testing an operator's webhooks against a cluster (the in-memory one or a real API
// server): a serving certificate for a webhook server run on this machine, and the webhook
// configurations and CRD conversion settings of config/ pointed at that server's URL instead of the
// in-cluster Service, with the certificate as caBundle.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { selfSignedCert } from "../common/x509.js";
import type { KObj } from "./memory/types.js";

export interface ServingCertificate {
  /** Directory with tls.crt and tls.key (pass it as the manager's webhookCertDir). */
  certDir: string;
  /** The certificate (its own CA), base64-encoded PEM, for clientConfig.caBundle. */
  caBundle: string;
}

/** Writes a fresh self-signed certificate for 127.0.0.1 and localhost into `dir`. */
export async function writeServingCertificate(dir: string): Promise<ServingCertificate> {
  const { cert, key } = selfSignedCert("tsop-webhook-test");
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "tls.crt"), cert);
  await writeFile(join(dir, "tls.key"), key, { mode: 0o600 });
  return { certDir: dir, caBundle: Buffer.from(cert).toString("base64") };
}

export interface LocalWebhookTarget {
  /** The webhook server's base URL, e.g. manager.webhookUrl ("https://127.0.0.1:40123"). */
  url: string;
  caBundle: string;
}

function pointAt(clientConfig: unknown, target: LocalWebhookTarget, fallbackPath: string): KObj {
  const service = (clientConfig as KObj | undefined)?.service as KObj | undefined;
  const path = typeof service?.path === "string" ? service.path : fallbackPath;
  return { url: `${target.url.replace(/\/$/, "")}${path}`, caBundle: target.caBundle };
}

/**
 * The Mutating/ValidatingWebhookConfigurations among `objects` (e.g. config/webhook/manifests.yaml)
 * with every webhook calling `target` instead of its Service; other objects are left out.
 */
export function localWebhookConfigurations(objects: readonly KObj[], target: LocalWebhookTarget): KObj[] {
  return objects
    .filter(
      (o) =>
        o.apiVersion === "admissionregistration.k8s.io/v1" &&
        (o.kind === "MutatingWebhookConfiguration" || o.kind === "ValidatingWebhookConfiguration"),
    )
    .map((o) => {
      const copy = structuredClone(o);
      copy.webhooks = ((copy.webhooks ?? []) as KObj[]).map((w) => ({
        ...w,
        clientConfig: pointAt(w.clientConfig, target, "/"),
      }));
      return copy;
    });
}

/** A CRD whose conversion goes through the webhook server at `target` (path /convert unless given). */
export function withLocalConversion(crd: KObj, target: LocalWebhookTarget, path = "/convert"): KObj {
  const copy = structuredClone(crd);
  const existing = copy.spec?.conversion?.webhook as KObj | undefined;
  copy.spec.conversion = {
    strategy: "Webhook",
    webhook: {
      conversionReviewVersions: existing?.conversionReviewVersions ?? ["v1"],
      clientConfig: pointAt(existing?.clientConfig ?? { service: { path } }, target, path),
    },
  };
  return copy;
}
