// One TS.Program built from the project's tsconfig (paths, include, exclude honoured), shared by the
// CRD and RBAC generators, plus the test that tells whether a declaration comes from tsop itself
// (the "tsop" package in node_modules, or this repository's src/runtime during development).
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type TS from "typescript";
import { ts } from "./compiler.js";
import { InvalidInputError } from "../common/errors.js";
import type { InputRecorder } from "./cache/inputs.js";
import { type ObservedSystem, observedSystem, useSystem } from "./cache/system.js";
import { type LibSlice, mentionsSection, withoutTypedArrays } from "./lib-slice.js";
import { moduleSpecifiers } from "./module-specifiers.js";

export interface LoadedProgram {
  program: TS.Program;
  checker: TS.TypeChecker;
  /** The project's own source files (not declaration files, not node_modules). */
  sourceFiles: TS.SourceFile[];
  configPath: string;
  root: string;
  /** The files each program file's imports resolved to (module specifiers, import types, augmentations). */
  imports: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * Builds the program. With `inputs`, every answer the file system gives the compiler is recorded
 * there (cache/inputs.ts), so a cache entry can later tell whether any of it changed.
 */
export function loadProgram(configPath: string, inputs?: InputRecorder): LoadedProgram {
  const path = resolve(configPath);
  if (!existsSync(path)) {
    throw new InvalidInputError(`tsconfig not found: ${path}`, {
      hint: "pass --project <tsconfig.json> or run tsop generate in the project directory",
    });
  }
  const system = observedSystem(inputs);
  startAnalysis(system);
  const parsed = parseConfig(path, system, inputs);
  // Automatic @types inclusion is off: CRD types are JSON data, and parsing @types/node alone costs
  // more than analysing fifty kinds.
  // Likewise most of the standard library: schemas are JSON data, so ES5's types (Array, Record,
  // Date…) plus the ES2015 collections (to name Map/Set in errors) are all a CRD type can use.
  const lib = ["lib.es5.d.ts", "lib.es2015.collection.d.ts", "lib.es2015.symbol.d.ts"];
  const options: TS.CompilerOptions = {
    ...parsed.options,
    noEmit: true,
    lib,
    types: parsed.options.types ? parsed.options.types.filter((t) => t !== "node") : [],
  };
  // Referenced projects are read through paths the recorder does not see: never cached.
  if (parsed.projectReferences?.length) inputs?.markUnstable("the tsconfig has project references");
  const libFiles: LibFiles = { sliced: true };
  const imports = new Map<string, Set<string>>();
  const host = pruningHost(options, parsed.fileNames, system, libFiles, imports);
  const build = () =>
    ts.createProgram({
      rootNames: parsed.fileNames,
      options,
      projectReferences: parsed.projectReferences ?? [],
      host,
    });
  let program = build();
  // lib.es5.d.ts went in without its typed-array section (lib-slice.ts); if any other file of the
  // program names one of them, the program is built again with the whole file (the host keeps the
  // other files it parsed).
  const sliced = program.getSourceFiles().find((sf) => sliceOf.get(sf) !== undefined);
  if (sliced && mentionsSection(program, sliced, sliceOf.get(sliced) as LibSlice)) {
    libFiles.sliced = false;
    program = build();
  }
  const sourceFiles = program
    .getSourceFiles()
    .filter(
      (sf) =>
        !sf.isDeclarationFile && !program.isSourceFileFromExternalLibrary(sf) && !isTsopFile(sf.fileName),
    );
  return {
    program,
    checker: program.getTypeChecker(),
    sourceFiles,
    configPath: path,
    root: dirname(path),
    imports,
  };
}

/**
 * The tsconfig, parsed. When recording, the directories its include patterns scan are listed and
 * the tsconfig parsed again after that: a file created meanwhile is then either in both the listing
 * and the program, or missing from the listing (and the next run sees the change).
 */
function parseConfig(
  path: string,
  system: ObservedSystem,
  inputs: InputRecorder | undefined,
): TS.ParsedCommandLine {
  const parse = () => {
    const read = ts.readConfigFile(path, system.readFile);
    if (read.error) throw configError(path, read.error);
    return ts.parseJsonConfigFileContent(read.config, system, dirname(path), { noEmit: true }, path);
  };
  let parsed = parse();
  if (inputs) {
    for (const [dir, flags] of Object.entries(parsed.wildcardDirectories ?? {}))
      inputs.listTree(dir, (flags & ts.WatchDirectoryFlags.Recursive) !== 0);
    parsed = parse();
  }
  const fatal = parsed.errors.filter((e) => e.category === ts.DiagnosticCategory.Error && e.code !== 18003);
  if (fatal[0]) throw configError(path, fatal[0]);
  if (parsed.fileNames.length === 0) {
    throw new InvalidInputError(`${path} includes no TypeScript files`, {
      hint: "check `include`/`files` in the tsconfig",
    });
  }
  return parsed;
}

/**
 * A compiler host that leaves out what CRD and RBAC generation cannot need, which is most of the
 * parse time: packages imported by files outside the "API closure" (the files that mention
 * @CustomResource and the project files they import), and tsop's own runtime beyond its
 * declaration surface (decorators and schema types). Left-out imports resolve to nothing. The files
 * imports did resolve to are added to `imports`.
 */
function pruningHost(
  options: TS.CompilerOptions,
  rootNames: readonly string[],
  system: ObservedSystem,
  libFiles: LibFiles,
  imports: Map<string, Set<string>>,
): TS.CompilerHost {
  // No parent pointers from the parser (setParentNodes false, as tsc): the checker's binder sets
  // them on every node of every file when loadProgram creates the checker, before the analysis
  // reads any, and the parser's extra pass over each tree cost ~10 ms (lib.es5.d.ts mostly).
  const host = ts.createCompilerHost(options, false);
  useSystem(host, system);
  // TypeScript's own lib files never change: parse them once per process (tsserver shares
  // SourceFiles between programs the same way). Speeds up repeated runs in one process.
  // Their doc comments are not parsed: they are half of lib.es5.d.ts, the analysis reads doc
  // comments of the project's declarations only (crd/schema.ts maps the lib types it accepts to
  // fixed schemas), and in a .d.ts they carry no types. Half the lib's parse time.
  const getSourceFile = host.getSourceFile.bind(host);
  // The project's files, parsed once per analysis (a second build of the program reuses them).
  const projectFiles = new Map<string, TS.SourceFile>();
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (!LIB_FILE.test(fileName)) {
      const key = `${fileName}\0${JSON.stringify(languageVersion)}`;
      let file = projectFiles.get(key);
      if (!file) {
        file = getSourceFile(fileName, languageVersion, onError, shouldCreate);
        if (file) projectFiles.set(key, file);
      }
      return file;
    }
    const slice = libFiles.sliced && ES5_LIB.test(fileName) ? es5Slice(fileName, system) : undefined;
    const key = `${fileName}\0${JSON.stringify(languageVersion)}${slice ? "\0sliced" : ""}`;
    let file = libCache.get(key);
    if (!file) {
      const withoutDocs: TS.CreateSourceFileOptions = {
        ...(typeof languageVersion === "object" ? languageVersion : { languageVersion }),
        jsDocParsingMode: ts.JSDocParsingMode.ParseNone,
      };
      file = slice
        ? ts.createSourceFile(fileName, slice.text, withoutDocs, false)
        : getSourceFile(fileName, withoutDocs, onError, shouldCreate);
      if (file) libCache.set(key, file);
      if (file && slice) sliceOf.set(file, slice);
    }
    return file;
  };
  const cache = ts.createModuleResolutionCache(
    host.getCurrentDirectory(),
    host.getCanonicalFileName,
    options,
  );
  const resolveOne = (name: string, containing: string, mode?: TS.ResolutionMode) =>
    ts.resolveModuleName(name, containing, options, host, cache, undefined, mode).resolvedModule;
  const apiFiles = apiClosure(rootNames, resolveOne, system);
  const keep = (containingFile: string, resolved: TS.ResolvedModuleFull) => {
    let targets = imports.get(containingFile);
    if (!targets) imports.set(containingFile, (targets = new Set()));
    targets.add(resolved.resolvedFileName);
    return { resolvedModule: resolved };
  };
  host.resolveModuleNameLiterals = (
    literals,
    containingFile,
    _redirect,
    compilerOptions,
    containingSourceFile,
  ) =>
    literals.map((literal) => {
      const mode = ts.getModeForUsageLocation(containingSourceFile, literal, compilerOptions);
      const resolved = resolveOne(literal.text, containingFile, mode);
      if (!resolved) return { resolvedModule: undefined };
      const target = resolved.resolvedFileName;
      if (isTsopFile(containingFile) && /[\\/]index\.(d\.)?ts$/.test(containingFile)) {
        return RUNTIME_SURFACE.test(target) ? keep(containingFile, resolved) : { resolvedModule: undefined };
      }
      const external = resolved.isExternalLibraryImport === true || /[\\/]node_modules[\\/]/.test(target);
      const fromProject = !/[\\/]node_modules[\\/]/.test(containingFile) && !isTsopFile(containingFile);
      if (external && fromProject && !isTsopFile(target) && !apiFiles.has(containingFile))
        return { resolvedModule: undefined };
      return keep(containingFile, resolved);
    });
  return host;
}

const LIB_FILE = /[\\/]typescript[\\/]lib[\\/]lib\.[^\\/]*\.d\.ts$/;

/** Whether a file is one of the TypeScript compiler's own `lib.*.d.ts` (covered by its version). */
export function isTypeScriptLibFile(fileName: string): boolean {
  return LIB_FILE.test(fileName);
}
const ES5_LIB = /[\\/]lib\.es5\.d\.ts$/;
const libCache = new Map<string, TS.SourceFile>();

/** Whether the host gives lib.es5.d.ts without its typed-array section (lib-slice.ts). */
interface LibFiles {
  sliced: boolean;
}

/** The sliced lib.es5.d.ts files and what was left out of each. */
const sliceOf = new WeakMap<TS.SourceFile, LibSlice>();
let es5Slices: Map<string, LibSlice | undefined> | undefined;

function es5Slice(fileName: string, system: ObservedSystem): LibSlice | undefined {
  es5Slices ??= new Map();
  if (!es5Slices.has(fileName)) {
    const text = system.readFile(fileName);
    es5Slices.set(fileName, text === undefined ? undefined : withoutTypedArrays(text, ts.version));
  }
  return es5Slices.get(fileName);
}

const RUNTIME_SURFACE = /[\\/]runtime[\\/](decorators|schema|field-decorators|webhooks)\.(d\.ts|ts|js)$/;

/** Project files that declare resources, and the project files they import (transitively). */
function apiClosure(
  rootNames: readonly string[],
  resolveOne: (name: string, containing: string) => TS.ResolvedModuleFull | undefined,
  system: ObservedSystem,
): Set<string> {
  const closure = new Set<string>();
  const queue = rootNames.filter((f) => /CustomResource/.test(system.readFile(f) ?? ""));
  while (queue.length) {
    const file = queue.pop() as string;
    if (closure.has(file)) continue;
    closure.add(file);
    const text = system.readFile(file);
    if (text === undefined) continue;
    for (const specifier of moduleSpecifiers(text)) {
      const target = resolveOne(specifier, file)?.resolvedFileName;
      if (
        target &&
        !/[\\/]node_modules[\\/]/.test(target) &&
        !target.endsWith(".d.ts") &&
        !isTsopFile(target)
      )
        queue.push(target);
    }
  }
  return closure;
}

function configError(path: string, d: TS.Diagnostic): InvalidInputError {
  return new InvalidInputError(`${path}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`, {
    location: { file: path },
    hint: "fix the tsconfig (tsc -p <tsconfig> shows the same error)",
  });
}

// isTsopFile answers from package.json files read through the current analysis's system (so they
// are recorded), remembered for that analysis only. Analyses run synchronously, one at a time.
let packageSystem: Pick<ObservedSystem, "fileExists" | "readFile"> = {
  fileExists: existsSync,
  readFile: (path) => readFileSync(path, "utf8"),
};
const packageNameCache = new Map<string, string | undefined>();
// isTsopFile's answers: the checker asks for every symbol's declarations, thousands of times per file.
const tsopFileCache = new Map<string, boolean>();

function startAnalysis(system: ObservedSystem): void {
  packageSystem = system;
  packageNameCache.clear();
  tsopFileCache.clear();
}

/** The `name` of the nearest package.json at or above dir. */
function packageNameOf(dir: string): string | undefined {
  if (packageNameCache.has(dir)) return packageNameCache.get(dir);
  let name: string | undefined;
  const file = join(dir, "package.json");
  if (packageSystem.fileExists(file)) {
    try {
      name = (JSON.parse(packageSystem.readFile(file) ?? "") as { name?: string }).name ?? "";
    } catch {
      name = "";
    }
  } else {
    const parent = dirname(dir);
    name = parent === dir ? undefined : packageNameOf(parent);
  }
  packageNameCache.set(dir, name);
  return name;
}

const RUNTIME_FILE = /[\\/](src|dist)[\\/]runtime[\\/][^\\/]+\.(d\.ts|ts)$/;

/** Whether a file is tsop's runtime declaration surface (src/runtime/*.ts or dist/runtime/*.d.ts of the tsop package). */
export function isTsopFile(fileName: string): boolean {
  let answer = tsopFileCache.get(fileName);
  if (answer === undefined) {
    answer = RUNTIME_FILE.test(fileName) && packageNameOf(dirname(fileName)) === "tsop";
    tsopFileCache.set(fileName, answer);
  }
  return answer;
}

/** Whether a symbol (after following imports) is tsop's export called `name`. */
export function isTsopSymbol(checker: TS.TypeChecker, symbol: TS.Symbol | undefined, name?: string): boolean {
  const target = resolveAlias(checker, symbol);
  if (!target) return false;
  if (name !== undefined && target.name !== name) return false;
  return (target.declarations ?? []).some((d) => isTsopFile(d.getSourceFile().fileName));
}

export function resolveAlias(checker: TS.TypeChecker, symbol: TS.Symbol | undefined): TS.Symbol | undefined {
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) return checker.getAliasedSymbol(symbol);
  return symbol;
}
