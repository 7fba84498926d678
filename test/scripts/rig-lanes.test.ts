// The real tier starts before a cold rig has built its peers: processes that want one component
// share one build (scripts/rig/lock.mjs), and each lane runs a file only once the peers it needs are
// built (scripts/real-tier-needs.mjs). Oracles: real processes racing for the lock, and the repo's
// own real-tier files.
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
// @ts-expect-error: plain ESM scripts without types
import { withLock } from "../../scripts/rig/lock.mjs";
// @ts-expect-error: plain ESM scripts without types
import { batches, peersNeeded } from "../../scripts/real-tier-needs.mjs";
import { REPO_ROOT } from "../support/cli.js";
import { testdir } from "../support/testdir.js";

const LOCK = join(REPO_ROOT, "scripts/rig/lock.mjs");
const noImports = () => [] as string[];

describe("one builder per component", () => {
  it("waits while another process builds, then does not build again", async () => {
    const dir = await testdir();
    const lock = join(dir, "c.lock");
    const built = join(dir, "built");
    // The other builder: takes the lock, says so, builds for a second, finishes.
    const other = execa(process.execPath, [
      "--input-type=module",
      "-e",
      `import { withLock } from ${JSON.stringify(LOCK)};
       import { writeFileSync, existsSync } from "node:fs";
       withLock(${JSON.stringify(lock)}, () => existsSync(${JSON.stringify(built)}), () => {
         console.log("holding");
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
         writeFileSync(${JSON.stringify(built)}, "x");
       });`,
    ]);
    await new Promise<void>((ready) => other.stdout!.once("data", () => ready()));
    let waitedFor: number | undefined;
    const ran = withLock(
      lock,
      () => existsSync(built),
      () => {
        throw new Error("built a second time");
      },
      (pid: number) => (waitedFor = pid),
    );
    await other;
    expect(ran).toBe(false);
    expect(waitedFor).toBe(other.pid);
    expect(existsSync(lock)).toBe(false);
  });

  it("takes over the lock of a builder that died mid-build", async () => {
    const dir = await testdir();
    const lock = join(dir, "c.lock");
    const gone = execa(process.execPath, ["-e", ""]);
    await gone;
    await mkdir(lock);
    await writeFile(join(lock, "pid"), String(gone.pid));
    let built = false;
    expect(
      withLock(
        lock,
        () => built,
        () => (built = true),
      ),
    ).toBe(true);
    expect(built).toBe(true);
  });
});

describe("which peers a real-tier file waits for", () => {
  const file = (path: string) => join(REPO_ROOT, path);

  it("reads them from rigBinary calls, literal or through a helper it imports", () => {
    expect(peersNeeded(file("test/oci/cosign.real.test.ts"), noImports)).toEqual(["cosign"]);
    const viaHelper = peersNeeded(file("test/run/run-bundle-v1.real.test.ts"), (source: string) =>
      source.endsWith("run-bundle-v1.real.test.ts")
        ? [file("test/support/catalogd.ts"), file("test/support/operator-controller.ts")]
        : [],
    );
    expect(viaHelper).toEqual(["catalogd", "operator-controller"]);
    // The bed proper (etcd, kube-apiserver, OLM, opm) is built before any lane starts.
    expect(peersNeeded(file("test/rig/binaries.real.test.ts"), noImports)).toEqual([]);
  });

  it("runs the files that need no peer first, then by the last peer they need, in build order", () => {
    const files = [
      "test/oci/cosign.real.test.ts",
      "test/rig/binaries.real.test.ts",
      "test/codegen/oracle.real.test.ts",
    ].map(file);
    expect(batches(files, noImports)).toEqual([
      { needs: [], files: [file("test/rig/binaries.real.test.ts")] },
      { needs: ["controller-gen"], files: [file("test/codegen/oracle.real.test.ts")] },
      { needs: ["cosign"], files: [file("test/oci/cosign.real.test.ts")] },
    ]);
  });

  it("lists each lane's files with the peers they wait for", async () => {
    const listed = await execa(process.execPath, [join(REPO_ROOT, "scripts/test-real.mjs"), "cosign"], {
      env: { TEST_REAL_LANES: "list" },
    });
    expect(listed.stdout).toBe("other\ttest/oci/cosign.real.test.ts\tcosign");
  });
});
