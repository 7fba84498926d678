// operator-sdk's command names that tsop spells differently: instead of commander's "unknown
// command" or "too many arguments", say what the tsop way is; the same for flags tsop has no use for
// (--plugins). (Flags with the same meaning are accepted as hidden aliases where the commands
// define them: --use-http, --skip-tls, --delete-all, bundle --overwrite.)
import { UsageError } from "../common/errors.js";

interface Translation {
  /** The operator-sdk words, e.g. ["generate", "bundle"]. */
  words: string[];
  message: string;
  /** The tsop words replacing `words`, to echo the user's command line translated. */
  tsop?: string[];
  hint?: string;
}

const TRANSLATIONS: Translation[] = [
  {
    words: ["generate", "bundle"],
    tsop: ["bundle"],
    message: "operator-sdk's `generate bundle` is `tsop bundle` in tsop (same job: CSV, CRDs, metadata)",
  },
  {
    words: ["generate", "kustomize", "manifests"],
    message:
      "tsop has no `generate kustomize manifests`: `tsop bundle` creates the base CSV in config/manifests/bases on its first run",
    hint: "run tsop bundle --version <semver> (add --interactive to be asked for the CSV fields again)",
  },
  {
    words: ["scorecard"],
    message:
      "tsop has no scorecard: `tsop bundle` writes tests/scorecard/config.yaml into the bundle, which operator-sdk's scorecard runs",
    hint: "run operator-sdk scorecard ./bundle against your cluster",
  },
];

/** operator-sdk flags without a tsop counterpart, on the command (its leading words) that takes them. */
interface FlagTranslation {
  words: string[];
  flag: string;
  message: string;
  hint: string;
}

const PLUGINS: Omit<FlagTranslation, "words"> = {
  flag: "--plugins",
  message:
    "tsop has no --plugins: it scaffolds one layout, TypeScript (PROJECT layout tsop.dev/v1), in place of operator-sdk's go/v4",
  hint: "drop --plugins; optional parts have their own flags (see --help)",
};

const FLAG_TRANSLATIONS: FlagTranslation[] = [
  { words: ["init"], ...PLUGINS },
  { words: ["create", "api"], ...PLUGINS },
  { words: ["create", "webhook"], ...PLUGINS },
  {
    words: ["init"],
    flag: "--project-version",
    message: "tsop has no --project-version: PROJECT is always version 3, as operator-sdk writes it",
    hint: "drop --project-version",
  },
  {
    words: ["create", "api"],
    flag: "--make",
    message:
      "tsop has no --make: `tsop create api` runs nothing after scaffolding (operator-sdk's --make runs `make generate`)",
    hint: "drop --make; `tsop generate` (or `npm run build`) writes the CRDs and RBAC, and `tsop install` runs it too",
  },
];

function hasFlag(argv: readonly string[], flag: string): boolean {
  return argv.some((a) => a === flag || a.startsWith(`${flag}=`));
}

/**
 * argv with operator-sdk's spelling translated (an alias with the same meaning, e.g. `generate
 * bundle` → `bundle`) and a note saying so; or a usage error telling the tsop way when there is no
 * counterpart; or undefined when argv is not an operator-sdk-only spelling.
 */
export function operatorSdkSpelling(
  argv: readonly string[],
): { argv: string[]; note: string } | UsageError | undefined {
  const words = argv.filter((a) => !a.startsWith("-"));
  for (const f of FLAG_TRANSLATIONS) {
    if (f.words.every((w, i) => words[i] === w) && hasFlag(argv, f.flag))
      return new UsageError(f.message, { hint: f.hint });
  }
  for (const t of TRANSLATIONS) {
    if (!t.words.every((w, i) => words[i] === w)) continue;
    if (!t.tsop) return new UsageError(t.message, t.hint ? { hint: t.hint } : {});
    const rest = [...argv];
    for (const w of t.words) rest.splice(rest.indexOf(w), 1);
    return { argv: [...t.tsop, ...rest], note: `note: ${t.message}` };
  }
  return undefined;
}
