// What `tsop bundle` takes and gives: the options as the caller gives them (BundleOptions), the
// same options resolved by stage 1 (ResolvedBundle: the only options later stages read), the I/O
// every stage works through (BundleIO) and the result. Types only, so every stage can import them.
import type { OutputSink } from "../common/output/sink.js";
import type { Reporter } from "../common/reporter.js";
import type { Prompter } from "./base.js";
import type { LoadedConfig } from "./config.js";
import type { WriteResult } from "./write.js";

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
  registry?: RegistryAccess;
  /** Test seam for --use-image-digests (defaults to oci/pin.ts's pinBundleImages). */
  pinImages?: PinImages;
  /** Where the output goes (default: the disk, as one set); --dry-run passes stdoutSink. */
  sink?: OutputSink;
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
  /** Return the lock file's text instead of writing it (bundle writes it with its output set). */
  deferLockWrite?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** The registry flags of --use-image-digests (what PinImagesOptions holds besides reporter and env). */
export type RegistryAccess = Omit<PinImagesOptions, "reporter" | "env">;

export type PinImages = (
  objects: Array<Record<string, unknown>>,
  options: PinImagesOptions,
) => Promise<{
  objects: Array<Record<string, unknown>>;
  pinned: Array<{ from: string; to: string }>;
  lockText?: string;
}>;

/** Stage 1's output (generate/options.ts): flags, bundle config and PROJECT merged and checked. */
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
  /** How messages name the output directory: the flag, the config key or "the bundle directory". */
  outputDirShown: string;
  /** The manager image to set (flag, config or PROJECT; not with -f unless --image). */
  image: string | undefined;
  replaces: string | undefined;
  /** --replaces-previous: take replaces from the bundle already in the output dir. */
  replacesPrevious: boolean;
  skipRange: string | undefined;
  skips: string[] | undefined;
  extraServiceAccounts: string[];
  categories: string[] | undefined;
  /** --features as typed (the config's features are read from config.values). */
  features: string | undefined;
  /** Where the FBC fragment goes, when asked for (as typed, relative to cwd). */
  fbcDir: string | undefined;
  /** The bundle image for the FBC fragment (flag, then config); derived from image when unset. */
  bundleImage: string | undefined;
  /** -f as a path from the project root ("-" is stdin), and stdin's text. */
  file: string | undefined;
  stdin: string | undefined;
  loadRestrictor: "rootOnly" | "none" | undefined;
  /** Run `tsop generate` first: neither -f nor --skip-generate. */
  generate: boolean;
  /** false (--no-overwrite) keeps an existing metadata/annotations.yaml and bundle.Dockerfile. */
  overwrite: boolean;
  /** What the base CSV stage needs: field flags, and whether and how to ask. */
  base: {
    fields: Record<string, string>;
    tty: boolean;
    interactive: boolean;
    yes: boolean;
    commandLine: string | undefined;
  };
  /** --use-image-digests: registry access, the lock file resolved from cwd; undefined without it. */
  digests: RegistryAccess | undefined;
}

/** The I/O every stage works through besides reading the project: one object, made in index.ts. */
export interface BundleIO {
  reporter: Reporter;
  /** Asks for base CSV fields (on a TTY only; see ResolvedBundle.base.tty). */
  prompter: Prompter | undefined;
  /** Where the output set goes: the disk as one set, stdout for --dry-run, or memory. */
  sink: OutputSink;
  /** Resolves image digests for --use-image-digests. */
  pinImages: PinImages;
}

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
