// The dev-loop commands' failures through the built CLI, on a small hand-written project (no build):
// each names the file, object or process at fault with a hint, exits 1 (or 2 for usage), and starts
// nothing it cannot finish.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "../../src/testing/index.js";
import { runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

const PROJECT =
  'domain: example.com\nlayout:\n- tsop.dev/v1\nprojectName: tiny\nresources: []\nversion: "3"\n';

function manager(
  env: string,
  main = 'console.log("manager up"); setInterval(() => {}, 1000);',
): Record<string, string> {
  return {
    PROJECT,
    "package.json": JSON.stringify({ name: "tiny", type: "module", scripts: { build: "node -e 0" } }),
    "dist/main.js": main,
    "config/crd/kustomization.yaml": "resources: []\n",
    "config/manager/kustomization.yaml": "resources:\n- manager.yaml\n",
    "config/manager/manager.yaml": [
      "apiVersion: apps/v1",
      "kind: Deployment",
      "metadata: {name: controller-manager, namespace: system}",
      "spec:",
      "  selector: {matchLabels: {app: m}}",
      "  template:",
      "    metadata: {labels: {app: m}}",
      "    spec:",
      "      terminationGracePeriodSeconds: 2",
      "      containers:",
      "      - name: manager",
      "        image: controller:latest",
      `        env: ${env}`,
      "",
    ].join("\n"),
  };
}

describe("dev-loop failures", () => {
  it("outside a project: exit 1 naming the directory, nothing contacted", async () => {
    const dir = await testdir({});
    for (const command of [
      ["install"],
      ["uninstall"],
      ["deploy", "--dry-run"],
      ["undeploy"],
      ["run", "local"],
    ]) {
      const result = await runTsop(command, { cwd: dir, env: { KUBECONFIG: cluster.kubeconfigPath } });
      expect(result.exitCode, command.join(" ")).toBe(1);
      expect(result.stderr).toContain(`no PROJECT file in ${dir}`);
      expect(result.stderr).not.toContain("using cluster");
    }
  });

  it("install before generate: names config/crd's missing file and says to generate", async () => {
    const dir = await testdir({ PROJECT, "config/crd/kustomization.yaml": "resources:\n- bases/x.yaml\n" });
    const result = await runTsop(["install"], { cwd: dir, env: { KUBECONFIG: cluster.kubeconfigPath } });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("config/crd/kustomization.yaml lists bases/x.yaml, which does not exist");
    expect(result.stderr).toContain("tsop generate");
    const empty = await runTsop(["install"], {
      cwd: await testdir(manager("[]")),
      env: { KUBECONFIG: cluster.kubeconfigPath },
    });
    expect(empty.exitCode).toBe(1);
    expect(empty.stderr).toContain("config/crd lists no CustomResourceDefinitions");
  });

  it("run local: a required Secret that does not exist stops it before the manager starts", async () => {
    const dir = await testdir(
      manager("[{name: TOKEN, valueFrom: {secretKeyRef: {name: creds, key: token}}}]"),
    );
    const result = await runTsop(["run", "local", "--no-install"], {
      cwd: dir,
      env: { KUBECONFIG: cluster.kubeconfigPath },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      "config/manager: Deployment controller-manager, container manager needs Secret default/creds (env TOKEN), which does not exist in the cluster",
    );
    expect(result.stderr).not.toContain("manager running");
    expect(result.stdout).not.toContain("manager up");
  });

  it("run local: a manager that exits by itself ends tsop with exit 1 naming its exit code; its logs stream", async () => {
    const dir = await testdir(
      manager(
        "[{name: GREETING, value: hi}, {name: SAY, value: '$(GREETING) there'}]",
        "console.log(process.env.SAY); process.exit(3);",
      ),
    );
    const result = await runTsop(["run", "local", "--no-install", "--no-build"], {
      cwd: dir,
      env: { KUBECONFIG: cluster.kubeconfigPath },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe("hi there\n");
    expect(result.stderr).toContain("the manager exited with code 3");
  });

  it("run local: -n is the pod's namespace, --leader-elect and -- args reach the manager, KUBECONFIG is tsop's", async () => {
    const dir = await testdir(
      manager(
        "[{name: POD_NAMESPACE, valueFrom: {fieldRef: {fieldPath: metadata.namespace}}}]",
        "console.log(JSON.stringify({ args: process.argv.slice(2), ns: process.env.POD_NAMESPACE, kc: process.env.KUBECONFIG }));",
      ),
    );
    const result = await runTsop(
      ["run", "local", "--no-install", "--no-build", "-n", "team-a", "--leader-elect", "--", "--zap-devel"],
      { cwd: dir, env: { KUBECONFIG: cluster.kubeconfigPath } },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      args: [
        "--leader-elect",
        "--leader-election-namespace",
        "team-a",
        "--metrics-bind-address",
        "0",
        "--zap-devel",
      ],
      ns: "team-a",
      kc: cluster.kubeconfigPath,
    });
    expect(result.stderr).toContain(`using cluster ${cluster.url} (context "tsop-test"), namespace team-a`);
    expect(result.stderr).toContain("leader election on");
    // Metrics the user asks for replace run local's "off".
    const metrics = await runTsop(
      ["run", "local", "--no-install", "--no-build", "--", "--metrics-bind-address=127.0.0.1:9090"],
      { cwd: dir, env: { KUBECONFIG: cluster.kubeconfigPath } },
    );
    expect(metrics.exitCode, metrics.stderr).toBe(0);
    expect(JSON.parse(metrics.stdout).args).toEqual(["--metrics-bind-address=127.0.0.1:9090"]);
    expect(metrics.stderr).not.toContain("metrics off");
  });

  it("run local: a missing entry point is named, with the build hint", async () => {
    const dir = await testdir(manager("[]"));
    const result = await runTsop(
      ["run", "local", "--no-install", "--no-build", "--entry", "dist/absent.js"],
      {
        cwd: dir,
        env: { KUBECONFIG: cluster.kubeconfigPath },
      },
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("the operator's entry point dist/absent.js does not exist");
  });

  it("uninstall and deploy reject unknown flags with exit 2", async () => {
    const dir = await testdir(manager("[]"));
    expect((await runTsop(["uninstall", "--forse"], { cwd: dir })).exitCode).toBe(2);
    expect((await runTsop(["deploy", "-o", "xml"], { cwd: dir })).exitCode).toBe(2);
  });
});
