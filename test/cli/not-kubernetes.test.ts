// A kubeconfig whose server is some other web server (a wrong port: it answers 404 to everything).
// Every cluster command says the server does not look like a Kubernetes API server and how to check
// the kubeconfig, instead of "does not serve kind CustomResourceDefinition … install the CRD first".
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";

let server: Server;
let kubeconfig: string;
let url: string;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("404 page not found\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`;

describe("a kubeconfig pointing at a server that is not Kubernetes", () => {
  it("install, uninstall, olm status and cleanup say so and name what to check; no make hint", async () => {
    const dir = await testdir({
      PROJECT:
        'domain: example.com\nlayout:\n- tsop.dev/v1\nprojectName: tiny\nresources: []\nversion: "3"\n',
      "config/crd/kustomization.yaml": "resources:\n- bases/widgets.yaml\n",
      "config/crd/bases/widgets.yaml": CRD,
      "kubeconfig.yaml": [
        "apiVersion: v1",
        "kind: Config",
        `clusters: [{name: web, cluster: {server: "${url}"}}]`,
        "users: [{name: me, user: {token: t0ken}}]",
        "contexts: [{name: wrong-port, context: {cluster: web, user: me}}]",
        "current-context: wrong-port",
        "",
      ].join("\n"),
    });
    kubeconfig = `${dir}/kubeconfig.yaml`;
    for (const command of [["install"], ["uninstall"], ["olm", "status"], ["cleanup", "tiny"]]) {
      const result = await runTsop(command, { cwd: dir, env: { KUBECONFIG: kubeconfig } });
      const what = `tsop ${command.join(" ")}:\n${result.stderr}`;
      expect(result.exitCode, what).toBe(1);
      expect(result.stderr, what).toContain(
        `error: the server at ${url} (context "wrong-port") does not look like a Kubernetes API server: GET /api answered 404`,
      );
      expect(result.stderr, what).toContain("hint: check the server URL and port in the kubeconfig");
      expect(result.stderr, what).not.toContain("does not serve kind");
      expect(result.stderr, what).not.toMatch(/make (install|deploy|run)/);
    }
  });
});
