// The built-in kustomize reader through `tsop bundle`: strategic-merge list keys by kind and field,
// configMapGenerator/secretGenerator with kustomize's hashed names, the load restrictor, and the
// errors for what it does not do. kustomize itself is the oracle in kustomize-oracle.real.test.ts.
import { appendFile, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
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
    // kustomize build gives this order too: the patch's items first, then the base's others.
    expect(service.spec.ports).toEqual([
      { name: "metrics", port: 8080, targetPort: 8080 },
      { name: "https", port: 8443, targetPort: 8443 },
    ]);
  });
});

describe("configMapGenerator and secretGenerator", () => {
  test("hash-suffixed names equal kustomize's, and the pod's references follow them", async () => {
    const deployment = DEPLOYMENT("demo-operator-controller-manager", "sa").replace(
      "        env: []\n",
      [
        "        env: [{name: LEVEL, valueFrom: {configMapKeyRef: {name: settings, key: LEVEL}}}]",
        "        envFrom: [{secretRef: {name: creds}}]",
        "      volumes: [{name: cfg, configMap: {name: settings}}]",
        "",
      ].join("\n"),
    );
    const dir = await testdir(
      miniProject(
        { "deployment.yaml": deployment },
        {
          "config/manifests/app.env": "# comment\nLEVEL=debug\nEMPTY=\n",
          "config/manifests/motd.txt": "hello <world> & all\n",
        },
      ),
    );
    await appendFile(
      join(dir, "config/manifests/kustomization.yaml"),
      [
        "namePrefix: demo-",
        "configMapGenerator:",
        "- name: settings",
        "  envs: [app.env]",
        "  files: [motd.txt, greeting=motd.txt]",
        "  literals: [MODE=fast, 'QUOTED=\"x y\"']",
        "- name: plain",
        "  literals: [A=x]",
        "  options: {disableNameSuffixHash: true}",
        "secretGenerator:",
        "- name: creds",
        "  literals: [P=secret]",
        "generatorOptions: {labels: {generated: 'yes'}}",
        "",
      ].join("\n"),
    );
    const run = await bundle(dir);
    expect(run.exitCode, run.stderr).toBe(0);
    // Suffixes as kustomize v5.7.1 computes them for the same content (kustomize-oracle.real.test.ts
    // checks the same against the binary): the hash covers the data, not the name.
    const settings = await manifest(dir, "demo-settings-75cb445722_v1_configmap.yaml");
    expect(settings.data).toEqual({
      LEVEL: "debug",
      EMPTY: "",
      MODE: "fast",
      QUOTED: "x y",
      "motd.txt": "hello <world> & all\n",
      greeting: "hello <world> & all\n",
    });
    expect(settings.metadata.labels).toEqual({ generated: "yes" });
    expect((await manifest(dir, "demo-plain_v1_configmap.yaml")).data).toEqual({ A: "x" });
    const secret = await manifest(dir, "demo-creds-d9m2bd67d2_v1_secret.yaml");
    expect(secret).toMatchObject({ type: "Opaque", data: { P: "c2VjcmV0" } });
    const csv = await manifest(dir, "demo-operator.clusterserviceversion.yaml");
    const pod = csv.spec.install.spec.deployments[0].spec.template.spec;
    expect(pod.volumes).toEqual([{ name: "cfg", configMap: { name: "demo-settings-75cb445722" } }]);
    expect(pod.containers[0].env[0].valueFrom.configMapKeyRef.name).toBe("demo-settings-75cb445722");
    expect(pod.containers[0].envFrom).toEqual([{ secretRef: { name: "demo-creds-d9m2bd67d2" } }]);
  });

  test("bad generator input is a clear error naming the kustomization", async () => {
    const cases: Array<[string, RegExp]> = [
      [
        "configMapGenerator: [{literals: [A=1]}]",
        /configMapGenerator \(unnamed\): a generated ConfigMap needs a name/,
      ],
      ["configMapGenerator: [{name: c, literals: ['=1']}]", /invalid literal "=1", expected key=value/],
      ["configMapGenerator: [{name: c, literals: [A=1, A=2]}]", /the key "A" is given twice/],
      ["configMapGenerator: [{name: c, files: [missing.txt]}]", /file missing.txt does not exist/],
      ["configMapGenerator: [{name: c, behavior: merge, literals: [A=1]}]", /no ConfigMap c to merge/],
    ];
    for (const [kustomization, message] of cases) {
      const dir = await testdir(miniProject({}));
      await appendFile(join(dir, "config/manifests/kustomization.yaml"), `${kustomization}\n`);
      const run = await bundle(dir);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr.split("config/manifests/kustomization.yaml").length - 1).toBe(1);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe("the load restrictor", () => {
  const evil = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: evil}\ndata: {stolen: 'yes'}\n";

  test("a resource outside the kustomization's directory is refused as kustomize build does", async () => {
    const parent = await testdir({ "outside/evil.yaml": evil });
    const dir = join(parent, "project");
    await mkdir(dir);
    const files = miniProject({ "deployment.yaml": DEPLOYMENT("demo-operator-controller-manager", "sa") });
    for (const [name, text] of Object.entries(files)) {
      await mkdir(join(dir, name, ".."), { recursive: true });
      await writeFile(join(dir, name), text);
    }
    await appendFile(join(dir, "config/manifests/kustomization.yaml"), "- ../../../outside/evil.yaml\n");
    const refused = await bundle(dir);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      `config/manifests/kustomization.yaml: ../../../outside/evil.yaml resolves to ${join(parent, "outside/evil.yaml")}, which is not in or below the kustomization's directory config/manifests`,
    );
    expect(refused.stderr).toContain("--load-restrictor none");
    await expect(readFile(join(dir, "bundle/manifests/evil_v1_configmap.yaml"), "utf8")).rejects.toThrow();

    // A symlink inside the directory that leads out is refused the same way.
    await writeFile(
      join(dir, "config/manifests/kustomization.yaml"),
      (await readFile(join(dir, "config/manifests/kustomization.yaml"), "utf8")).replace(
        "../../../outside/evil.yaml",
        "inside.yaml",
      ),
    );
    await symlink(join(parent, "outside/evil.yaml"), join(dir, "config/manifests/inside.yaml"));
    const linked = await bundle(dir);
    expect(linked.exitCode).toBe(1);
    expect(linked.stderr).toContain("inside.yaml resolves to");

    // As with kustomize build --load-restrictor LoadRestrictionsNone, the user may lift it.
    const allowed = await bundle(dir, ["--load-restrictor", "LoadRestrictionsNone"]);
    expect(allowed.exitCode, allowed.stderr).toBe(0);
    expect((await manifest(dir, "evil_v1_configmap.yaml")).data).toEqual({ stolen: "yes" });
    const bad = await bundle(dir, ["--load-restrictor", "sometimes"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("use LoadRestrictionsRootOnly or LoadRestrictionsNone");
  });
});

describe("what the reader does not do", () => {
  test("an unsupported field is named once, with the kustomize build route", async () => {
    const dir = await testdir(miniProject({}));
    await appendFile(join(dir, "config/manifests/kustomization.yaml"), "components: [../extra]\n");
    const run = await bundle(dir);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      'config/manifests/kustomization.yaml: kustomize "components" is not supported by tsop\'s built-in kustomize reader',
    );
    expect(run.stderr.split("config/manifests/kustomization.yaml").length - 1).toBe(1);
    expect(run.stderr).toContain("kustomize build config/manifests | tsop bundle -f -");
  });
});

describe("objects with one id", () => {
  test("two files defining one object: refused once, naming the kustomization and both files", async () => {
    const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: system}\n";
    const dir = await testdir(
      miniProject({
        "deployment.yaml": DEPLOYMENT("demo-operator-controller-manager", "sa"),
        "a.yaml": cm,
        "b.yaml": `${cm}data: {x: y}\n`,
      }),
    );
    const run = await bundle(dir);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain(
      "config/manifests/kustomization.yaml: may not add resource with an already registered id: ConfigMap.v1.[noGrp]/settings.system (in config/manifests/a.yaml and in config/manifests/b.yaml)",
    );
    expect(run.stderr.match(/config\/manifests\/kustomization.yaml/g)).toHaveLength(1);
    expect(
      await readFile(join(dir, "bundle/manifests/demo-operator.clusterserviceversion.yaml"), "utf8").catch(
        () => "",
      ),
    ).toBe("");
  });
});
