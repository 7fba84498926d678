// Reusing a version's schema from the last analysis: after an edit, only the kinds the edit can
// reach are built again. A version's flattened schema is a function of the text of the files its
// class's file reaches through imports (module specifiers, import types, augmentations: program.ts
// records what each resolved to), of every file with global effects (a script, `declare global`,
// `declare module`), and of the compiler options; each record carries a digest of all that. A
// record is used only when the digest is unchanged and the analysis that made it reported nothing:
// a schema built with problems may have reported one on behalf of others (a shared type is built,
// and reported, once), so a run after problems builds everything again.
import { createHash } from "node:crypto";
import type TS from "typescript";
import { ts } from "../compiler.js";
import { isTsopFile, isTypeScriptLibFile, type LoadedProgram } from "../program.js";
import type { Schema } from "../schema-types.js";
import type { ResourceVersion } from "./collect.js";

/** One version's schema, as the generate cache stores it. */
export interface SchemaRecord {
  /** The class: `<file>:<position>:<kind>`. */
  version: string;
  /** Digest of everything the schema depends on. */
  inputs: string;
  /** The schema as JSON. */
  schema: string;
}

const GLOBAL_EFFECT = /\bdeclare\s+(global|module)\b/;

export class SchemaReuse {
  private readonly previous: Map<string, SchemaRecord>;
  private readonly made: SchemaRecord[] = [];
  private readonly fileDigests = new Map<string, string>();
  private globalFiles: string[] | undefined;
  private readonly options: string;

  /** `previous`: the last analysis's records, when it reported no problem (else pass none). */
  constructor(
    private readonly loaded: LoadedProgram,
    previous: readonly SchemaRecord[],
  ) {
    this.previous = new Map(previous.map((r) => [r.version, r]));
    this.options = JSON.stringify(loaded.program.getCompilerOptions(), (key, value: unknown) =>
      key === "configFile" ? undefined : value,
    );
  }

  /** The version's schema: the last analysis's when nothing it depends on changed, else `build()`'s. */
  schemaOf(r: ResourceVersion, build: () => Schema): Schema {
    const sf = r.cls.getSourceFile();
    const version = `${sf.fileName}:${r.cls.pos}:${r.kind}`;
    const inputs = this.inputsDigest(sf);
    const last = this.previous.get(version);
    if (last?.inputs === inputs) {
      this.made.push(last);
      return JSON.parse(last.schema) as Schema;
    }
    const schema = build();
    const json = plainJson(schema);
    if (json !== undefined) this.made.push({ version, inputs, schema: json });
    return schema;
  }

  /** The records of this analysis, for the next. */
  records(): SchemaRecord[] {
    return this.made;
  }

  private inputsDigest(from: TS.SourceFile): string {
    const hash = createHash("sha256").update(this.options);
    for (const file of this.closure(from.fileName)) {
      hash.update(`\0${file}\0${isTsopFile(file) ? "tsop" : ""}\0${this.fileDigest(file)}`);
    }
    return hash.digest("base64url");
  }

  /** The files `start` and every file of global effect reach through imports, sorted. */
  private closure(start: string): string[] {
    const seen = new Set<string>();
    const queue = [start, ...this.globals()];
    while (queue.length) {
      const file = queue.pop() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const target of this.loaded.imports.get(file) ?? []) queue.push(target);
    }
    return [...seen].sort();
  }

  private globals(): string[] {
    this.globalFiles ??= this.loaded.program
      .getSourceFiles()
      .filter(
        (sf) =>
          !isTypeScriptLibFile(sf.fileName) && (!ts.isExternalModule(sf) || GLOBAL_EFFECT.test(sf.text)),
      )
      .map((sf) => sf.fileName);
    return this.globalFiles;
  }

  private fileDigest(file: string): string {
    let digest = this.fileDigests.get(file);
    if (digest === undefined) {
      const text = this.loaded.program.getSourceFile(file)?.text;
      digest = text === undefined ? "absent" : createHash("sha256").update(text).digest("base64url");
      this.fileDigests.set(file, digest);
    }
    return digest;
  }
}

/** The schema as JSON, or undefined when JSON cannot hold it as it is (a NaN or Infinity). */
function plainJson(schema: Schema): string | undefined {
  let plain = true;
  const json = JSON.stringify(schema, (_key, value: unknown) => {
    if (typeof value === "number" && !Number.isFinite(value)) plain = false;
    return value;
  });
  return plain ? json : undefined;
}
