// package-lock.json files that `npm ci` refuses although `npm install` just wrote them. npm 11.16+
// leaves out an optional dependency the registry cannot serve (a 404, as this machine's registry
// answers for vite's napi-windows-process-start-time) but keeps the edge to it in its dependent's
// entry; `npm ci` then reports "Missing: <name>@ from lock file" (npm/cli#9846). Dropping such edges
// records what `npm install` did (it installed without them), and `npm ci` accepts the lock.

/** An optional dependency a lock entry declares and the lock holds no package for. */
export interface DanglingOptional {
  name: string;
  range: string;
  /** The dependent's path in the lock, e.g. node_modules/vite. */
  dependent: string;
  dependentVersion: string | undefined;
}

interface LockEntry {
  version?: string;
  link?: boolean;
  optionalDependencies?: Record<string, string>;
}

export interface LockFile {
  packages?: Record<string, LockEntry>;
}

/** Where Node (and npm) would find `name` from the package at `path`: its own node_modules, then up. */
function resolves(packages: Record<string, LockEntry>, path: string, name: string): boolean {
  for (let base = path; ;) {
    if (packages[`${base ? `${base}/` : ""}node_modules/${name}`]) return true;
    if (base === "") return false;
    const up = base.lastIndexOf("/node_modules/");
    base = up < 0 ? "" : base.slice(0, up);
  }
}

/** The optional edges of non-root entries that resolve to nothing (the root's mirror package.json). */
export function danglingOptionals(lock: LockFile): DanglingOptional[] {
  const packages = lock.packages ?? {};
  const found: DanglingOptional[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    if (path === "" || entry.link) continue;
    for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
      if (!resolves(packages, path, name))
        found.push({ name, range, dependent: path, dependentVersion: entry.version });
    }
  }
  return found;
}

/** "napi-windows-process-start-time (an optional dependency of vite@8.4.0)". */
export function describeDangling(edge: DanglingOptional): string {
  const dependent = edge.dependent.slice(
    edge.dependent.lastIndexOf("node_modules/") + "node_modules/".length,
  );
  return `${edge.name} (an optional dependency of ${dependent}${edge.dependentVersion ? `@${edge.dependentVersion}` : ""})`;
}

/** The lock's text without its dangling optional edges (npm's own format: 2 spaces, final newline). */
export function dropDanglingOptionals(text: string): { text: string; dropped: DanglingOptional[] } {
  const lock = JSON.parse(text) as LockFile;
  const dropped = danglingOptionals(lock);
  if (dropped.length === 0) return { text, dropped };
  for (const edge of dropped) {
    const entry = lock.packages![edge.dependent]!;
    delete entry.optionalDependencies![edge.name];
    if (Object.keys(entry.optionalDependencies!).length === 0) delete entry.optionalDependencies;
  }
  return { text: `${JSON.stringify(lock, null, 2)}\n`, dropped };
}
