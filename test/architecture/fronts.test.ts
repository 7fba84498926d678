// The fronts of scripts/check-architecture.ts (`npm run lint`): a package or Node API that one
// module of src/ wraps may be imported only there; a listed exception is a warning while it applies
// and an error once it does not.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkArchitecture,
  FRONTS,
  type Front,
  RULES,
  type Rules,
} from "../../scripts/check-architecture.js";

const roots: string[] = [];

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "tsop-fronts-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

const withFronts = (fronts: Front[]): Rules => ({
  ...RULES,
  exceptions: { maxLines: {}, cycles: {} },
  fronts,
});
const withoutExceptions = FRONTS.map((front) => ({ ...front, exceptions: {} }));

afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

describe("check-architecture fronts", () => {
  it("lets only common/yaml/ import yaml and js-yaml (subpaths and import() included)", async () => {
    const root = await tree({
      "src/common/yaml/read.ts": 'import { parse } from "yaml";\nimport jsYaml from "js-yaml";\n',
      "src/common/yaml/emit.ts": 'import { stringTag } from "yaml/util";\n',
      "src/catalog/fbc.ts": 'import { parseAllDocuments } from "yaml";\n',
      "src/oci/lockfile.ts": 'export const load = () => import("js-yaml");\n',
      "src/project/edit.ts":
        'import type { Document } from "yaml/util";\nimport { yamlish } from "yamlish";\n',
    });
    const { errors, warnings } = checkArchitecture(root, withFronts(withoutExceptions));
    expect(warnings).toEqual([]);
    expect(errors).toEqual([
      expect.stringMatching(
        /^src\/catalog\/fbc\.ts imports yaml: YAML is read, edited and written through common\/yaml\//,
      ),
      expect.stringMatching(/^src\/oci\/lockfile\.ts imports js-yaml: /),
      expect.stringMatching(/^src\/project\/edit\.ts imports yaml\/util: /),
    ]);
  });

  it("lets a CLI's code touch files only through common/fs.ts, and streaming code through fs/promises", async () => {
    const root = await tree({
      "src/common/fs.ts": 'import type * as fsPromises from "node:fs/promises";\n',
      "src/oci/pull.ts": 'import { rename } from "node:fs/promises";\n',
      "src/testing/real/pki.ts": 'import { writeFile } from "node:fs/promises";\n',
      "src/bundle/read.ts": 'import { readFile } from "node:fs/promises";\n',
      "src/catalog/fbc.ts":
        'import { readdir } from "fs/promises";\nimport { readFileSync } from "node:fs";\n',
      "src/scaffold/init.ts": 'import { rm } from "../common/fs.js";\n',
    });
    const { errors, warnings } = checkArchitecture(root, withFronts(withoutExceptions));
    expect(warnings).toEqual([]);
    expect(errors).toEqual([
      expect.stringMatching(
        /^src\/bundle\/read\.ts imports node:fs\/promises: a CLI's files are touched through common\/fs\.ts/,
      ),
      expect.stringMatching(/^src\/catalog\/fbc\.ts imports fs\/promises: /),
    ]);
  });

  it("tolerates a listed exception as a warning and rejects a stale one", async () => {
    const front: Front = {
      modules: ["yaml"],
      at: ["src/common/yaml/"],
      why: "the YAML front",
      exceptions: { "src/runtime/": "issue 1", "src/gone/": "issue 2" },
    };
    const root = await tree({ "src/runtime/kubeconfig.ts": 'export const y = () => import("yaml");\n' });
    expect(checkArchitecture(root, withFronts([front]))).toEqual({
      warnings: ["src/runtime/kubeconfig.ts imports yaml (listed exception: issue 1)"],
      errors: ["listed exception for yaml no longer applies, remove it: src/gone/"],
    });
  });
});
