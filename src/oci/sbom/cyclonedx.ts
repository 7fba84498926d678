// The operator image's SBOM in CycloneDX 1.6 JSON: every package `npm ci --omit=dev` installs from
// the lockfile (name, version, licence, integrity hash, purl), the base image by digest, and the
// project as the BOM's subject. Written against the CycloneDX 1.6 JSON schema rather than with
// @cyclonedx/cyclonedx-library: the fields used are few and plain, and that library (1.4 MB with
// its optional validators) would load into the bundled CLI for one JSON object; the fast tier
// validates the output against the official schema (test/oci/sbom.test.ts). Deterministic: the
// serial number is derived from the content, and the timestamp is SOURCE_DATE_EPOCH's (else none).
import { createHash } from "node:crypto";
import { InvalidInputError } from "../../common/errors.js";

export const CYCLONEDX_MEDIA_TYPE = "application/vnd.cyclonedx+json";

interface LockPackage {
  version?: string;
  resolved?: string;
  integrity?: string;
  license?: string;
  dev?: boolean;
  link?: boolean;
  os?: string[];
  cpu?: string[];
  name?: string;
}

export interface SbomInput {
  /** package-lock.json's text. */
  lockfile: string;
  lockfilePath: string;
  /** The project (package.json name and version). */
  project: { name: string; version: string };
  /** The base image: repository (registry/repo) and manifest digest. */
  base: { repository: string; digest: string };
  /** The platform npm installed for (optional packages with os/cpu lists are filtered by it). */
  platform: { os: string; cpu: string };
  tool: { version: string };
  /** SOURCE_DATE_EPOCH (seconds), for metadata.timestamp. */
  epoch?: number;
}

export interface SbomComponent {
  type: "library" | "container" | "application" | "file";
  "bom-ref": string;
  group?: string;
  name: string;
  version?: string;
  purl?: string;
  licenses?: Array<{ expression: string }>;
  hashes?: Array<{ alg: string; content: string }>;
}

const HASH_ALGORITHMS: Record<string, string> = {
  sha512: "SHA-512",
  sha384: "SHA-384",
  sha256: "SHA-256",
  sha1: "SHA-1",
};

function npmPurl(name: string, version: string): string {
  const [group, local] = name.startsWith("@") ? (name.split("/") as [string, string]) : [undefined, name];
  const path = group
    ? `${encodeURIComponent(group)}/${encodeURIComponent(local)}`
    : encodeURIComponent(local);
  return `pkg:npm/${path}@${encodeURIComponent(version)}`;
}

/** npm's `integrity` (SRI, possibly several) → CycloneDX hashes in hex. */
function hashes(integrity: string | undefined): SbomComponent["hashes"] {
  if (!integrity) return undefined;
  const result = integrity
    .split(/\s+/)
    .map((sri) => /^(sha\d+)-(.+)$/.exec(sri))
    .filter((m): m is RegExpExecArray => m !== null && HASH_ALGORITHMS[m[1]!] !== undefined)
    .map((m) => ({ alg: HASH_ALGORITHMS[m[1]!]!, content: Buffer.from(m[2]!, "base64").toString("hex") }));
  return result.length ? result : undefined;
}

/** npm's os/cpu lists: "linux", "!win32"; an empty or missing list allows all. */
function allows(list: string[] | undefined, value: string): boolean {
  if (!list?.length) return true;
  const denied = list.filter((e) => e.startsWith("!")).map((e) => e.slice(1));
  const allowed = list.filter((e) => !e.startsWith("!"));
  return !denied.includes(value) && (allowed.length === 0 || allowed.includes(value));
}

/** The production packages of a lockfile (v2/v3 `packages`), as npm ci --omit=dev installs them. */
export function productionPackages(
  input: Pick<SbomInput, "lockfile" | "lockfilePath" | "platform">,
): SbomComponent[] {
  let lock: { lockfileVersion?: number; packages?: Record<string, LockPackage> };
  try {
    lock = JSON.parse(input.lockfile) as typeof lock;
  } catch (error) {
    throw new InvalidInputError(`${input.lockfilePath} is not JSON: ${(error as Error).message}`);
  }
  if (!lock.packages) {
    throw new InvalidInputError(
      `${input.lockfilePath} has no "packages" (lockfileVersion ${lock.lockfileVersion ?? "?"})`,
      {
        hint: "Regenerate it with npm 7 or newer (npm install --package-lock-only).",
      },
    );
  }
  const byRef = new Map<string, SbomComponent>();
  for (const [path, pkg] of Object.entries(lock.packages)) {
    if (path === "" || pkg.dev || pkg.link || !pkg.version) continue;
    if (!allows(pkg.os, input.platform.os) || !allows(pkg.cpu, input.platform.cpu)) continue;
    const name = pkg.name ?? path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
    const purl = npmPurl(name, pkg.version);
    if (byRef.has(purl)) continue; // the same package at several paths is one component
    const [group, local] = name.startsWith("@") ? (name.split("/") as [string, string]) : [undefined, name];
    const digests = hashes(pkg.integrity);
    byRef.set(purl, {
      type: "library",
      "bom-ref": purl,
      ...(group ? { group } : {}),
      name: local,
      version: pkg.version,
      purl,
      ...(pkg.license ? { licenses: [{ expression: pkg.license }] } : {}),
      ...(digests ? { hashes: digests } : {}),
    });
  }
  return [...byRef.values()].sort((a, b) => compareRefs(a["bom-ref"], b["bom-ref"]));
}

export function compareRefs(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The purl of an OCI image: `pkg:oci/<name>@<digest>?repository_url=<registry/repository>`, and a tag qualifier without a digest. */
export function ociPurl(repository: string, digest: string | undefined, tag?: string): string {
  const name = repository.slice(repository.lastIndexOf("/") + 1);
  const version = digest ? `@${encodeURIComponent(digest)}` : "";
  const tagged = !digest && tag ? `&tag=${encodeURIComponent(tag)}` : "";
  return `pkg:oci/${encodeURIComponent(name)}${version}?repository_url=${encodeURIComponent(repository)}${tagged}`;
}

/** An image as a `container` component: by digest when the reference carries one (with its SHA-256), else by tag. */
export function imageComponent(repository: string, digest: string | undefined, tag?: string): SbomComponent {
  const purl = ociPurl(repository, digest, tag);
  return {
    type: "container",
    "bom-ref": purl,
    name: repository,
    version: digest ?? tag ?? "latest",
    purl,
    ...(digest?.startsWith("sha256:") ? { hashes: [{ alg: "SHA-256", content: digest.slice(7) }] } : {}),
  };
}

export interface BomInput {
  /** What the BOM describes (metadata.component). */
  subject: SbomComponent;
  components: SbomComponent[];
  /** The bom-refs the subject depends on (default: every component's). */
  dependsOn?: string[];
  tool: { version: string };
  epoch?: number;
}

/** Any CycloneDX 1.6 BOM tsop writes, as bytes (2-space JSON, newline-terminated): the same inputs give the same bytes. */
export function cyclonedxDocument(input: BomInput): Buffer {
  const body = {
    metadata: {
      ...(input.epoch !== undefined ? { timestamp: new Date(input.epoch * 1000).toISOString() } : {}),
      tools: { components: [{ type: "application", name: "tsop", version: input.tool.version }] },
      component: input.subject,
    },
    components: input.components,
    dependencies: [
      {
        ref: input.subject["bom-ref"],
        dependsOn: input.dependsOn ?? input.components.map((c) => c["bom-ref"]),
      },
    ],
  };
  // A serial number from the content (UUID layout, version nibble 5 as for name-based UUIDs).
  const hex = createHash("sha256").update(JSON.stringify(body)).digest("hex");
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  const bom = {
    $schema: "http://cyclonedx.org/schema/bom-1.6.schema.json",
    bomFormat: "CycloneDX",
    specVersion: "1.6",
    serialNumber: `urn:uuid:${uuid}`,
    version: 1,
    ...body,
  };
  return Buffer.from(`${JSON.stringify(bom, null, 2)}\n`);
}

/** The operator image's BOM: the base by digest, then the production packages. */
export function cyclonedxSbom(input: SbomInput): Buffer {
  const packages = productionPackages(input);
  const base = imageComponent(input.base.repository, input.base.digest);
  return cyclonedxDocument({
    subject: {
      type: "application",
      "bom-ref": npmPurl(input.project.name, input.project.version),
      name: input.project.name,
      version: input.project.version,
      purl: npmPurl(input.project.name, input.project.version),
    },
    components: [base, ...packages],
    tool: input.tool,
    ...(input.epoch !== undefined ? { epoch: input.epoch } : {}),
  });
}
