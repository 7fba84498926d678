// The built-in kustomize reader through `tsop bundle`: strategic-merge list keys by kind and field,
// configMapGenerator/secretGenerator with kustomize's hashed names, the load restrictor, and the
// errors for what it does not do. kustomize itself is the oracle in kustomize-oracle.real.test.ts.
import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, test } from "vitest";
import { testdir } from "../support/testdir.js";
import { BASE_FLAGS, DEPLOYMENT, miniProject, tsop } from "../bundle/helpers.js";

const bundle = (dir: string, args: string[] = []) =>
  tsop(dir, ["bundle", "--skip-generate", "--version", "0.1.0", ...BASE_FLAGS, ...args]);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions reach into the objects
type Loose = Record<string, any>;

async function manifest(dir: string, file: string): Promise<Loose> {
  return parse(await readFile(join(dir, "bundle", "manifests", file), "utf8")) as Loose;
}

describe("strategic merge patches", () => {
  test("a Service port named metrics is added beside https (merged by port, not containerPort)", async () => {
    const dir = await testdir(
      miniProject(
        {
          "deployment.yaml": DEPLOYMENT("demo-operator-controller-manager", "sa"),
          "service.yaml": [
            "apiVersion: v1",
            "kind: Service",
            "metadata: {name: demo-metrics}",
            "spec:",
            "  selector: {app: demo}",
            "  ports: [{name: https, port: 8443, targetPort: 8443}]",
            "",
          ].join("\n"),
        },
        {
          "config/manifests/metrics_patch.yaml": [
            "apiVersion: v1",
            "kind: Service",
            "metadata: {name: demo-metrics}",
            "spec:",
            "  ports: [{name: metrics, port: 8080, targetPort: 8080}]",
            "",
          ].join("\n"),
        },
      ),
    );
    const kustomization = join(dir, "config/manifests/kustomization.yaml");
    await appendFile(kustomization, "patches:\n- path: metrics_patch.yaml\n");
    const run = await bundle(dir);
    expect(run.exitCode, run.stderr).toBe(0);
    const service = await manifest(dir, "demo-metrics_v1_service.yaml");
    expect(service.spec.ports).toEqual([
      { name: "https", port: 8443, targetPort: 8443 },
      { name: "metrics", port: 8080, targetPort: 8080 },
    ]);
  });
});
