// Stage 1 of `tsop bundle`: flags + bundle config + PROJECT facts → one resolved, checked set of
// options. Pure (no I/O): every usage error about the options is raised here, before anything is
// read, generated or written.
import { basename, resolve } from "node:path";
import semver from "semver";
import { UsageError } from "../common/errors.js";
import { checkImageReference } from "../images/reference.js";
import type { BundleOptions } from "./index.js";
import type { LoadedConfig } from "./config.js";
import { msg } from "./messages.js";

const CHANNEL = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export interface ResolvedBundle {
  cwd: string;
  root: string;
  env: NodeJS.ProcessEnv;
  config: LoadedConfig;
  packageName: string;
  version: string | undefined;
  channels: string[];
  defaultChannel: string | undefined;
  /** As given (for messages) and resolved. */
  outputDir: string;
  outDir: string;
  /** The manager image to set (flag, config or PROJECT; not with -f unless --image). */
  image: string | undefined;
  replaces: string | undefined;
  skipRange: string | undefined;
  skips: string[] | undefined;
  extraServiceAccounts: string[];
  categories: string[] | undefined;
  /** Where the FBC fragment goes, when asked for (as typed, relative to cwd). */
  fbcDir: string | undefined;
}

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
    image: managerImage(options, config),
    replaces: options.replaces ?? (cv.replaces as string | undefined),
    skipRange,
    skips: options.skips ?? listValue(cv.skips),
    extraServiceAccounts: options.extraServiceAccounts ?? listValue(cv.extraServiceAccounts) ?? [],
    categories: options.categories ?? listValue(cv.categories),
    fbcDir: options.fbc,
  };
}
