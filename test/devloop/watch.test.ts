// The source watcher behind `run local --watch`: a change made right after it starts is seen, in
// nested and new directories and through a save-by-rename; files outside the sources are not.
import { mkdirSync, rmSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type SourceWatcher, watchSources } from "../../src/devloop/watch.js";

let root: string;
let watcher: SourceWatcher | undefined;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "tsop-watch-"));
  await mkdir(join(root, "src/controllers"), { recursive: true });
  await mkdir(join(root, "config/manager"), { recursive: true });
  await writeFile(join(root, "src/controllers/a.ts"), "export const a = 1;\n");
  await writeFile(join(root, "package.json"), "{}\n");
});

afterEach(async () => {
  watcher?.close();
  watcher = undefined;
  await rm(root, { recursive: true, force: true });
});

/** The next change the watcher reports, or "none" when nothing comes within `ms`. */
function nextWithin(w: SourceWatcher, ms = 2_000): Promise<string> {
  return Promise.race([w.next(), new Promise<string>((r) => setTimeout(() => r("none"), ms))]);
}

describe("watchSources", () => {
  it("sees an edit made immediately after it starts, in a nested directory", async () => {
    watcher = watchSources(root, 50);
    await writeFile(join(root, "src/controllers/a.ts"), "export const a = 2;\n");
    expect(await nextWithin(watcher)).toBe(join("src", "controllers", "a.ts"));
  });

  it("collapses a burst into one change and reports the next burst separately", async () => {
    watcher = watchSources(root, 100);
    for (let i = 0; i < 5; i++) await writeFile(join(root, "src/controllers/a.ts"), `// ${i}\n`);
    expect(await nextWithin(watcher)).toBe(join("src", "controllers", "a.ts"));
    expect(await nextWithin(watcher, 500)).toBe("none");
    await writeFile(join(root, "config/manager/manager.yaml"), "kind: Deployment\n");
    expect(await nextWithin(watcher)).toBe(join("config", "manager", "manager.yaml"));
  });

  it("watches a directory created after it started", async () => {
    watcher = watchSources(root, 50);
    await mkdir(join(root, "src/webhooks"));
    expect(await nextWithin(watcher)).toBe(join("src", "webhooks"));
    await writeFile(join(root, "src/webhooks/b.ts"), "export const b = 1;\n");
    expect(await nextWithin(watcher)).toBe(join("src", "webhooks", "b.ts"));
  });

  it("watches a directory removed and created again under the same name", async () => {
    watcher = watchSources(root, 50);
    // In one go, so the watcher sees the name come back before it handles the removal.
    rmSync(join(root, "src/controllers"), { recursive: true });
    mkdirSync(join(root, "src/controllers"));
    expect(await nextWithin(watcher)).toBe(join("src", "controllers"));
    await writeFile(join(root, "src/controllers/c.ts"), "export const c = 1;\n");
    expect(await nextWithin(watcher)).toBe(join("src", "controllers", "c.ts"));
  });

  it("sees an editor's save-by-rename of a build file, and ignores other files at the root", async () => {
    watcher = watchSources(root, 50);
    await writeFile(join(root, "README.md"), "# notes\n");
    expect(await nextWithin(watcher, 500)).toBe("none");
    await writeFile(join(root, "package.json.tmp"), '{"name":"x"}\n');
    await rename(join(root, "package.json.tmp"), join(root, "package.json"));
    expect(await nextWithin(watcher)).toBe("package.json");
  });
});
