// Source watching for `run local --watch`: src/ (recursively), config/manager and the build files.
// Bursts of events (an editor's save, a formatter) are collapsed into one change after a quiet spell.
import { type FSWatcher, watch } from "node:fs";
import { join } from "node:path";

export interface SourceWatcher {
  /** Resolves with a changed path after the next burst of changes. */
  next(): Promise<string>;
  close(): void;
}

const WATCHED = [
  { path: "src", recursive: true },
  { path: join("config", "manager"), recursive: false },
  { path: "package.json", recursive: false },
  { path: "tsconfig.json", recursive: false },
  { path: "tsconfig.build.json", recursive: false },
];

export function watchSources(root: string, quietMs = 300): SourceWatcher {
  const watchers: FSWatcher[] = [];
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
  const onEvent = (base: string) => (_event: string, file: string | Buffer | null) => {
    pending = file ? join(base, file.toString()) : base;
    clearTimeout(timer);
    timer = setTimeout(fire, quietMs);
  };
  for (const { path, recursive } of WATCHED) {
    try {
      const watcher = watch(join(root, path), { recursive }, onEvent(path));
      watcher.on("error", () => watcher.close());
      watchers.push(watcher);
    } catch {
      // A file the project does not have (e.g. no tsconfig.build.json) is not watched.
    }
  }
  return {
    next: () =>
      new Promise<string>((resolve) => {
        waiter = resolve;
        if (pending !== undefined && timer === undefined) fire();
      }),
    close() {
      clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
