// Makes a directory read-only for the rest of the test, in a way that holds for root too: root
// ignores permission bits, so as root the directory is bind-mounted onto itself and remounted
// read-only (EROFS); as a normal user its mode becomes 0555 (EACCES). Undone when the test ends.
import { execFileSync } from "node:child_process";
import { chmod } from "node:fs/promises";
import { onTestFinished } from "vitest";

export const isRoot = process.getuid?.() === 0;

export async function makeReadOnly(dir: string): Promise<"EROFS" | "EACCES"> {
  if (isRoot) {
    execFileSync("mount", ["--bind", dir, dir]);
    execFileSync("mount", ["-o", "remount,ro,bind", dir]);
    onTestFinished(() => {
      execFileSync("umount", [dir]);
    });
    return "EROFS";
  }
  await chmod(dir, 0o555);
  onTestFinished(() => chmod(dir, 0o755));
  return "EACCES";
}

/** A tmpfs of `kib` KiB mounted at dir (root only), to run out of space in. */
export function mountTinyTmpfs(dir: string, kib: number): void {
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${kib}k`, "tmpfs", dir]);
  onTestFinished(() => {
    execFileSync("umount", [dir]);
  });
}
