// `tsop bundle`: an OLM bundle from the project's config/ tree.
// Stages: config.ts (PROJECT + tsop.bundle.yaml) → [codegen generate()] → manifests (config/
// rendered without kustomize, or -f) → --image override → collect.ts → base.ts (the user's base
// CSV, created once) → compose.ts (CSV field by field: rbac.ts, webhooks.ts, related-images.ts)
// → GEN checks (validate/) → files.ts, metadata.ts → [images pinBundleImages] → write.ts (temp
// dir + swap) → bundle.Dockerfile, fbc.ts.
import { readFile } from "node:fs/promises";
import { basename, join, relative, resolve } from "node:path";
import semver from "semver";
import { AggregateTsopError, TsopError, UsageError } from "../common/errors.js";
import { writeFileAtomic } from "../common/fs.js";
import type { Reporter } from "../common/reporter.js";
import {
  groupOf,
  isRecord,
  type KubeObject,
  kindOf,
  type LoadedObject,
  loadManifests,
  nameOf,
  parseDocuments,
  str,
  toYaml,
} from "../manifests/index.js";
import { basePath, ensureBase, type Prompter } from "./base.js";
import { collect } from "./collect.js";
import { compose, managerContainer } from "./compose.js";
import { loadBundleConfig } from "./config.js";
import { parseFeatures } from "./features.js";
import { BASE_FIELDS } from "./fields.js";
import { bundleObject, csvFileName, renderManifests, SUPPORTED_KINDS } from "./files.js";
import { annotationsYaml, builderName, bundleDockerfile, type MetadataOptions } from "./metadata.js";
import { msg, whyNotCarried } from "./messages.js";
import { projectDir } from "../project/index.js";
import { runChecks } from "./validate/index.js";
import { checkImageReference } from "../images/reference.js";
import { memoryTree, readBundle } from "./load/index.js";
import { readTreeFiles, type WriteResult, writeBundleDir } from "./write.js";

export { type Prompter, inquirerPrompter } from "./base.js";
export { type FbcOptions, renderFbc } from "./fbc.js";
export { formatFinding, validateBundle, validateBundleDir, type ValidationReport } from "./validate/index.js";

export interface BundleOptions {
  cwd: string;
  version?: string;
  channels?: string[];
  defaultChannel?: string;
  package?: string;
  image?: string;
  replaces?: string;
  skipRange?: string;
  skips?: string[];
  /** Set replaces from the bundle already in the output dir. */
  replacesPrevious?: boolean;
  extraServiceAccounts?: string[];
  outputDir?: string;
  /** false keeps an existing metadata/annotations.yaml and bundle.Dockerfile. */
  overwrite?: boolean;
  interactive?: boolean;
  yes?: boolean;
  /** The command line as typed (for the message that shows what to add). */
  commandLine?: string;
  /** A person can answer prompts here (TTY). */
  tty?: boolean;
  prompter?: Prompter;
  /** Write a file-based catalog fragment into this directory. */
  fbc?: string;
  bundleImage?: string;
  file?: string;
  stdin?: string;
  skipGenerate?: boolean;
  /** kustomize's load restrictor for the config/ tree (default rootOnly). */
  loadRestrictor?: "rootOnly" | "none";
  useImageDigests?: boolean;
  features?: string;
  categories?: string[];
  /** Base CSV field values given as flags (key → text). */
  fields?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  /** Registry access for --use-image-digests. */
  registry?: Omit<PinImagesOptions, "reporter" | "env">;
  /** Test seam for --use-image-digests (defaults to images' pinBundleImages). */
  pinImages?: PinImages;
}

export interface PinImagesOptions {
  reporter: Reporter;
  registryConfig?: string;
  skipTlsVerify?: boolean;
  plainHttp?: boolean | string[];
  caFile?: string;
  lockFile?: string;
  /** Resolve every image again, ignoring the lock file's entries. */
  refresh?: boolean;
  env?: NodeJS.ProcessEnv;
}

export type PinImages = (
  objects: Array<Record<string, unknown>>,
  options: PinImagesOptions,
) => Promise<{ objects: Array<Record<string, unknown>>; pinned: Array<{ from: string; to: string }> }>;

export interface BundleResult {
  outputDir: string;
  csvName: string;
  files: WriteResult;
  base: { path: string; status: "created" | "updated" | "unchanged" };
  notCarried: string[];
  notes: string[];
  warnings: string[];
  fbcFile?: string;
  dockerfile: string;
}

const CHANNEL = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function checkPackage(name: string): string {
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) || name.length > 63) {
    throw new UsageError(
      `package name "${name}" is not a DNS-1123 label (lowercase letters, digits and "-")`,
      {
        hint: "pass --package <name>, or set projectName in PROJECT",
      },
    );
  }
  return name;
}

function listValue(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value))
    return value
      .map(String)
      .map((s) => s.trim())
      .filter(Boolean);
  return String(value)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

async function previousCsv(dir: string): Promise<KubeObject | undefined> {
  const tree = await readTreeFiles(join(dir, "manifests"));
  for (const [file, text] of [...tree].sort()) {
    if (!file.endsWith(".clusterserviceversion.yaml")) continue;
    try {
      const doc = parseDocuments(text, file)[0];
      if (doc && kindOf(doc.object) === "ClusterServiceVersion") return doc.object;
    } catch {
      /* a broken previous CSV is simply replaced */
    }
  }
  return undefined;
}

function withoutCreatedAt(csv: KubeObject): string {
  const copy = structuredClone(csv);
  const annotations =
    isRecord(copy.metadata) && isRecord(copy.metadata.annotations) ? copy.metadata.annotations : {};
  delete annotations.createdAt;
  return toYaml(copy);
}

function createdAt(csv: KubeObject, previous: KubeObject | undefined, env: NodeJS.ProcessEnv): string {
  const epoch = env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && epoch !== "") {
    if (!/^\d+$/.test(epoch))
      throw new UsageError(`SOURCE_DATE_EPOCH="${epoch}" must be a number of seconds`);
    return new Date(Number(epoch) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
  }
  const prevAt =
    previous && isRecord(previous.metadata) && isRecord(previous.metadata.annotations)
      ? str(previous.metadata.annotations.createdAt)
      : "";
  if (previous && prevAt && withoutCreatedAt(previous) === withoutCreatedAt(csv)) return prevAt;
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}

async function runGenerate(cwd: string, reporter: Reporter): Promise<void> {
  const { generate } = await import("../codegen/index.js");
  await generate({ cwd }, reporter);
}

async function defaultPinImages(objects: Array<Record<string, unknown>>, options: PinImagesOptions) {
  const { pinBundleImages } = await import("../images/index.js");
  return pinBundleImages(objects, options);
}

export async function bundle(options: BundleOptions, reporter: Reporter): Promise<BundleResult> {
  // Paths the user typed are relative to cwd; everything the project holds is relative to its root.
  const cwd = resolve(options.cwd);
  const root = await projectDir(cwd);
  const env = options.env ?? process.env;
  const config = await loadBundleConfig(root);
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
  if (channels.length === 0) throw new UsageError("--channels needs at least one channel name");
  for (const c of channels) {
    if (!CHANNEL.test(c))
      throw new UsageError(`channel name "${c}" may contain only letters, digits, ".", "_" and "-"`);
  }
  const defaultChannel = options.defaultChannel ?? (cv.defaultChannel as string | undefined);
  if (defaultChannel !== undefined && !channels.includes(defaultChannel)) {
    throw new UsageError(msg.defaultChannelNotInChannels(defaultChannel, channels));
  }
  const outputDir = options.outputDir ?? (cv.outputDir as string | undefined) ?? "bundle";
  const outDir = resolve(options.outputDir !== undefined ? cwd : root, outputDir);
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

  if (!options.skipGenerate && options.file === undefined) await runGenerate(root, reporter);

  const base = basePath(packageName);
  const readerNotes: string[] = [];
  const loaded = await loadManifests({
    cwd: root,
    ...(options.file !== undefined ? { file: userPath(options.file, cwd, root) } : {}),
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
    optional: [base],
    notes: readerNotes,
    ...(options.loadRestrictor ? { loadRestrictor: options.loadRestrictor } : {}),
  });
  for (const note of readerNotes) reporter.debug(note);
  const c = collect(loaded);

  // --image: set on the manager container in memory; tracked files stay as they are.
  if (image) {
    const manager = managerContainer(c.deployments);
    if (!manager) {
      throw new UsageError(
        '--image: no manager container found (a container named "manager", or a single container)',
        {
          hint: 'name the operator\'s container "manager" in config/manager',
        },
      );
    }
    manager.image = image;
  }
  const managerImage = image ?? (options.file !== undefined ? managerImageOf(c.deployments) : undefined);

  // The base: an input CSV named <package>.* (from -f), else the base file (created on first run).
  const inputBase = c.csvs.find(
    (l) => nameOf(l.object).startsWith(`${packageName}.`) && l.origin.file !== base,
  );
  const others = c.csvs.filter((l) => l !== inputBase && l.origin.file !== base);
  if (others.length > 0) {
    throw new UsageError(
      `the manifests hold ClusterServiceVersions that are not the base of package ${packageName}: ${others.map((o) => `${nameOf(o.object)} (${o.origin.file})`).join(", ")}`,
    );
  }
  let baseCsv: KubeObject;
  let baseInfo: BundleResult["base"];
  let saveBase = async () => {};
  if (inputBase && options.file !== undefined) {
    baseCsv = inputBase.object;
    baseInfo = { path: inputBase.origin.file, status: "unchanged" };
  } else {
    const ensured = await ensureBase({
      cwd: root,
      packageName,
      flags: options.fields ?? {},
      config: cv,
      configFile: config.file,
      canPrompt: Boolean(options.tty),
      forcePrompt: Boolean(options.interactive),
      yes: Boolean(options.yes),
      ...(options.commandLine !== undefined ? { commandLine: options.commandLine } : {}),
      prompter: options.prompter,
      crds: c.crds,
      reporter,
    });
    baseCsv = ensured.base;
    baseInfo = { path: ensured.path, status: ensured.status };
    saveBase = ensured.save;
  }

  // Upgrade edges.
  const previous = await previousCsv(outDir);
  let replaces = options.replaces ?? (cv.replaces as string | undefined);
  const prevSpec = previous && isRecord(previous.spec) ? previous.spec : {};
  const prevVersion = str(prevSpec.version);
  if (options.replacesPrevious) {
    if (!previous)
      throw new UsageError(`--replaces-previous: no previous bundle CSV in ${outputDir}/manifests`);
    if (!version) throw new UsageError("--replaces-previous needs --version");
    if (semver.valid(prevVersion) && semver.gt(version, prevVersion)) replaces = nameOf(previous);
    else if (prevVersion === version) replaces = str(prevSpec.replaces) || undefined;
    else
      throw new UsageError(
        `--version ${version} is lower than the previous bundle's ${prevVersion}; OLM cannot upgrade backwards`,
      );
  }
  const warnings: string[] = [];
  if (version && semver.valid(prevVersion) && semver.lt(version, prevVersion) && !options.replacesPrevious) {
    warnings.push(
      `--version ${version} is lower than the version of the bundle being replaced in ${outputDir} (${prevVersion})`,
    );
  }

  const annotations: Record<string, string> = {
    "operators.operatorframework.io/builder": builderName(),
    "operators.operatorframework.io/project_layout": (config.project?.layout ?? []).join(",") || "unknown",
  };
  if (cv.features !== undefined)
    Object.assign(
      annotations,
      parseFeatures(cv.features as Record<string, unknown>, config.file ?? "bundle config"),
    );
  if (options.features) Object.assign(annotations, parseFeatures(options.features, "--features"));
  const categories = options.categories ?? listValue(cv.categories);
  if (categories) annotations.categories = categories.join(",");
  if (cv.suggestedNamespace)
    annotations["operatorframework.io/suggested-namespace"] = String(cv.suggestedNamespace);
  if (managerImage) annotations.containerImage = managerImage;

  const composed = compose(baseCsv, c, {
    packageName,
    version,
    replaces,
    skipRange: options.skipRange ?? (cv.skipRange as string | undefined),
    skips: options.skips ?? listValue(cv.skips),
    extraServiceAccounts: options.extraServiceAccounts ?? listValue(cv.extraServiceAccounts) ?? [],
    annotations,
  });
  const csv = composed.csv;
  warnings.push(...composed.rbac.warnings);

  // Objects that go into bundle/manifests besides the CSV, and those a bundle cannot carry.
  const notCarried: string[] = [];
  const extra: LoadedObject[] = [...c.crds, ...c.services];
  for (const l of c.others) {
    if (SUPPORTED_KINDS.has(kindOf(l.object))) extra.push(l);
    else
      notCarried.push(
        msg.notCarried(
          kindOf(l.object),
          nameOf(l.object),
          l.origin.file,
          whyNotCarried(kindOf(l.object), groupOf(l.object)),
        ),
      );
  }
  extra.push(...composed.rbac.out);

  let manifestObjects: KubeObject[] = [csv, ...extra.map((l) => l.object)];
  if (options.useImageDigests) {
    const pin = options.pinImages ?? defaultPinImages;
    const pinned = await pin(
      manifestObjects.map((o) => structuredClone(o)),
      {
        ...options.registry,
        ...(options.registry?.lockFile ? { lockFile: resolve(cwd, options.registry.lockFile) } : {}),
        env,
        reporter,
      },
    );
    manifestObjects = pinned.objects as KubeObject[];
    for (const p of pinned.pinned) reporter.debug(`pinned ${p.from} → ${p.to}`);
  }
  const finalCsv = manifestObjects[0]!;
  const meta = finalCsv.metadata as Record<string, unknown>;
  const ann = (meta.annotations ?? {}) as Record<string, unknown>;
  ann.createdAt = createdAt(finalCsv, previous, env);

  // The generated CSV must pass the CSV checks (operator-sdk refuses to write an invalid one).
  const csvFile = `manifests/${csvFileName(packageName)}`;
  const probe = await readBundle(memoryTree(new Map([[csvFile, toYaml(finalCsv)]]), outputDir));
  const csvFindings = runChecks(probe, [], {}).filter(
    (f) => f.id.startsWith("CSV-") || f.id.startsWith("RI-"),
  );
  const csvErrors = csvFindings.filter((f) => f.level === "error");
  if (csvErrors.length > 0) {
    throw new AggregateTsopError(
      "invalid generated ClusterServiceVersion:",
      csvErrors.map((f) => `${f.id} ${f.path ?? ""}: ${f.message}`),
      { hint: `fix the flags or the base CSV (${baseInfo.path}); nothing was written` },
    );
  }

  // Assemble the tree.
  const files = new Map<string, string>();
  // The CSV keeps metadata.namespace ("placeholder"), as operator-sdk writes it.
  files.set(csvFile, toYaml(finalCsv));
  const rendered = renderManifests(
    manifestObjects.slice(1).map((object, i) => ({ object, origin: extra[i]!.origin })),
  );
  for (const [name, text] of rendered) {
    if (`manifests/${name}` === csvFile)
      throw new TsopError(`manifest ${name} clashes with the CSV file name`);
    files.set(`manifests/${name}`, text);
  }
  const previousTree = await readTreeFiles(outDir);
  const metadataOptions: MetadataOptions = {
    packageName,
    channels,
    defaultChannel,
    layout: annotations["operators.operatorframework.io/project_layout"]!,
    scorecard: c.scorecard !== undefined,
    labels: isRecord(cv.labels)
      ? Object.fromEntries(Object.entries(cv.labels).map(([k, v]) => [k, String(v)]))
      : {},
  };
  const keepMetadata = options.overwrite === false && previousTree.has("metadata/annotations.yaml");
  files.set(
    "metadata/annotations.yaml",
    keepMetadata ? previousTree.get("metadata/annotations.yaml")! : annotationsYaml(metadataOptions),
  );
  if (c.scorecard) files.set("tests/scorecard/config.yaml", toYaml(bundleObject(c.scorecard.object)));

  // --fbc needs the bundle image reference: check before anything is written.
  const bundleImage =
    options.fbc === undefined
      ? undefined
      : (options.bundleImage ??
        (cv.bundleImage as string | undefined) ??
        deriveBundleImage(managerImage, str((finalCsv.spec as Record<string, unknown>).version)));
  if (options.fbc !== undefined && !bundleImage) {
    throw new UsageError("--fbc needs the bundle image reference", {
      hint: "pass --bundle-image <ref> (or --image, from which <repo>-bundle:v<version> is derived)",
    });
  }

  // Render everything that goes outside the bundle directory before the first write, so a failure
  // cannot leave a new bundle next to an old bundle.Dockerfile or catalog.
  const dockerfilePath = join(root, "bundle.Dockerfile");
  const dockerfile = bundleDockerfile(metadataOptions, root, relative(root, outDir) || ".");
  const oldDockerfile = await readFile(dockerfilePath, "utf8").catch(() => undefined);
  let fbc: { file: string; content: string } | undefined;
  if (options.fbc !== undefined && bundleImage) {
    const { renderFbc } = await import("./fbc.js");
    fbc = {
      file: join(options.fbc, packageName, "catalog.yaml"),
      content: renderFbc({ packageName, channels, defaultChannel, csv: finalCsv, bundleImage }),
    };
  }

  await saveBase();
  const result = await writeBundleDir(outDir, files, previousTree);
  for (const path of result.removed) reporter.info(msg.removed(`${outputDir}/${path}`));
  if (oldDockerfile !== dockerfile && !(options.overwrite === false && oldDockerfile !== undefined)) {
    await writeFileAtomic(dockerfilePath, dockerfile);
  }
  if (fbc) await writeFileAtomic(resolve(cwd, fbc.file), fbc.content);
  const fbcFile = fbc?.file;

  for (const note of notCarried) reporter.warn(note);
  for (const note of composed.notes) reporter.info(note);
  for (const f of csvFindings) warnings.push(`${f.id} ${f.path ?? ""}: ${f.message}`);
  for (const w of warnings) reporter.warn(w);
  if (result.created.length + result.updated.length + result.removed.length === 0)
    reporter.info(msg.upToDate(outputDir));
  else
    reporter.success(
      msg.wrote(outputDir, result.created.length, result.updated.length, result.unchanged.length),
    );
  return {
    outputDir,
    csvName: nameOf(finalCsv),
    files: result,
    base: baseInfo,
    notCarried,
    notes: composed.notes,
    warnings,
    ...(fbcFile ? { fbcFile } : {}),
    dockerfile: "bundle.Dockerfile",
  };
}

/** A path the user typed (relative to cwd), as seen from the project root; "-" stays stdin. */
function userPath(path: string, cwd: string, root: string): string {
  return path === "-" ? path : relative(root, resolve(cwd, path)) || ".";
}

function managerImageOf(deployments: Parameters<typeof managerContainer>[0]): string | undefined {
  const image = managerContainer(deployments)?.image;
  return typeof image === "string" && image !== "" ? image : undefined;
}

function deriveBundleImage(image: string | undefined, version: string): string | undefined {
  if (!image) return undefined;
  const at = image.indexOf("@");
  const rest = at >= 0 ? image.slice(0, at) : image;
  const colon = rest.lastIndexOf(":");
  const repo = colon > rest.lastIndexOf("/") ? rest.slice(0, colon) : rest;
  return `${repo}-bundle:v${version}`;
}

export { BASE_FIELDS };
