// Source watching for `run local --watch`: src/ (recursively), config/manager and the build files.
// Bursts of events (an editor's save, a formatter) are collapsed into one change after a quiet spell.
//
// Every directory gets its own non-recursive watcher, registered synchronously, so a change made
// right after watchSources() returns is seen. Directories are watched rather than files (Node 20's
// recursive mode on Linux watches each file's inode) so an editor's save-by-rename is seen too.
import { type FSWatcher, lstatSync, readdirSync, watch } from "node:fs";
import { join, sep } from "node:path";

export interface SourceWatcher {
  /** Resolves with a changed path after the next burst of changes. */
  next(): Promise<string>;
  close(): void;
}

/** The source tree, watched with every directory below it. */
const TREE = "src";
/** Watched directories (not recursive) and the names in them that count. */
const DIRECTORIES: { dir: string; counts: (name: string) => boolean }[] = [
  { dir: join("config", "manager"), counts: () => true },
  { dir: ".", counts: (name) => ["package.json", "tsconfig.json", "tsconfig.build.json"].includes(name) },
];

/** What is watched, for the user. */
export const WATCHED_SOURCES = "src/, config/manager/, package.json and tsconfig*.json";

export function watchSources(root: string, quietMs = 300): SourceWatcher {
  const watchers = new Map<string, { watcher: FSWatcher; id: string }>();
  let pending: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let waiter: ((path: string) => void) | undefined;

  const fire = () => {
    timer = undefined;
    if (pending === undefined || !waiter) return;
    const path = pending;
    pending = undefined;
    const resolve = waiter;
    waiter = undefined;
    resolve(path);
  };
  const changed = (path: string) => {
    pending = path;
    clearTimeout(timer);
    timer = setTimeout(fire, quietMs);
  };
  /** Watches `dir` (unless already watching this very directory: a re-created one is new). */
  const watchDirectory = (dir: string, onName: (name: string) => void) => {
    const id = identity(join(root, dir));
    if (id === undefined || watchers.get(dir)?.id === id) return;
    forget(dir);
    try {
      const watcher = watch(join(root, dir), (_event, name) => onName(name ? name.toString() : ""));
      // The directory went away (or cannot be read any more): its parent reports the change.
      watcher.on("error", () => forget(dir));
      watchers.set(dir, { watcher, id });
    } catch {
      // A directory the project does not have (e.g. no config/manager) is not watched.
    }
  };
  /** Stops watching `dir` and everything below it. */
  const forget = (dir: string) => {
    for (const [path, { watcher }] of watchers) {
      if (path !== dir && !path.startsWith(`${dir}${sep}`)) continue;
      watcher.close();
      watchers.delete(path);
    }
  };
  const watchTree = (dir: string) => {
    watchDirectory(dir, (name) => {
      const path = name ? join(dir, name) : dir;
      if (name) {
        if (isDirectory(join(root, path))) watchTree(path);
        else forget(path); // a file, or a directory that went away
      }
      changed(path);
    });
    for (const entry of subdirectories(join(root, dir))) watchTree(join(dir, entry));
  };

  watchTree(TREE);
  for (const { dir, counts } of DIRECTORIES) {
    watchDirectory(dir, (name) => {
      if (counts(name)) changed(join(dir, name));
    });
  }
  return {
    next: () =>
      new Promise<string>((resolve) => {
        waiter = resolve;
        if (pending !== undefined && timer === undefined) fire();
      }),
    close() {
      clearTimeout(timer);
      for (const { watcher } of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * What tells a directory from one re-created under the same name (undefined when there is none):
 * the inode with the birth time, as a freed inode is often reused at once.
 */
function identity(path: string): string | undefined {
  try {
    const stat = lstatSync(path);
    return `${stat.ino}:${stat.birthtimeMs}`;
  } catch {
    return undefined;
  }
}

/** Names of the real directories (not symlinks) in `dir`; none when it is not a directory. */
function subdirectories(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}
