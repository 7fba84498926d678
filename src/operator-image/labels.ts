// The OCI annotations an image carries as labels: where its source lives (package.json's
// repository, else git's origin, with any credentials stripped), the commit it was built from, the
// project's version, and the base it was built on (by digest).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { InvalidInputError } from "../common/errors.js";

export interface ProjectPackage {
  name: string;
  version: string | undefined;
  repository: string | undefined;
}

export async function readProjectPackage(project: string): Promise<ProjectPackage> {
  const file = join(project, "package.json");
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
  } catch (error) {
    throw new InvalidInputError(
      `${file} cannot be read as JSON: ${(error as Error).message.split("\n")[0]}`,
      {
        location: { file },
        hint: "Run tsop image build in the project directory (the one with package.json), or pass --dir.",
      },
    );
  }
  const repo = json.repository;
  const repository =
    typeof repo === "string"
      ? repo
      : typeof (repo as { url?: unknown })?.url === "string"
        ? (repo as { url: string }).url
        : undefined;
  return {
    name: typeof json.name === "string" ? json.name : "app",
    version: typeof json.version === "string" ? json.version : undefined,
    repository,
  };
}

/** Drops user:password@ from a URL so a token in a remote never ends up in an image. */
export function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1");
}

async function git(project: string, args: string[]): Promise<string | undefined> {
  const result = await execa("git", args, { cwd: project, reject: false }).catch(() => undefined);
  const out = result?.exitCode === 0 ? String(result.stdout).trim() : "";
  return out || undefined;
}

export async function imageLabels(
  project: string,
  pkg: ProjectPackage,
  base: { name: string; digest: string },
): Promise<Record<string, string>> {
  const inGit = (await git(project, ["rev-parse", "--is-inside-work-tree"])) === "true";
  const source =
    pkg.repository ?? (inGit ? await git(project, ["config", "--get", "remote.origin.url"]) : undefined);
  const revision = inGit ? await git(project, ["rev-parse", "HEAD"]) : undefined;
  const labels: Record<string, string> = {
    "org.opencontainers.image.base.digest": base.digest,
    "org.opencontainers.image.base.name": base.name,
    "org.opencontainers.image.title": pkg.name,
  };
  if (source) labels["org.opencontainers.image.source"] = withoutCredentials(source.replace(/^git\+/, ""));
  if (revision) labels["org.opencontainers.image.revision"] = revision;
  if (pkg.version) labels["org.opencontainers.image.version"] = pkg.version;
  return Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
}
