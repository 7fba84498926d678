// The house-rules checker (scripts/check-architecture.ts, run by `npm run lint`) on tiny fixture
// trees: it must fail on an import cycle, a boundary crossing and an over-long file, tolerate only
// what is listed, and call out a listed exception that no longer applies.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkArchitecture, RULES, type Rules } from "../../scripts/check-architecture.js";

const NO_EXCEPTIONS: Rules = { ...RULES, exceptions: { maxLines: {}, cycles: {} } };
const roots: string[] = [];

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "tsop-arch-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

const lines = (n: number) => "export const x = 1;\n".repeat(n);

afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

describe("check-architecture", () => {
  it("passes a tree that keeps the rules", async () => {
    const root = await tree({
      "src/common/a.ts": "export const a = 1;\n",
      "src/runtime/r.ts": 'import { a } from "../common/a.js";\nexport const r = a;\n',
      "src/cli/main.ts": 'import { r } from "../runtime/r.js";\nexport const m = r;\n',
      "src/testing/start.ts": 'import("./memory/m.js");\nimport("./real/x.js");\n',
      "src/testing/memory/m.ts": "export const m = 1;\n",
      "src/testing/real/x.ts": "export const x = 1;\n",
      "src/fine.ts": lines(800),
    });
    expect(checkArchitecture(root, NO_EXCEPTIONS)).toEqual({ errors: [], warnings: [] });
  });

  it("fails on a cycle (type-only edges count), boundary crossings and a file over 800 lines", async () => {
    const root = await tree({
      "src/common/a.ts": 'import { b } from "./b.js";\nexport const a = b;\n',
      "src/common/b.ts": 'import type { A } from "./c.js";\nexport const b: A = 1;\n',
      "src/common/c.ts": 'export { a as A } from "./a.js";\nexport type A = number;\n',
      "src/runtime/r.ts": 'import { main } from "../cli/main.js";\nexport const r = main;\n',
      "src/cli/main.ts": "export const main = 1;\n",
      "src/testing/memory/m.ts": 'export const m = () => import("../real/x.js");\n',
      "src/testing/real/x.ts": "export const x = 1;\n",
      "src/big.ts": lines(801),
    });
    const { errors, warnings } = checkArchitecture(root, NO_EXCEPTIONS);
    expect(warnings).toEqual([]);
    expect(errors).toEqual([
      expect.stringMatching(
        /^import cycle: src\/common\/a\.ts → src\/common\/b\.ts → src\/common\/c\.ts → src\/common\/a\.ts \(files in the cycle: src\/common\/a\.ts src\/common\/b\.ts src\/common\/c\.ts\)/,
      ),
      expect.stringMatching(
        /^src\/runtime\/r\.ts imports src\/cli\/main\.ts: .*runtime\/ imports only common\//,
      ),
      expect.stringMatching(/^src\/runtime\/r\.ts imports src\/cli\/main\.ts: cli\/ is the outermost layer/),
      expect.stringMatching(/^src\/testing\/memory\/m\.ts imports src\/testing\/real\/x\.ts: /),
      "src/big.ts has 801 lines (over 800): split it into modules with one job each",
    ]);
  });

  it("keeps the runtime's rooms in order: a room imports only rooms below it and the declarations", async () => {
    const root = await tree({
      "src/runtime/schema.ts": "export type S = 1;\n",
      "src/runtime/connect/rest.ts": 'import type { S } from "../schema.js";\nexport const rest: S = 1;\n',
      "src/runtime/client/client.ts": 'import { rest } from "../connect/rest.js";\nexport const c = rest;\n',
      "src/runtime/connect/mapper.ts": 'import { c } from "../client/client.js";\nexport const m = c;\n',
      "src/runtime/decorators.ts": 'import { rest } from "./connect/rest.js";\nexport const d = rest;\n',
    });
    const { errors } = checkArchitecture(root, NO_EXCEPTIONS);
    expect(errors).toEqual([
      expect.stringMatching(
        /^src\/runtime\/connect\/mapper\.ts imports src\/runtime\/client\/client\.ts: runtime\/connect\/ may import only the declarations/,
      ),
      expect.stringMatching(
        /^src\/runtime\/decorators\.ts imports src\/runtime\/connect\/rest\.ts: the declarations `tsop generate` reads/,
      ),
    ]);
  });

  it("tolerates listed exceptions as warnings and rejects stale ones", async () => {
    const root = await tree({
      "src/common/a.ts": 'import { b } from "./b.js";\nexport const a = 1;\n',
      "src/common/b.ts": 'import { a } from "./a.js";\nexport const b = a;\n',
      "src/big.ts": lines(900),
      "src/small.ts": lines(10),
    });
    const rules: Rules = {
      ...RULES,
      exceptions: {
        maxLines: { "src/big.ts": "issue 1", "src/small.ts": "issue 2", "src/gone.ts": "issue 3" },
        cycles: { "src/common/a.ts src/common/b.ts": "issue 4", "src/x.ts src/y.ts": "issue 5" },
      },
    };
    const { errors, warnings } = checkArchitecture(root, rules);
    expect(warnings).toEqual([
      "import cycle (listed exception: issue 4): src/common/a.ts → src/common/b.ts → src/common/a.ts",
      "src/big.ts has 900 lines (over 800; listed exception: issue 1)",
    ]);
    expect(errors).toEqual([
      "listed cycle exception no longer applies, remove it: src/x.ts src/y.ts",
      "src/small.ts has 10 lines now: remove its max-lines exception",
      "max-lines exception for a missing file, remove it: src/gone.ts",
    ]);
  });
});
