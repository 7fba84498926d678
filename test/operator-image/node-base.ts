// A Node.js base image the tests assemble themselves, FROM scratch: this machine's node binary at
// /usr/local/bin/node and the shared libraries `ldd` lists at the paths it lists, as an OCI layout
// pushed to the test registry with skopeo (distroless-like: node is the entrypoint, no shell). With
// `foreignArch`, the tag names an index with a second, tiny image for that architecture; with
// `cmd`, the image runs `node <cmd…>` (a stand-in operand that really serves).
import { readFile, realpath, rm } from "node:fs/promises";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import {
  type LayerFile,
  type LayoutImage,
  skopeoCopyLayout,
  type TestRegistry,
  writeOciLayout,
  writeOciLayoutIndex,
} from "../support/registry.js";

export const BASE_NODE = "/usr/local/bin/node";

async function runtimeFiles(): Promise<LayerFile[]> {
  const { stdout } = await execa("ldd", [process.execPath]);
  const libs = [...stdout.matchAll(/(\/\S+) \(0x/g)].map((m) => m[1] as string);
  const files: LayerFile[] = [
    { path: "usr/local/bin/node", content: await readFile(await realpath(process.execPath)), mode: 0o755 },
    { path: "tmp", type: "directory", mode: 0o777 },
  ];
  for (const lib of libs) {
    files.push({ path: lib.slice(1), content: await readFile(await realpath(lib)), mode: 0o755 });
  }
  return files;
}

const HOST_ARCH = process.arch === "arm64" ? "arm64" : "amd64";

/** Pushes the base to <registry>/<repository>:<tag>; returns nothing (tests resolve it themselves). */
export async function pushNodeBase(
  registry: TestRegistry,
  repository: string,
  tag: string,
  options: { foreignArch?: string; cmd?: string[] } = {},
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "tsop-node-base-"));
  try {
    const image: LayoutImage = {
      layers: [await runtimeFiles()],
      architecture: HOST_ARCH,
      runConfig: {
        Entrypoint: [BASE_NODE],
        ...(options.cmd ? { Cmd: options.cmd } : {}),
        Env: ["PATH=/usr/local/bin:/usr/bin:/bin"],
      },
    };
    if (options.foreignArch) {
      await writeOciLayoutIndex(dir, "t", [
        image,
        { layers: [[{ path: "etc/arch", content: options.foreignArch }]], architecture: options.foreignArch },
      ]);
    } else {
      await writeOciLayout(dir, { ...image, tag: "t" });
    }
    await skopeoCopyLayout(registry, dir, "t", `${repository}:${tag}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
