// Every YAML file tsop writes means the same to a YAML 1.1 reader as to a YAML 1.2 one, with
// names and values chosen to be YAML 1.1 booleans, nulls and numbers: a project named `yes`, a
// kind `On`, enum values on/off, a channel `y`, an image tag `1.0`.
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { stringifyYaml } from "../../src/common/yaml/write.js";
import { REPO_ROOT, runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";
import { expectYaml11Safe, expectYamlText11Safe } from "../support/yaml11.js";

async function linkNodeModules(dir: string): Promise<void> {
  const target = join(dir, "node_modules");
  await mkdir(target);
  for (const entry of await readdir(join(REPO_ROOT, "node_modules"))) {
    if (entry === "tsop") continue;
    await symlink(join(REPO_ROOT, "node_modules", entry), join(target, entry));
  }
  await symlink(REPO_ROOT, join(target, "tsop"));
}

const tsop = (cwd: string, args: string[]) => runTsop(args, { cwd, env: { CI: "1" } });

describe("YAML 1.1 safety", () => {
  it("quotes every string a YAML 1.1 reader would misread", () => {
    const hazards = [
      "on",
      "Off",
      "YES",
      "no",
      "y",
      "N",
      "true",
      "False",
      "null",
      "~",
      "",
      "012",
      "0x1F",
      "1_000",
    ];
    const more = ["1e3", "12:30", "2024-01-01", ".inf", "0o17", "+1", "-.5"];
    const text = stringifyYaml({ values: [...hazards, ...more], y: "n", on: "off" });
    expectYamlText11Safe(text, "hazards");
    expect(parse(text)).toEqual({ values: [...hazards, ...more], y: "n", on: "off" });
  });

  it(
    "init, create api, generate, bundle (with FBC) and version -o yaml write nothing a YAML 1.1 reader misreads",
    { timeout: 180_000 },
    async () => {
      const dir = join(await testdir(), "yes");
      const init = await tsop(REPO_ROOT, [
        "init",
        dir,
        "--domain",
        "example.com",
        "--image",
        "quay.io/example/yes:1.0",
        "--skip-install",
        "-y",
      ]);
      expect(init.exitCode, init.stderr).toBe(0);
      const api = await tsop(dir, ["create", "api", "--group", "on", "--version", "v1", "--kind", "On"]);
      expect(api.exitCode, api.stderr).toBe(0);
      await linkNodeModules(dir);
      const apiFile = join(dir, "src/api/v1/on.ts");
      const source = await readFile(apiFile, "utf8");
      const withEnum = source.replace(
        /export interface OnSpec \{\n/,
        'export interface OnSpec {\n  /** @default "off" */\n  power?: "on" | "off" | "yes" | "no" | "012";\n',
      );
      expect(withEnum).not.toBe(source);
      await writeFile(apiFile, withEnum);
      await writeFile(
        join(dir, "tsop.bundle.yaml"),
        `${await readFile(join(dir, "tsop.bundle.yaml"), "utf8")}description: "yes"\nproviderName: "no"\nmaintainers: Jane <jane@example.com>\n`,
      );
      const bundle = await tsop(dir, ["bundle", "--version", "0.0.1", "--channels", "y", "--fbc"]);
      expect(bundle.exitCode, bundle.stderr).toBe(0);
      const files = await expectYaml11Safe(dir);
      expect(files).toEqual(
        expect.arrayContaining([
          "config/crd/bases/on.example.com_ons.yaml",
          "config/samples/on_v1_on.yaml",
          "config/rbac/role.yaml",
          "config/manager/kustomization.yaml",
          "bundle/metadata/annotations.yaml",
          "catalog/yes/catalog.yaml",
        ]),
      );
      const project = await readFile(join(dir, "PROJECT"), "utf8");
      expectYamlText11Safe(project, "PROJECT");
      const crd = parse(await readFile(join(dir, "config/crd/bases/on.example.com_ons.yaml"), "utf8"));
      const power = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.power;
      expect(power).toMatchObject({ default: "off", enum: ["on", "off", "yes", "no", "012"] });
      const version = await tsop(dir, ["version", "-o", "yaml"]);
      expect(version.exitCode, version.stderr).toBe(0);
      expectYamlText11Safe(version.stdout, "tsop version -o yaml");
    },
  );
});
