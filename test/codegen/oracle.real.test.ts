// The CRD oracle on the real components: controller-gen (the rig's) turns the Go corpus of
// fixtures/crd-oracle/go into the CRDs kept in expected/, tsop generate (the built CLI) turns the
// TypeScript corpus into the same CRDs (every schema path), and the real kube-apiserver accepts
// tsop's CRD (structural schema) and judges samples as the built-in types' validations say.
import { execFileSync } from "node:child_process";
import { cp, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealTestCluster, startTestCluster } from "../../src/testing/index.js";
import { REPO_ROOT, runTsop } from "../support/cli.js";
import { rigBinary } from "../support/rig.js";
import { testdir } from "../support/testdir.js";
import { http } from "../testing/helpers.js";
import { crdDifferences, ORACLE, readCrds } from "./oracle-support.js";

let cluster: RealTestCluster;
beforeAll(async () => {
  cluster = await startTestCluster({ controlPlane: "real" });
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

const api = (method: string, path: string, body?: unknown) => http(cluster, method, path, body);

async function tsopCrds(): Promise<Map<string, Record<string, unknown>>> {
  const out = await testdir();
  const cwd = join(out, "ts");
  await cp(join(ORACLE, "ts"), cwd, { recursive: true });
  await symlink(join(REPO_ROOT, "node_modules"), join(cwd, "node_modules"), "dir");
  const tsconfig = join(cwd, "tsconfig.json");
  await writeFile(tsconfig, (await readFile(tsconfig, "utf8")).replace("../../../src", `${REPO_ROOT}/src`));
  const run = await runTsop(["generate", "crds", "--out", join(out, "crd")], { cwd, timeoutMs: 120_000 });
  expect(run.exitCode, run.stderr).toBe(0);
  return readCrds(join(out, "crd"));
}

describe("CRD oracle on the real components", () => {
  it(
    "controller-gen still writes expected/ from the Go corpus, and tsop generate writes the same CRDs",
    { timeout: 300_000 },
    async () => {
      const out = await testdir();
      execFileSync(rigBinary("controller-gen"), ["crd", "paths=./...", `output:crd:dir=${out}`], {
        cwd: join(ORACLE, "go"),
        env: { ...process.env, GOFLAGS: "-mod=mod", GOPROXY: "off" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const controllerGen = readCrds(out);
      const kept = readCrds(join(ORACLE, "expected"));
      expect([...controllerGen.keys()]).toEqual([...kept.keys()]);
      for (const [file, crd] of controllerGen) expect(crd, file).toEqual(kept.get(file));
      const tsop = await tsopCrds();
      for (const [file, crd] of controllerGen) expect(crdDifferences(crd, tsop.get(file)), file).toEqual([]);
    },
  );

  it(
    "the real kube-apiserver accepts tsop's CRD and applies the built-in types' validations",
    { timeout: 300_000 },
    async () => {
      const [crd] = [...(await tsopCrds()).values()];
      const created = await api("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const deadline = Date.now() + 30_000;
      for (;;) {
        const got = await api(
          "GET",
          "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/cronjobs.oracle.tsop.dev",
        );
        const conditions =
          (got.body.status as { conditions?: Array<{ type: string; status: string }> })?.conditions ?? [];
        if (conditions.some((c) => c.type === "Established" && c.status === "True")) break;
        if (Date.now() > deadline) throw new Error("CRD not established");
        await new Promise((r) => setTimeout(r, 200));
      }
      const container = {
        name: "job",
        image: "busybox",
        ports: [{ containerPort: 80 }],
        resources: { limits: { cpu: "500m" } },
      };
      const cronJob = (name: string, containers: unknown[], extra: Record<string, unknown> = {}) => ({
        apiVersion: "oracle.tsop.dev/v1",
        kind: "CronJob",
        metadata: { name },
        spec: {
          schedule: "*/5 * * * *",
          jobTemplate: { spec: { template: { spec: { containers, restartPolicy: "Never" } } } },
          ...extra,
        },
      });
      const path = "/apis/oracle.tsop.dev/v1/namespaces/default/cronjobs";
      const valid = await api("POST", path, cronJob("valid", [container]));
      expect(valid.status, JSON.stringify(valid.body)).toBe(201);
      const stored = valid.body as {
        spec: {
          concurrencyPolicy: string;
          jobTemplate: {
            spec: { template: { spec: { containers: Array<{ ports: Array<{ protocol: string }> }> } } };
          };
        };
      };
      // Defaults from the built-in types (protocol TCP) and from the user's types (Allow).
      expect(stored.spec.jobTemplate.spec.template.spec.containers[0]?.ports[0]?.protocol).toBe("TCP");
      expect(stored.spec.concurrencyPolicy).toBe("Allow");
      const invalid: Array<[string, unknown, string]> = [
        [
          "a quantity that is not one",
          cronJob("bad-quantity", [{ ...container, resources: { limits: { cpu: "lots" } } }]),
          "limits.cpu",
        ],
        [
          "two containers with one name (list-map key)",
          cronJob("dup", [container, { ...container, ports: [] }]),
          "containers[1]",
        ],
        [
          "a container without its required name",
          cronJob("noname", [{ image: "busybox" }]),
          "containers[0].name",
        ],
        [
          "an enum value of the user's type",
          cronJob("policy", [container], { concurrencyPolicy: "Sometimes" }),
          "concurrencyPolicy",
        ],
      ];
      for (const [what, body, field] of invalid) {
        const res = await api("POST", path, body);
        expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(422);
        expect(JSON.stringify(res.body), what).toContain(field);
      }
    },
  );
});
