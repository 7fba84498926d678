// Stage 1 of `tsop bundle` (see ../index.ts): flags + bundle config + PROJECT facts → one resolved,
// checked set of options, the only options the later stages read. Pure (no I/O): the usage errors
// about the options' values are raised here, before anything is read, generated or written.
import { basename, relative, resolve } from "node:path";
import semver from "semver";
import { UsageError } from "../../common/errors.js";
import { checkImageReference } from "../../oci/reference.js";
import type { LoadedConfig } from "../config.js";
import { msg } from "../messages.js";
import type { BundleOptions, RegistryAccess, ResolvedBundle } from "../types.js";

const CHANNEL = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function checkPackage(name: string): string {
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) || name.length > 63) {
    throw new UsageError(
      `package name "${name}" is not a DNS-1123 label (lowercase letters, digits and "-")`,
      { hint: "pass --package <name>, or set projectName in PROJECT" },
    );
  }
  return name;
}

export function listValue(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const items = Array.isArray(value) ? value.map(String) : String(value).split(",");
  return items.map((s) => s.trim()).filter(Boolean);
}

function checkChannels(channels: string[], defaultChannel: string | undefined): void {
  if (channels.length === 0) throw new UsageError("--channels needs at least one channel name");
  for (const c of channels) {
    if (!CHANNEL.test(c))
      throw new UsageError(`channel name "${c}" may contain only letters, digits, ".", "_" and "-"`);
  }
  if (defaultChannel !== undefined && !channels.includes(defaultChannel))
    throw new UsageError(msg.defaultChannelNotInChannels(defaultChannel, channels));
}

function checkSkipRange(range: string | undefined, where: string): void {
  if (range === undefined || semver.validRange(range) !== null) return;
  throw new UsageError(`${where} "${range}" is not a semver range`, {
    hint: "give a range OLM understands, e.g. '>=0.1.0 <0.2.0'",
  });
}

function managerImage(options: BundleOptions, config: LoadedConfig): string | undefined {
  const cv = config.values;
  // With -f the given manifests are the truth for the manager image; only --image overrides them.
  const image =
    options.image ??
    (options.file === undefined ? ((cv.image as string | undefined) ?? config.project?.image) : undefined);
  if (image !== undefined) {
    const where =
      options.image !== undefined
        ? "--image"
        : cv.image !== undefined
          ? `image in ${config.file}`
          : "image in PROJECT";
    checkImageReference(String(image), where);
  }
  if (options.bundleImage !== undefined) checkImageReference(options.bundleImage, "--bundle-image");
  return image === undefined ? undefined : String(image);
}

export function resolveBundleOptions(
  options: BundleOptions,
  config: LoadedConfig,
  root: string,
): ResolvedBundle {
  // Paths the user typed are relative to cwd; everything the project holds is relative to its root.
  const cwd = resolve(options.cwd);
  const cv = config.values;
  const packageName = checkPackage(
    options.package ??
      (cv.package as string | undefined) ??
      config.project?.projectName ??
      basename(root).toLowerCase(),
  );
  const version = options.version ?? (cv.version === undefined ? undefined : String(cv.version));
  if (version !== undefined && semver.valid(version) !== version)
    throw new UsageError(msg.invalidVersion(version));
  const channels = options.channels ?? listValue(cv.channels) ?? ["alpha"];
  const defaultChannel = options.defaultChannel ?? (cv.defaultChannel as string | undefined);
  checkChannels(channels, defaultChannel);
  const skipRange = options.skipRange ?? (cv.skipRange as string | undefined);
  checkSkipRange(skipRange, options.skipRange !== undefined ? "--skip-range" : `skipRange in ${config.file}`);
  const outputDir = options.outputDir ?? (cv.outputDir as string | undefined) ?? "bundle";
  const file = options.file === undefined ? undefined : userPath(options.file, cwd, root);
  return {
    cwd,
    root,
    env: options.env ?? process.env,
    config,
    packageName,
    version,
    channels,
    defaultChannel,
    outputDir,
    outDir: resolve(options.outputDir !== undefined ? cwd : root, outputDir),
    outputDirShown:
      options.outputDir !== undefined
        ? `--output-dir ${outputDir}`
        : cv.outputDir !== undefined
          ? `outputDir in ${config.file}`
          : "the bundle directory",
    image: managerImage(options, config),
    replaces: options.replaces ?? (cv.replaces as string | undefined),
    replacesPrevious: Boolean(options.replacesPrevious),
    skipRange,
    skips: options.skips ?? listValue(cv.skips),
    extraServiceAccounts: options.extraServiceAccounts ?? listValue(cv.extraServiceAccounts) ?? [],
    categories: options.categories ?? listValue(cv.categories),
    features: options.features,
    fbcDir: options.fbc,
    bundleImage: options.bundleImage ?? (cv.bundleImage as string | undefined),
    file,
    stdin: options.stdin,
    loadRestrictor: options.loadRestrictor,
    generate: !options.skipGenerate && options.file === undefined,
    overwrite: options.overwrite !== false,
    base: {
      fields: options.fields ?? {},
      tty: Boolean(options.tty),
      interactive: Boolean(options.interactive),
      yes: Boolean(options.yes),
      commandLine: options.commandLine,
    },
    digests: options.useImageDigests ? digestAccess(options.registry, cwd) : undefined,
  };
}

/** A path the user typed (relative to cwd), as seen from the project root; "-" stays stdin. */
function userPath(path: string, cwd: string, root: string): string {
  return path === "-" ? path : relative(root, resolve(cwd, path)) || ".";
}

/** --use-image-digests' registry access; --images-lock is relative to cwd. */
function digestAccess(registry: RegistryAccess | undefined, cwd: string): RegistryAccess {
  const lockFile = registry?.lockFile ? resolve(cwd, registry.lockFile) : undefined;
  return { ...registry, ...(lockFile ? { lockFile } : {}) };
}
