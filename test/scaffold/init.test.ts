// `tsop init` through the built CLI (no npm install here; the e2e test installs once).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { OPERATOR_NODE_FLAGS } from "../../src/operator-image/defaults.js";
import { resolveInitFlags } from "../../src/scaffold/resolve.js";
import { runTsop } from "../support/cli.js";
import { readTree, testdir } from "../support/testdir.js";
import { createApi, scaffoldProject } from "./helpers.js";
import { restrictedViolations } from "./restricted.js";

describe("tsop init", () => {
  it("lays out an operator project with PROJECT, package.json and the config tree", async () => {
    const dir = await scaffoldProject();
    const tree = await readTree(dir);
    expect(Object.keys(tree)).toEqual(
      expect.arrayContaining([
        ".dockerignore",
        ".gitignore",
        "Dockerfile",
        "PROJECT",
        "README.md",
        "biome.json",
        "config/crd/kustomization.yaml",
        "config/default/kustomization.yaml",
        "config/manager/manager.yaml",
        "config/manifests/kustomization.yaml",
        "config/rbac/leader_election_role.yaml",
        "config/rbac/metrics_auth_role.yaml",
        "config/rbac/role_binding.yaml",
        "config/rbac/service_account.yaml",
        "config/samples/kustomization.yaml",
        "config/scorecard/bases/config.yaml",
        "package.json",
        "src/main.ts",
        "tsconfig.json",
        "vitest.config.ts",
      ]),
    );
    // kubebuilder's PROJECT fields only; tsop's own settings in its plugin section, and no layout
    // (operator-sdk cannot resolve tsop.dev/v1 to a plugin of its own).
    expect(parse(tree.PROJECT!)).toEqual({
      domain: "example.com",
      plugins: {
        "tsop.dev/v1": {
          image: "example.com/memcached-operator:0.0.1",
          license: "apache2",
          owner: "The memcached-operator Authors",
        },
      },
      projectName: "memcached-operator",
      resources: [],
      version: "3",
    });
    const pkg = JSON.parse(tree["package.json"]!);
    expect(pkg).toMatchObject({
      name: "memcached-operator",
      type: "module",
      private: true,
      license: "Apache-2.0",
    });
    for (const script of ["build", "test", "lint", "start", "docker-build"])
      expect(pkg.scripts[script]).toBeDefined();
    expect(pkg.scripts["docker-build"]).toBe("docker build -t example.com/memcached-operator:0.0.1 .");
    // Run from this clone (not from the registry): the running tsop is packed into the project.
    expect(pkg.dependencies.tsop).toMatch(/^file:vendor\/tsop-\d+\.\d+\.\d+\.tgz$/);
    expect(tree["src/main.ts"]).toContain("// +tsop:scaffold:imports");
    expect(tree["src/main.ts"]).toContain("// +tsop:scaffold:controllers");
    expect(tree["src/main.ts"]).toContain('id: "memcached-operator.example.com"');
    expect(parse(tree["config/default/kustomization.yaml"]!)).toMatchObject({
      namespace: "memcached-operator-system",
      namePrefix: "memcached-operator-",
    });
    expect(parse(tree["config/manager/kustomization.yaml"]!).images).toEqual([
      { name: "controller", newName: "example.com/memcached-operator", newTag: "0.0.1" },
    ]);
    expect(tree["config/manager/manager.yaml"]).toMatch(/# {3}- name: RELATED_IMAGE_MEMCACHED/);
    expect(tree.Dockerfile).toMatch(/FROM .* AS build[\s\S]*FROM .*distroless.*:nonroot[\s\S]*USER 65532/);
  });

  it("runs node in the Dockerfile with the flags `tsop image build` gives the operator", async () => {
    const tree = await readTree(await scaffoldProject());
    const entrypoint = /^ENTRYPOINT (.*)$/m.exec(tree.Dockerfile ?? "")?.[1];
    expect(JSON.parse(entrypoint ?? "null")).toEqual([
      "/nodejs/bin/node",
      ...OPERATOR_NODE_FLAGS,
      "dist/main.js",
    ]);
  });

  it("scaffolds a manager Deployment that passes Pod Security restricted", async () => {
    const dir = await scaffoldProject();
    const docs = parseAllDocuments(await readFile(join(dir, "config/manager/manager.yaml"), "utf8")).map(
      (d) => d.toJS() as { kind: string; metadata: { labels?: Record<string, string> }; spec?: unknown },
    );
    const deployment = docs.find((d) => d.kind === "Deployment") as {
      spec: { template: { spec: Record<string, unknown> } };
    };
    expect(restrictedViolations(deployment.spec.template.spec)).toEqual([]);
    expect(docs.find((d) => d.kind === "Namespace")?.metadata.labels).toMatchObject({
      "pod-security.kubernetes.io/enforce": "restricted",
    });
  });

  it("has a restricted checker that catches what the profile forbids", () => {
    const bad = {
      hostNetwork: true,
      volumes: [{ name: "host", hostPath: { path: "/" } }],
      containers: [
        { name: "c", securityContext: { privileged: true, capabilities: { add: ["SYS_ADMIN"] } } },
      ],
    };
    expect(restrictedViolations(bad)).toEqual([
      "hostNetwork: true",
      "volume host uses hostPath",
      "c: privileged",
      "c: allowPrivilegeEscalation is not false",
      "c: runAsNonRoot is not true",
      "c: seccompProfile not set",
      "c: capabilities.drop lacks ALL",
      "c: adds capabilities SYS_ADMIN",
    ]);
  });

  it("writes byte-identical projects for the same input", async () => {
    const [one, two] = [join(await testdir(), "same-name"), join(await testdir(), "same-name")];
    for (const dir of [one, two]) {
      expect((await runTsop(["init", dir, "--domain", "example.com", "--skip-install"])).exitCode).toBe(0);
    }
    expect(await readTree(one)).toEqual(await readTree(two));
  });

  it("honours --project-name, --image, --license none, --owner, --repo and --tsop-dependency (or TSOP_DEPENDENCY)", async () => {
    const parent = await testdir();
    const dir = join(parent, "somewhere");
    const result = await runTsop(
      [
        "init",
        dir,
        "--domain=my.org",
        "--project-name=guestbook",
        "--image=quay.io/me/guestbook:1.2.3",
        "--license=none",
        "--repo=https://github.com/me/guestbook",
        "--skip-install",
        "-o",
        "json",
      ],
      { env: { TSOP_DEPENDENCY: "file:/opt/tsop" } },
    );
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ projectName: "guestbook", installed: false });
    const pkg = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
    expect(pkg).toMatchObject({
      name: "guestbook",
      license: "UNLICENSED",
      dependencies: { tsop: "file:/opt/tsop" },
    });
    expect(await readFile(join(dir, "src/main.ts"), "utf8")).not.toContain("Copyright");
    const project = parse(await readFile(join(dir, "PROJECT"), "utf8"));
    expect(project).toMatchObject({
      projectName: "guestbook",
      plugins: { "tsop.dev/v1": { image: "quay.io/me/guestbook:1.2.3", license: "none" } },
    });
    expect(parse(await readFile(join(dir, "config/manager/kustomization.yaml"), "utf8")).images[0]).toEqual({
      name: "controller",
      newName: "quay.io/me/guestbook",
      newTag: "1.2.3",
    });
    const flag = await runTsop([
      "init",
      join(parent, "other"),
      "--domain=my.org",
      "--skip-install",
      "--tsop-dependency",
      "file:../tsop",
    ]);
    expect(flag.exitCode).toBe(0);
    expect(JSON.parse(await readFile(join(parent, "other/package.json"), "utf8")).dependencies.tsop).toBe(
      "file:../tsop",
    );
  });
});

describe("tsop init: bad input (exit 2, nothing written)", () => {
  it("lists every invalid value at once", async () => {
    const parent = await testdir();
    const result = await runTsop([
      "init",
      join(parent, "x"),
      "--domain",
      "Not_A_Domain",
      "--project-name",
      "Bad Name",
      "--image",
      "UPPER/Case:tag",
      "--owner",
      "two\nlines",
      "--skip-install",
    ]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("invalid options:");
    expect(result.stderr).toContain('--domain "Not_A_Domain" is not a DNS-1123 subdomain');
    expect(result.stderr).toContain('--project-name "Bad Name" is not a DNS-1123 label');
    expect(result.stderr).toContain('--image "UPPER/Case:tag" is not an image reference');
    expect(result.stderr).toContain("--owner must be one line of text");
    expect(await readTree(parent)).toEqual({});
  });

  it("without a terminal, lists every missing value instead of prompting", async () => {
    const parent = await testdir();
    const dir = join(parent, "Not A Label");
    const result = await runTsop(["init", dir, "--skip-install"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("these values are required and there is no terminal to ask for them:");
    expect(result.stderr).toContain("--domain <domain>");
    expect(result.stderr).toContain(
      '--project-name <name>: the directory name "Not A Label" is not a DNS-1123 label',
    );
    expect(result.stdout).toBe("");
    expect(await readTree(parent)).toEqual({});
  });

  it("refuses a non-empty directory unless --force, and then keeps the user's README", async () => {
    const dir = await testdir({ "README.md": "my notes\n", "notes.txt": "keep\n" });
    const refused = await runTsop([
      "init",
      dir,
      "--domain",
      "example.com",
      "--project-name",
      "op",
      "--skip-install",
    ]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/is not empty \(README.md, notes.txt\)/);
    expect(refused.stderr).toContain("--force");
    expect(await readTree(dir)).toEqual({ "README.md": "my notes\n", "notes.txt": "keep\n" });

    const forced = await runTsop([
      "init",
      dir,
      "--domain",
      "example.com",
      "--project-name",
      "op",
      "--skip-install",
      "--force",
    ]);
    expect(forced.exitCode).toBe(0);
    expect(forced.stderr).toContain("kept your README.md");
    const tree = await readTree(dir);
    expect(tree["README.md"]).toBe("my notes\n");
    expect(tree["notes.txt"]).toBe("keep\n");
    expect(tree.PROJECT).toContain("projectName: op");
  });

  it("never re-initialises a project that has APIs, even with --force", async () => {
    const dir = await scaffoldProject();
    expect(
      (await createApi(dir, ["--group", "cache", "--version", "v1alpha1", "--kind", "Memcached"])).exitCode,
    ).toBe(0);
    const before = await readTree(dir);
    const result = await runTsop(["init", dir, "--domain", "example.com", "--skip-install", "--force"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("already holds a tsop project");
    expect(await readTree(dir)).toEqual(before);
  });

  it("reports a file it cannot write without leaving a half-written project", async () => {
    const dir = await testdir();
    await mkdir(join(dir, "config"));
    await writeFile(join(dir, "config/crd"), "a file where a directory must go\n");
    const result = await runTsop([
      "init",
      dir,
      "--domain",
      "example.com",
      "--project-name",
      "op",
      "--skip-install",
      "--force",
    ]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /is in the way of these files; nothing was written:\n {2}- config\/crd\/kustomization.yaml/,
    );
    expect(Object.keys(await readTree(dir))).toEqual(["config/crd"]);
  });
});

describe("init's prompts", () => {
  it("asks only for what is missing, validating each answer", async () => {
    const asked: string[] = [];
    const prompter = {
      input: async (q: { message: string; validate: (v: string) => true | string }) => {
        asked.push(q.message);
        expect(q.validate("Bad_Value")).toMatch(/not a DNS-1123/);
        return q.message.startsWith("Domain") ? "example.com" : "my-op";
      },
    };
    expect(await resolveInitFlags({}, { dir: "/tmp/Bad Dir", prompter })).toEqual({
      domain: "example.com",
      projectName: "my-op",
    });
    expect(asked).toHaveLength(2);
    asked.length = 0;
    expect(await resolveInitFlags({ domain: "a.io" }, { dir: "/tmp/good-dir", prompter })).toEqual({
      domain: "a.io",
    });
    expect(asked).toEqual([]);
  });
});
