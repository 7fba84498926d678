// `tsop bundle` finds its project like every other command (from a subdirectory such as src/), keeps
// the manager image of `-f` manifests unless --image says otherwise, and names file:line:column for
// invalid YAML under config/.
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { describe, expect, test } from "vitest";
import { readTree } from "../support/testdir.js";
import { BASE_FLAGS, copyFixture, EPOCH, MEMCACHED, readYaml, tsop } from "./helpers.js";

const CSV = "bundle/manifests/memcached-operator.clusterserviceversion.yaml";
const FLAGS = ["bundle", "--skip-generate", "--version", "0.0.1", ...BASE_FLAGS];
const env = { SOURCE_DATE_EPOCH: EPOCH };

function managerImage(csv: Record<string, unknown>): unknown {
  const spec = csv.spec as { install: { spec: { deployments: Array<Record<string, unknown>> } } };
  const pod = spec.install.spec.deployments[0]!.spec as {
    template: { spec: { containers: Array<{ name: string; image: string }> } };
  };
  return pod.template.spec.containers.find((c) => c.name === "manager")?.image;
}

describe("tsop bundle: project discovery", () => {
  test("from src/ it writes the same bundle at the project root as from the root", async () => {
    const atRoot = await copyFixture(MEMCACHED);
    const fromSrc = await copyFixture(MEMCACHED);
    for (const dir of [atRoot, fromSrc]) {
      await writeFile(join(dir, "tsop.bundle.yaml"), "channels: [stable]\n");
      await mkdir(join(dir, "src"));
    }
    const a = await tsop(atRoot, FLAGS, env);
    expect(a.exitCode, a.stderr).toBe(0);
    const b = await tsop(join(fromSrc, "src"), FLAGS, env);
    expect(b.stderr).not.toContain("no kustomization.yaml");
    expect(b.exitCode, b.stderr).toBe(0);
    const treeA = await readTree(atRoot);
    const treeB = await readTree(fromSrc);
    expect(Object.keys(treeB).filter((p) => p.startsWith("src/"))).toEqual([]);
    expect(treeB).toEqual(treeA);
    // tsop.bundle.yaml at the root was read from src/ too.
    expect(treeB["bundle/metadata/annotations.yaml"]).toContain("channels.v1: stable");
  });

  test("-f and --output-dir are relative to where the user typed them", async () => {
    const dir = await copyFixture(MEMCACHED);
    await mkdir(join(dir, "src"));
    const read = (p: string) => readFile(join(dir, p), "utf8");
    await writeFile(
      join(dir, "src/all.yaml"),
      [
        await read("config/manifests/bases/memcached-operator.clusterserviceversion.yaml"),
        await read("config/manager/manager.yaml"),
      ].join("---\n"),
    );
    const r = await tsop(join(dir, "src"), [...FLAGS, "-f", "all.yaml", "--output-dir", "out"], env);
    expect(r.exitCode, r.stderr).toBe(0);
    await readYaml(join(dir, "src/out/manifests/memcached-operator.clusterserviceversion.yaml"));
    expect(await read("bundle.Dockerfile")).toContain("COPY src/out/manifests /manifests/");
  });
});

describe("tsop bundle -f: the given manifests are the truth for the manager image", () => {
  async function project() {
    const dir = await copyFixture(MEMCACHED);
    await appendFile(join(dir, "PROJECT"), "image: quay.io/example/from-project:v9\n");
    const read = (p: string) => readFile(join(dir, p), "utf8");
    const manager = (await read("config/manager/manager.yaml")).replace(
      "image: controller:latest",
      "image: quay.io/example/rendered:v1",
    );
    await writeFile(
      join(dir, "rendered.yaml"),
      [await read("config/manifests/bases/memcached-operator.clusterserviceversion.yaml"), manager].join(
        "---\n",
      ),
    );
    return dir;
  }

  test("without --image the rendered image stays (PROJECT's image is not applied)", async () => {
    const dir = await project();
    const r = await tsop(dir, [...FLAGS, "-f", "rendered.yaml"], env);
    expect(r.exitCode, r.stderr).toBe(0);
    const csv = await readYaml(join(dir, CSV));
    expect(managerImage(csv)).toBe("quay.io/example/rendered:v1");
    expect((csv.metadata as { annotations: Record<string, string> }).annotations.containerImage).toBe(
      "quay.io/example/rendered:v1",
    );
  });

  test("--image still overrides it; without -f PROJECT's image applies", async () => {
    const dir = await project();
    const r = await tsop(dir, [...FLAGS, "-f", "rendered.yaml", "--image", "quay.io/example/flag:v2"], env);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(managerImage(await readYaml(join(dir, CSV)))).toBe("quay.io/example/flag:v2");
    const fromConfig = await tsop(dir, FLAGS, env);
    expect(fromConfig.exitCode, fromConfig.stderr).toBe(0);
    expect(managerImage(await readYaml(join(dir, CSV)))).toBe("quay.io/example/from-project:v9");
  });
});

describe("invalid YAML under config/ names file:line:column", () => {
  const cases: Array<[string, string, string]> = [
    [
      "config/manifests/kustomization.yaml",
      "resources:\n- ../default\n  - bad: [\n",
      "config/manifests/kustomization.yaml:2:3: Implicit keys need to be on a single line",
    ],
    [
      "config/manager/manager.yaml",
      "apiVersion: v1\nkind: [Deployment\n",
      "config/manager/manager.yaml:3:1:",
    ],
    [
      "config/manifests/bases/memcached-operator.clusterserviceversion.yaml",
      "kind: ClusterServiceVersion\nspec: {a: 1\n",
      "config/manifests/bases/memcached-operator.clusterserviceversion.yaml:3:1:",
    ],
    ["tsop.bundle.yaml", "channels: [a\n", "tsop.bundle.yaml:2:1:"],
  ];
  for (const [file, text, where] of cases) {
    test(file, async () => {
      const dir = await copyFixture(MEMCACHED);
      await mkdir(join(dir, "src"));
      await writeFile(join(dir, file), text);
      const r = await tsop(join(dir, "src"), FLAGS, env);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(`error: invalid YAML in ${where}`);
      expect(r.stderr).not.toMatch(/unexpected error|\n\s+at /);
      // The position is the one the yaml library itself reports for this text.
      const pos = parseDocument(text).errors[0]!.linePos![0];
      expect(where.startsWith(`${file}:${pos.line}:${pos.col}:`)).toBe(true);
    });
  }
});
