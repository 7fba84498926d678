// `npm run lint`'s house rules for src/ (run with `node --import tsx`): no import cycles, folder
// boundaries (runtime/ imports only common/, common/ nothing else, kube/ only common/ and runtime/,
// devloop/ not olm/, nothing outside cli/ imports cli/, the in-memory and real control planes of
// testing/ do not import each other) and at most 800 lines per file.
// A violation tolerated for a while goes in RULES.exceptions with the issue that will remove it (none
// today): each one is printed on every run, and one that no longer applies is an error.
// docs/architecture.md explains the folders these rules keep apart.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

/** Imports from files under `from` may only reach the `allow` folders / never the `deny` folders. */
export interface Boundary {
  from: string;
  allow?: string[];
  deny?: string[];
  why: string;
}

export interface Rules {
  /** Folder walked, relative to the root (e.g. "src/"). */
  scope: string;
  maxLines: number;
  boundaries: Boundary[];
  /** Known violations, each with the reason it is tolerated: file → why (line count), cycle → why. */
  exceptions: { maxLines: Record<string, string>; cycles: Record<string, string> };
  /** Packages and Node APIs that only their front may import (below). */
  fronts?: Front[];
}

export interface Report {
  errors: string[];
  /** Tolerated violations (listed exceptions), printed so they stay visible. */
  warnings: string[];
}

/**
 * The rooms of runtime/, lowest first: a room imports only the rooms listed before it (and the
 * declarations at runtime/'s root, which `tsop generate` reads and which import nothing).
 */
export const RUNTIME_ROOMS: Array<{ room: string; uses: string[] }> = [
  { room: "log", uses: [] },
  { room: "connect", uses: [] },
  { room: "serving", uses: ["log", "connect"] },
  { room: "metrics", uses: ["log", "connect", "serving"] },
  { room: "client", uses: ["connect"] },
  { room: "controllerutil", uses: ["connect", "client"] },
  { room: "cache", uses: ["log", "connect", "metrics", "client"] },
  { room: "events", uses: ["log", "connect", "client"] },
  { room: "webhook", uses: ["log", "connect", "serving"] },
  { room: "controller", uses: ["log", "connect", "metrics", "client", "cache", "events"] },
  { room: "sharding", uses: ["log", "connect", "client", "cache", "controller"] },
  {
    room: "manager",
    uses: [
      "log",
      "connect",
      "serving",
      "metrics",
      "client",
      "cache",
      "events",
      "webhook",
      "controller",
      "sharding",
    ],
  },
];

const RUNTIME_DECLARATIONS = ["decorators.ts", "schema.ts", "field-decorators.ts", "webhooks.ts"].map(
  (f) => `src/runtime/${f}`,
);

function runtimeRooms(): Boundary[] {
  const rooms: Boundary[] = RUNTIME_ROOMS.map(({ room, uses }) => ({
    from: `src/runtime/${room}/`,
    allow: [
      `src/runtime/${room}/`,
      ...uses.map((u) => `src/runtime/${u}/`),
      ...RUNTIME_DECLARATIONS,
      "src/common/",
    ],
    why: `runtime/${room}/ may import only ${uses.length ? uses.map((u) => `${u}/`).join(", ") + ", " : ""}the declarations at runtime/'s root and common/ (rooms lowest first, scripts/check-architecture.ts RUNTIME_ROOMS)`,
  }));
  const declarations: Boundary[] = RUNTIME_DECLARATIONS.map((file) => ({
    from: file,
    allow: ["src/common/"],
    why: "the declarations `tsop generate` reads (runtime/'s root) import no runtime machinery",
  }));
  return [...rooms, ...declarations];
}

// ── Fronts (issue 41): a package or Node API that one module of src/ wraps for everyone ──

/** `modules` (packages, with their subpaths, or node: modules) may be imported only under `at`. */
export interface Front {
  modules: string[];
  /** Folders or files, relative to the root. */
  at: string[];
  why: string;
  /** Known importers outside `at` (folder or file prefix → the issue that removes it). */
  exceptions?: Record<string, string>;
}

export const FRONTS: Front[] = [
  {
    modules: ["yaml", "js-yaml"],
    at: ["src/common/yaml/"],
    why: "YAML is read, edited and written through common/yaml/ (alias-capped against YAML bombs)",
  },
  {
    modules: ["node:fs/promises", "fs/promises"],
    at: [
      "src/common/fs.ts",
      "src/oci/",
      "src/operator-image/",
      "src/bundle/load/",
      "src/testing/",
      "src/runtime/",
    ],
    why: "a CLI's files are touched through common/fs.ts (fs/promises' API done synchronously, atomic writes); only code that streams blobs or serves the network while it works (oci/, operator-image/, bundle/load/, testing/, runtime/) uses node:fs/promises",
  },
];

function importsModule(spec: string, module: string): boolean {
  return spec === module || spec.startsWith(`${module}/`);
}

/** Imports of a front's modules from outside it: errors, or warnings for listed exceptions. */
function frontReport(root: string, files: string[], fronts: Front[]): Report {
  const errors: string[] = [];
  const warnings: string[] = [];
  const usedExceptions = new Set<string>();
  for (const file of files) {
    const specs = moduleSpecifiers(readFileSync(join(root, file), "utf8"), file);
    for (const front of fronts) {
      if (front.at.some((at) => file.startsWith(at))) continue;
      for (const { spec } of specs) {
        if (!front.modules.some((m) => importsModule(spec, m))) continue;
        const excepted = Object.keys(front.exceptions ?? {}).find((prefix) => file.startsWith(prefix));
        if (excepted === undefined) {
          errors.push(`${file} imports ${spec}: ${front.why}`);
          continue;
        }
        usedExceptions.add(`${front.modules.join(" ")}\0${excepted}`);
        warnings.push(`${file} imports ${spec} (listed exception: ${front.exceptions![excepted]})`);
      }
    }
  }
  for (const front of fronts) {
    for (const prefix of Object.keys(front.exceptions ?? {})) {
      if (!usedExceptions.has(`${front.modules.join(" ")}\0${prefix}`))
        errors.push(
          `listed exception for ${front.modules.join(", ")} no longer applies, remove it: ${prefix}`,
        );
    }
  }
  return { errors, warnings };
}

export const RULES: Rules = {
  scope: "src/",
  maxLines: 800,
  boundaries: [
    {
      from: "src/runtime/",
      allow: ["src/runtime/", "src/common/"],
      why: 'the operator library (`import … from "tsop"`) ships without the CLI: runtime/ imports only common/',
    },
    ...runtimeRooms(),
    {
      from: "src/common/",
      allow: ["src/common/"],
      why: "common/ is what every layer shares and has no domain: it imports nothing else of src/",
    },
    {
      from: "src/kube/",
      allow: ["src/kube/", "src/common/", "src/runtime/"],
      why: "kube/ is generic cluster access (connect, apply, wait, delete) on the runtime's REST client: no command domain",
    },
    {
      from: "src/devloop/",
      deny: ["src/olm/"],
      why: "the dev loop works without OLM: the cluster operations it shares with olm/ live in kube/",
    },
    {
      from: "src/upgrades/",
      allow: ["src/upgrades/", "src/common/", "src/kube/", "src/catalog/", "src/olm/"],
      why: "upgrades/ orders olm/run's install, upgrade and cleanup over catalog/'s graph: it does no OLM or registry work of its own",
    },
    {
      from: "src/",
      deny: ["src/cli/"],
      why: "cli/ is the outermost layer (commands, flags, output); nothing else imports it",
    },
    {
      from: "src/testing/memory/",
      deny: ["src/testing/real/"],
      why: "the two control planes are chosen in src/testing/start.ts only",
    },
    {
      from: "src/testing/real/",
      deny: ["src/testing/memory/"],
      why: "the two control planes are chosen in src/testing/start.ts only",
    },
  ],
  exceptions: {
    maxLines: {},
    cycles: {},
  },
};

interface Import {
  target: string;
  typeOnly: boolean;
}

/** Every .ts file under dir (relative to root, "/"-separated), sorted. */
function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const name of readdirSync(abs).sort()) {
      const path = join(abs, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".ts") && !name.endsWith(".d.ts"))
        out.push(relative(root, path).split(sep).join("/"));
    }
  };
  if (existsSync(join(root, dir))) walk(join(root, dir));
  return out;
}

/** The relative module specifiers a file imports (static, re-exports and literal import()). */
function specifiers(text: string, file: string): Array<{ spec: string; typeOnly: boolean }> {
  return moduleSpecifiers(text, file).filter((s) => s.spec.startsWith("."));
}

/** Every module specifier a file imports (static, re-exports and literal import()). */
function moduleSpecifiers(text: string, file: string): Array<{ spec: string; typeOnly: boolean }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: Array<{ spec: string; typeOnly: boolean }> = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      out.push({ spec: node.moduleSpecifier.text, typeOnly });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      out.push({ spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      out.push({ spec: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The import graph of scope: file → the files it imports (relative paths resolved to .ts). */
function importGraph(root: string, files: string[]): Map<string, Import[]> {
  const graph = new Map<string, Import[]>();
  for (const file of files) {
    const imports: Import[] = [];
    for (const { spec, typeOnly } of specifiers(readFileSync(join(root, file), "utf8"), file)) {
      const abs = resolve(root, dirname(file), spec.replace(/\.js$/, ".ts"));
      const target = relative(root, abs).split(sep).join("/");
      if (existsSync(abs) && target.endsWith(".ts")) imports.push({ target, typeOnly });
    }
    graph.set(file, imports);
  }
  return graph;
}

/** Strongly connected components with more than one file (or a file importing itself): Tarjan. */
function cycles(graph: Map<string, Import[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const { target: w } of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).some((i) => i.target === v))
      found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return found;
}

/** One concrete loop through a component, for the message: a → b → … → a. */
function loopThrough(graph: Map<string, Import[]>, component: string[]): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const path: string[] = [];
  const seen = new Set<string>();
  const dfs = (v: string): boolean => {
    path.push(v);
    seen.add(v);
    for (const { target } of graph.get(v) ?? []) {
      if (target === start) return path.push(start) > 0;
      if (members.has(target) && !seen.has(target) && dfs(target)) return true;
    }
    path.pop();
    return false;
  };
  dfs(start);
  return path;
}

function boundaryErrors(graph: Map<string, Import[]>, boundaries: Boundary[]): string[] {
  const errors: string[] = [];
  for (const [file, imports] of graph) {
    for (const { target } of imports) {
      for (const b of boundaries) {
        if (!file.startsWith(b.from)) continue;
        const denied =
          (b.allow && !b.allow.some((a) => target.startsWith(a))) ||
          (b.deny ?? []).some((d) => target.startsWith(d) && !file.startsWith(d));
        if (denied) errors.push(`${file} imports ${target}: ${b.why}`);
      }
    }
  }
  return errors;
}

/** Checks the files under rules.scope of root against the rules. */
export function checkArchitecture(root: string, rules: Rules): Report {
  const errors: string[] = [];
  const warnings: string[] = [];
  const files = sourceFiles(root, rules.scope);
  const graph = importGraph(root, files);

  const seenCycles = new Set<string>();
  for (const component of cycles(graph)) {
    const key = component.join(" ");
    seenCycles.add(key);
    const loop = loopThrough(graph, component).join(" → ");
    const why = rules.exceptions.cycles[key];
    if (why) warnings.push(`import cycle (listed exception: ${why}): ${loop}`);
    else
      errors.push(
        `import cycle: ${loop} (files in the cycle: ${key}); move what both sides need into a module both import`,
      );
  }
  for (const key of Object.keys(rules.exceptions.cycles)) {
    if (!seenCycles.has(key)) errors.push(`listed cycle exception no longer applies, remove it: ${key}`);
  }

  errors.push(...boundaryErrors(graph, rules.boundaries));
  const fronts = frontReport(root, files, rules.fronts ?? []);
  errors.push(...fronts.errors);
  warnings.push(...fronts.warnings);

  for (const file of files) {
    const lines = readFileSync(join(root, file), "utf8").split("\n").length - 1;
    const why = rules.exceptions.maxLines[file];
    if (lines <= rules.maxLines) {
      if (why) errors.push(`${file} has ${lines} lines now: remove its max-lines exception`);
    } else if (why)
      warnings.push(`${file} has ${lines} lines (over ${rules.maxLines}; listed exception: ${why})`);
    else
      errors.push(
        `${file} has ${lines} lines (over ${rules.maxLines}): split it into modules with one job each`,
      );
  }
  for (const file of Object.keys(rules.exceptions.maxLines)) {
    if (!files.includes(file)) errors.push(`max-lines exception for a missing file, remove it: ${file}`);
  }
  return { errors, warnings };
}

function main(): void {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  // The fronts are their own block of rules (test/architecture/fronts.test.ts).
  const { errors, warnings } = checkArchitecture(root, { ...RULES, fronts: FRONTS });
  for (const w of warnings) console.warn(`warning: ${w}`);
  for (const e of errors) console.error(`error: ${e}`);
  if (errors.length > 0) {
    console.error(
      `check-architecture: ${errors.length} error(s) in ${RULES.scope} (see docs/architecture.md)`,
    );
    process.exit(1);
  }
  console.log(`check-architecture: ${RULES.scope} ok (${warnings.length} listed exception(s))`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
