// `tsop generate types`: TypeScript types for a CRD tsop did not write (cert-manager's
// Certificate, another team's kinds), as kube-rs' kopium and Pepr's `kfc crd` do for Rust and Pepr.
// Stages: read.ts (the CRD from a file, or from the cluster through kube/connect.ts; checked,
// served versions only) → schema-to-type.ts (each version's schema → interfaces, named by
// naming.ts) → emit.ts (one file per CRD: header, object type, KindRef constant, field types) →
// every file written at once through common/fs.ts's writeFilesAtomic (any error: nothing written),
// or with `check` nothing written and the drift returned as unified diffs.
import { basename, isAbsolute, join, relative, resolve } from "node:path";
import { InvalidInputError } from "../../common/errors.js";
import { readFile } from "../../common/fs.js";
import { writeFilesAtomic } from "../../common/fs.js";
import { unifiedDiff } from "../../common/output/diff.js";
import type { Reporter } from "../../common/reporter.js";
import { type ClusterOptions, connect } from "../../kube/connect.js";
import { emitCrdTypes, typesFileName } from "./emit.js";
import { type CrdInput, crdFromObject, readCrdFile } from "./read.js";

export { emitCrdTypes, objectTypeName, typesFileName } from "./emit.js";
export { type CrdInput, crdFromObject } from "./read.js";

export interface GenerateTypesOptions {
  cwd: string;
  /** CRD manifest files (each may hold several CRDs). */
  fromCrd?: string[];
  /** Names of CRDs to read from the current kubeconfig's cluster (`certificates.cert-manager.io`). */
  fromCluster?: string[];
  /** Output directory (default: the working directory). */
  out?: string;
  /** How to reach the cluster for fromCluster (kubeconfig flags). */
  cluster?: Omit<ClusterOptions, "reporter">;
  /** Write nothing; return the drift of the files on disk (CI's "are the types current?"). */
  check?: boolean;
}

export interface GenerateTypesResult {
  files: GeneratedTypesFile[];
  /** With `check`: a unified diff per file that is missing or differs (empty when up to date). */
  drift: string;
  /** With `check`: how many files are missing or differ. */
  changed: number;
}

export interface GeneratedTypesFile {
  /** Relative to cwd. */
  path: string;
  action: "created" | "updated" | "unchanged";
  crd: string;
}

const CRD_API_VERSION = "apiextensions.k8s.io/v1";

/** Reads every CRD asked for, renders them all, then writes them as one set. */
export async function generateTypes(
  options: GenerateTypesOptions,
  reporter: Reporter,
): Promise<GenerateTypesResult> {
  const files = options.fromCrd ?? [];
  const names = options.fromCluster ?? [];
  if (files.length === 0 && names.length === 0)
    throw new InvalidInputError("nothing to generate types from", {
      hint: "pass --from-crd <file> or --from-cluster <crd name>",
    });
  const crds: CrdInput[] = [];
  for (const file of files) {
    // The header names the file, never an absolute path, so output does not depend on where it ran.
    crds.push(...(await readCrdFile(resolve(options.cwd, file), isAbsolute(file) ? basename(file) : file)));
  }
  if (names.length > 0) crds.push(...(await readFromCluster(names, options, reporter)));
  const byFile = new Map<string, CrdInput>();
  for (const crd of crds) {
    const earlier = byFile.get(typesFileName(crd));
    if (earlier)
      throw new InvalidInputError(
        `the CustomResourceDefinition ${crd.name} is given twice (${earlier.source} and ${crd.source})`,
      );
    byFile.set(typesFileName(crd), crd);
  }
  const outDir = resolve(options.cwd, options.out ?? ".");
  const planned = [...byFile].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const writes = planned.map(([fileName, crd]) => ({
    path: join(outDir, fileName),
    data: emitCrdTypes(crd),
    crd,
  }));
  const result: GeneratedTypesFile[] = [];
  const drift: string[] = [];
  for (const write of writes) {
    const before = await readFile(write.path, "utf8").catch(() => undefined);
    const action = before === undefined ? "created" : before === write.data ? "unchanged" : "updated";
    const path = relative(options.cwd, write.path);
    result.push({ path, action, crd: write.crd.name });
    if (action !== "unchanged") drift.push(unifiedDiff(path, before, write.data));
  }
  if (options.check) {
    if (drift.length === 0) reporter.success(`the types of ${result.length} CRD(s) are up to date`);
    return { files: result, drift: drift.join(""), changed: drift.length };
  }
  await writeFilesAtomic(
    writes.filter((_, i) => result[i]!.action !== "unchanged").map(({ path, data }) => ({ path, data })),
  );
  for (const file of result) reporter.success(`${file.action} ${file.path} (${file.crd})`);
  return { files: result, drift: "", changed: 0 };
}

async function readFromCluster(
  names: string[],
  options: GenerateTypesOptions,
  reporter: Reporter,
): Promise<CrdInput[]> {
  const { client, owned } = await connect({ ...options.cluster, reporter });
  try {
    const crds: CrdInput[] = [];
    for (const name of names) {
      const object = await client.get({
        apiVersion: CRD_API_VERSION,
        kind: "CustomResourceDefinition",
        name,
      });
      if (!object)
        throw new InvalidInputError(`the cluster has no CustomResourceDefinition ${name}`, {
          hint: "list them with `kubectl get crd`; the name is <plural>.<group>, e.g. certificates.cert-manager.io",
        });
      crds.push(crdFromObject(object, `the cluster's CustomResourceDefinition ${name}`, "the cluster"));
    }
    return crds;
  } finally {
    if (owned) client.close();
  }
}
