// One builder per component at a time, across processes: CI's background build, the real tier's
// lanes waiting for the component they need next, and a developer's `npm run rig -- path` may all
// ask for the same binary at once. The lock is a directory (mkdir is atomic) holding the owner's pid;
// a lock whose owner is gone (killed mid-build) is taken over.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const POLL_MS = 1000;

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

function owner(lock) {
  try {
    return Number(readFileSync(join(lock, "pid"), "utf8"));
  } catch {
    return undefined; // being made or being removed: look again
  }
}

/**
 * Runs `work` holding `lock`, unless `done()` turns true while waiting for another holder (its build
 * finished: nothing left to do). Returns whether `work` ran. `onWait` is told once whom it waits for.
 */
export function withLock(lock, done, work, onWait = () => {}) {
  let told = false;
  let ownerless = 0;
  for (;;) {
    if (done()) return false;
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
    const pid = owner(lock);
    ownerless = pid === undefined ? ownerless + 1 : 0;
    // No pid for 10 s: its maker died between mkdir and writing the pid.
    if ((pid !== undefined && !alive(pid)) || ownerless > 10) {
      ownerless = 0;
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (!told && pid !== undefined) {
      onWait(pid);
      told = true;
    }
    sleep(POLL_MS);
  }
  try {
    writeFileSync(join(lock, "pid"), String(process.pid));
    if (done()) return false;
    work();
    return true;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
