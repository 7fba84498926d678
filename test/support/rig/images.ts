// Container images for the pod runner: a root filesystem and the image config (entrypoint, cmd,
// env, working dir). Images from a registry on 127.0.0.1 (bundle images) are really pulled with
// skopeo, with the pod's pull secrets, and their layers extracted. The few images the test bed
// cannot pull are mapped to the binaries the rig built from the same sources:
// - quay.io/operator-framework/olm:*  → /bin/olm, /bin/catalog, /bin/package-server, /bin/cpb, /bin/cp
// - quay.io/operator-framework/opm:*  → /bin/opm (entrypoint) and a busybox-like /busybox with sh,
//   gzip, mkdir, cp, cat (distroless/static:debug, the opm image's base, has them there)
// - quay.io/operatorhubio/catalog:*   → opm serving an empty file-based catalog (the test bed has no
//   internet; an unreachable global catalog would fail every resolution in the cluster)
// Host tools are copied with the shared libraries `ldd` names; the Go binaries are static.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, copyFile, mkdir, readFile, realpath, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface ImageConfig {
  rootfs: string;
  entrypoint: string[];
  cmd: string[];
  env: string[];
  workingDir: string;
  /** The image's USER ("65532:65532", "nobody", "" for root). */
  user: string;
  /** "<repository>@<manifest digest>" as a kubelet reports it ("" for mapped images). */
  imageID: string;
  /** A stand-in made from rig binaries (runs as root; see pod.ts). */
  mapped: boolean;
}

/** Repositories the runner maps to rig binaries; pods using them are run by the runner, not kwok. */
export const MAPPED_REPOSITORIES = [
  "quay.io/operator-framework/olm",
  "quay.io/operator-framework/opm",
  "quay.io/operatorhubio/catalog",
];

const BUSYBOX_TOOLS = ["sh", "gzip", "mkdir", "cp", "cat", "ls", "rm"];
const PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/busybox";

export function repositoryOf(image: string): string {
  const noDigest = image.split("@")[0]!;
  const slash = noDigest.lastIndexOf("/");
  const colon = noDigest.lastIndexOf(":");
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

export function isMapped(image: string): boolean {
  return MAPPED_REPOSITORIES.includes(repositoryOf(image));
}

/** Registry hosts the test bed can pull from: the loopback interface. */
export const LOCAL_REGISTRY_PREFIXES = ["127.0.0.1:", "127.0.0.1/", "localhost:", "localhost/"];

/** A registry the test bed can pull from: one on the loopback interface. */
export function isLocalRegistryImage(image: string): boolean {
  return /^(127\.0\.0\.1|localhost)(:\d+)?\//.test(image);
}

/** An image under one of the bed's mirrored repository prefixes (rig/mirror.ts). */
export function isMirrored(image: string, mirrored: readonly string[]): boolean {
  const repository = repositoryOf(image);
  return mirrored.some((m) => repository === m || repository.startsWith(`${m}/`));
}

/**
 * The pods the runner runs (kwok simulates the rest): any container (init or not) uses a mapped
 * image, one from a registry on 127.0.0.1, or one the bed mirrors there. A pod that also names an
 * image the bed cannot pull gets ErrImagePull for it, as on a disconnected cluster.
 */
export function runsOnRunner(images: string[], mirrored: readonly string[] = []): boolean {
  return images.some((i) => isMapped(i) || isLocalRegistryImage(i) || isMirrored(i, mirrored));
}

/** The same rule as a jq expression over a pod, for kwok's stage selectors. */
export function runsOnRunnerJq(mirrored: readonly string[] = []): string {
  const images = "[(.spec.initContainers // [])[].image, .spec.containers[].image]";
  const prefixes = [
    ...[...MAPPED_REPOSITORIES, ...mirrored].flatMap((r) => [`${r}:`, `${r}@`]),
    ...mirrored.map((r) => `${r}/`),
    ...LOCAL_REGISTRY_PREFIXES,
  ];
  return `${images} | any(. as $i | ${JSON.stringify(prefixes)} | any(. as $p | $i | startswith($p)))`;
}

export class PullError extends Error {}

export class ImageStore {
  private readonly building = new Map<string, Promise<ImageConfig>>();
  private readonly extracting = new Map<string, Promise<void>>();
  /** Images pulled by digest: immutable, so pulled once (a kubelet's IfNotPresent). */
  private readonly byDigest = new Map<string, ImageConfig>();
  constructor(
    private readonly cacheDir: string,
    private readonly binary: (name: string) => string,
    /** The bed's mirror: images under these prefixes are pulled through this registries.conf. */
    private readonly mirror: { sources: readonly string[]; registriesConf: string } | undefined = undefined,
  ) {}

  /** The image's rootfs and config; `auths` is a containers auth.json for the pull, if any. */
  get(image: string, authFile?: string): Promise<ImageConfig> {
    if (isMapped(image))
      return this.once(`mapped:${repositoryOf(image)}`, () => this.mapped(repositoryOf(image)));
    if (!isLocalRegistryImage(image) && !isMirrored(image, this.mirror?.sources ?? []))
      return Promise.reject(
        new PullError(
          `the test bed cannot pull ${image}: only images on 127.0.0.1 (and those it mirrors there) are reachable`,
        ),
      );
    // By tag: pulled every time (a pull secret or a re-pushed tag must be honoured); by digest:
    // once. Extracted once per config digest either way.
    const known = this.byDigest.get(image);
    if (known) return Promise.resolve(known);
    // Pods of one Deployment start together: one pull of a digest serves them all (separate
    // pulls raced to extract into the same rootfs, the later ones running a half-extracted one).
    if (image.includes("@sha256:")) return this.once(`digest:${image}`, () => this.pull(image, authFile));
    return this.pull(image, authFile).then((config) => {
      if (image.includes("@sha256:")) this.byDigest.set(image, config);
      return config;
    });
  }

  /** Extracts a config digest's rootfs once, however many pulls of it run at the same time. */
  private extractOnce(rootfs: string, extract: () => Promise<void>): Promise<void> {
    let promise = this.extracting.get(rootfs);
    if (!promise) {
      promise = existsSync(rootfs) ? Promise.resolve() : extract();
      promise.catch(() => this.extracting.delete(rootfs));
      this.extracting.set(rootfs, promise);
    }
    return promise;
  }

  private once(key: string, build: () => Promise<ImageConfig>): Promise<ImageConfig> {
    let promise = this.building.get(key);
    if (!promise) {
      promise = build();
      promise.catch(() => this.building.delete(key));
      this.building.set(key, promise);
    }
    return promise;
  }

  private async mapped(repository: string): Promise<ImageConfig> {
    const rootfs = join(this.cacheDir, "mapped", repository.replace(/[^a-z0-9]+/g, "-"));
    await rm(rootfs, { recursive: true, force: true });
    const base = {
      rootfs,
      entrypoint: [] as string[],
      cmd: [] as string[],
      env: [`PATH=${PATH}`],
      workingDir: "/",
      user: "",
      imageID: "",
      mapped: true,
    };
    if (repository === "quay.io/operator-framework/olm") {
      for (const name of ["olm", "catalog", "package-server", "cpb"])
        await this.copyRig(name, rootfs, `/bin/${name}`);
      await copyHostTool("cp", rootfs, "/bin/cp");
      return base;
    }
    await this.copyRig("opm", rootfs, "/bin/opm");
    for (const tool of BUSYBOX_TOOLS) await copyHostTool(tool, rootfs, `/busybox/${tool}`);
    await mkdir(join(rootfs, "tmp"), { recursive: true });
    if (repository === "quay.io/operator-framework/opm") return { ...base, entrypoint: ["/bin/opm"] };
    // The operatorhub.io catalog image: opm serving /configs, here an empty catalog.
    await mkdir(join(rootfs, "configs"), { recursive: true });
    return {
      ...base,
      entrypoint: ["/bin/opm"],
      cmd: ["serve", "/configs", "-p", "50051"],
    };
  }

  private async copyRig(name: string, rootfs: string, path: string): Promise<void> {
    const target = join(rootfs, path);
    await mkdir(dirname(target), { recursive: true });
    await copyFile(this.binary(name), target);
    await chmod(target, 0o755);
  }

  private async pull(image: string, authFile?: string): Promise<ImageConfig> {
    const work = join(this.cacheDir, "pulls", `${Date.now()}-${Math.random().toString(36).slice(2)}`);
    await mkdir(work, { recursive: true });
    try {
      const args = ["copy", "--quiet", "--src-tls-verify=false", "--retry-times=0"];
      // As a node's container runtime does: a mirrored name is pulled from the mirror it names.
      if (this.mirror && isMirrored(image, this.mirror.sources))
        args.push("--registries-conf", this.mirror.registriesConf);
      if (authFile) args.push("--src-authfile", authFile);
      else args.push("--src-no-creds");
      args.push(`docker://${image}`, `dir:${work}`);
      try {
        await run("skopeo", args, { timeout: 60_000 });
      } catch (error) {
        const detail = String((error as { stderr?: string }).stderr ?? (error as Error).message).trim();
        throw new PullError(`failed to pull image "${image}": ${detail.split("\n").pop()}`);
      }
      const manifest = JSON.parse(await readFile(join(work, "manifest.json"), "utf8")) as {
        config: { digest: string };
        layers: Array<{ digest: string }>;
      };
      const rootfs = join(this.cacheDir, "images", manifest.config.digest.replace(":", "-"));
      await this.extractOnce(rootfs, () => extractLayers(work, manifest.layers, rootfs));
      const config = JSON.parse(await readFile(blob(work, manifest.config.digest), "utf8")) as {
        config?: {
          Entrypoint?: string[];
          Cmd?: string[];
          Env?: string[];
          WorkingDir?: string;
          User?: string;
        };
      };
      const manifestDigest = createHash("sha256")
        .update(await readFile(join(work, "manifest.json")))
        .digest("hex");
      return {
        rootfs,
        entrypoint: config.config?.Entrypoint ?? [],
        cmd: config.config?.Cmd ?? [],
        env: config.config?.Env ?? [`PATH=${PATH}`],
        workingDir: config.config?.WorkingDir || "/",
        user: config.config?.User ?? "",
        imageID: `${repositoryOf(image)}@sha256:${manifestDigest}`,
        mapped: false,
      };
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
}

function blob(dir: string, digest: string): string {
  return join(dir, digest.split(":")[1]!);
}

async function extractLayers(dir: string, layers: Array<{ digest: string }>, rootfs: string): Promise<void> {
  const partial = `${rootfs}.partial`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  for (const layer of layers) {
    // tar detects gzip itself; layers are extracted in order, as a container runtime stacks them.
    await run("tar", ["-xf", blob(dir, layer.digest), "-C", partial, "--no-same-owner"]);
  }
  await rename(partial, rootfs);
}

/** Copies a host tool and the shared libraries it links into `rootfs`. */
async function copyHostTool(name: string, rootfs: string, path: string): Promise<void> {
  const source = await realpath((await run("sh", ["-c", `command -v ${name}`])).stdout.trim());
  const target = join(rootfs, path);
  await mkdir(dirname(target), { recursive: true });
  await copyFile(source, target);
  await chmod(target, 0o755);
  const { stdout } = await run("ldd", [source]).catch(() => ({ stdout: "" }));
  for (const match of stdout.matchAll(/(\/[^\s]+) \(0x/g)) {
    const library = match[1]!;
    const libraryTarget = join(rootfs, library);
    if (existsSync(libraryTarget)) continue;
    await mkdir(dirname(libraryTarget), { recursive: true });
    await copyFile(await realpath(library), libraryTarget);
  }
}

/** A containers auth.json from the pod's image pull secrets (kubernetes.io/dockerconfigjson). */
export async function writeAuthFile(path: string, secrets: Array<Record<string, string>>): Promise<boolean> {
  const auths: Record<string, unknown> = {};
  for (const data of secrets) {
    const text = data[".dockerconfigjson"] ?? data[".dockercfg"];
    if (!text) continue;
    const parsed = JSON.parse(Buffer.from(text, "base64").toString("utf8")) as {
      auths?: Record<string, unknown>;
    };
    Object.assign(auths, parsed.auths ?? parsed);
  }
  if (Object.keys(auths).length === 0) return false;
  await writeFile(path, JSON.stringify({ auths }), { mode: 0o600 });
  return true;
}
