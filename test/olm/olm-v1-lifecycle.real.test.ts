// `tsop olm install --v1 | status --v1 | uninstall --v1` on the real test bed, the real
// kube-apiserver as the oracle: it accepts every object of the shipped OLM v1 (server-side apply,
// the restricted Pod Security of olmv1-system admits both pods), the CRDs establish, openssl checks
// the certificates tsop issued instead of cert-manager, and uninstall leaves the cluster as a kubectl
// snapshot of every listable kind saw it before. catalogd's and operator-controller's pods are
// kwok's here (the pod runner does not map their images), so they are Available without serving:
// no ClusterCatalog is created (catalogd's webhook, failurePolicy Fail, would refuse it).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTsop } from "../support/cli.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { added, leftovers, snapshot } from "../run/bed.js";

let bed: OlmBed;
let kubeconfig: string[];
let pristine: Set<string>;

function kubectl(args: string[]) {
  return execa("kubectl", args, { env: { KUBECONFIG: bed.cluster.kubeconfigPath }, reject: false });
}

beforeAll(async () => {
  bed = await startOlmBed({ olm: false });
  kubeconfig = ["--kubeconfig", bed.cluster.kubeconfigPath];
  // Upstream's catalogd runs only on control-plane nodes (nodeSelector
  // node-role.kubernetes.io/control-plane); the bed's one Node plays that part, as kind's does.
  const label = await kubectl(["label", "node", "--all", "node-role.kubernetes.io/control-plane="]);
  expect(label.exitCode, label.stderr).toBe(0);
  pristine = await snapshot(bed.cluster.kubeconfigPath);
}, 600_000);

afterAll(async () => {
  await bed?.stop();
}, 120_000);

interface StatusJson {
  verdict: string;
  version?: string;
  rows: Array<{ name: string; namespace: string; kind: string; status: string; healthy: boolean }>;
}

describe("real OLM v1: tsop olm install --v1, status --v1, uninstall --v1", () => {
  it("installs OLM v1, healthy; its certificates verify; a second install is refused; uninstall leaves nothing", async () => {
    const absent = await runTsop(["olm", "status", "--v1", ...kubeconfig]);
    expect(absent.exitCode, absent.stderr).toBe(1);
    expect(absent.stdout).toBe("OLM v1 is not installed.\n");

    const install = await runTsop(["olm", "install", "--v1", "--timeout", "3m", "-o", "json", ...kubeconfig]);
    expect(install.exitCode, install.stderr).toBe(0);
    expect(JSON.parse(install.stdout)).toMatchObject({
      verdict: "healthy",
      version: "v1 (catalogd v1.11.0, operator-controller v1.2.0)",
    });

    const status = await runTsop(["olm", "status", "--v1", "-o", "json", ...kubeconfig]);
    expect(status.exitCode, status.stderr).toBe(0);
    const rows = (JSON.parse(status.stdout) as StatusJson).rows;
    expect(
      rows.filter((r) => r.kind === "CustomResourceDefinition").map((r) => `${r.name} ${r.status}`),
    ).toEqual([
      "clustercatalogs.olm.operatorframework.io Established",
      "clusterextensions.olm.operatorframework.io Established",
    ]);
    expect(rows.filter((r) => r.kind === "Deployment").map((r) => r.status)).toEqual([
      "Available (1/1)",
      "Available (1/1)",
    ]);

    // openssl, not tsop, judges the certificates: each Secret's tls.crt chains to the CA that is
    // the webhook's caBundle and names the Service's DNS name.
    const dir = await mkdtemp(join(tmpdir(), "tsop-olmv1-certs-"));
    try {
      const jsonpath = async (args: string[]) => {
        const r = await kubectl([...args, "-o", "jsonpath={.data.tls\\.crt}{'\\n'}{.data.ca\\.crt}"]);
        expect(r.exitCode, r.stderr).toBe(0);
        return r.stdout.split("\n").map((b) => Buffer.from(b, "base64").toString("utf8"));
      };
      const webhook = await kubectl([
        "get",
        "mutatingwebhookconfiguration",
        "catalogd-mutating-webhook-configuration",
        "-o",
        "jsonpath={.webhooks[0].clientConfig.caBundle}",
      ]);
      await writeFile(join(dir, "ca.crt"), Buffer.from(webhook.stdout, "base64"));
      for (const [secret, host] of [
        ["catalogd-service-cert-v1.11.0", "catalogd-service.olmv1-system.svc"],
        ["olmv1-cert", "operator-controller-service.olmv1-system.svc"],
      ] as const) {
        const [leaf, ca] = await jsonpath(["get", "secret", secret, "-n", "olmv1-system"]);
        expect(ca).toBe(Buffer.from(webhook.stdout, "base64").toString("utf8"));
        await writeFile(join(dir, `${secret}.crt`), leaf!);
        const verify = await execa(
          "openssl",
          [
            "verify",
            "-CAfile",
            join(dir, "ca.crt"),
            "-purpose",
            "sslserver",
            "-verify_hostname",
            host,
            join(dir, `${secret}.crt`),
          ],
          { reject: false },
        );
        expect(verify.exitCode, `${verify.stdout}${verify.stderr}`).toBe(0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    const again = await runTsop(["olm", "install", "--v1", ...kubeconfig]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain("OLM v1 is already installed");

    const uninstall = await runTsop(["olm", "uninstall", "--v1", "--timeout", "3m", ...kubeconfig]);
    expect(uninstall.exitCode, uninstall.stderr).toBe(0);
    expect(await leftovers(bed.cluster.kubeconfigPath, pristine)).toEqual([]);
    expect(added(await snapshot(bed.cluster.kubeconfigPath), pristine)).toEqual([]);
  }, 600_000);
});
