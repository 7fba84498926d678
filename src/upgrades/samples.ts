// The custom resources an upgrade test applies: every YAML document under the samples directory
// (config/samples, or --fixtures), kustomization.yaml aside. Each must name its apiVersion, kind and
// metadata.name; a bad one is refused naming the file and document before any cluster work.
import { join, relative } from "node:path";
import { InvalidInputError } from "../common/errors.js";
import { readdir, readFile } from "../common/fs.js";
import { readYamlValues } from "../common/yaml/read-values.js";
import type { KubeObject } from "../kube/objects.js";

export interface Sample {
  /** Where it was read, "config/samples/x.yaml#1". */
  source: string;
  object: KubeObject;
}

/** "Memcached memcached-sample", how messages name a sample. */
export const sampleName = (s: Sample): string => `${s.object.kind} ${s.object.metadata.name ?? ""}`;

async function yamlFiles(dir: string, out: string[]): Promise<void> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await yamlFiles(path, out);
    else if (/\.ya?ml$/.test(entry.name) && !/^kustomization\.ya?ml$/.test(entry.name)) out.push(path);
  }
}

export async function readSamples(dir: string): Promise<Sample[]> {
  const files: string[] = [];
  try {
    await yamlFiles(dir, files);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    throw new InvalidInputError(`samples directory ${dir} does not exist`, {
      hint: "Run in the project (config/samples, written by tsop create api), or pass --fixtures <dir>.",
    });
  }
  const samples: Sample[] = [];
  for (const file of files) {
    const shown = relative(process.cwd(), file) || file;
    let index = 0;
    for (const value of readYamlValues(await readFile(file, "utf8"), {
      where: shown,
      onSyntaxError: (e) => new InvalidInputError(`${shown}: not valid YAML: ${e.message.split("\n")[0]}`),
    })) {
      index++;
      if (value === null || value === undefined) continue;
      const source = `${shown}#${index}`;
      const o = value as Partial<KubeObject>;
      if (typeof o !== "object" || !o.apiVersion || !o.kind || !o.metadata?.name)
        throw new InvalidInputError(`${source}: a sample needs apiVersion, kind and metadata.name`, {
          hint: "Each document under the samples directory is one custom resource the test applies.",
        });
      samples.push({ source, object: o as KubeObject });
    }
  }
  if (samples.length === 0)
    throw new InvalidInputError(`${dir} holds no sample (no YAML document besides kustomization.yaml)`, {
      hint: "An upgrade test needs at least one custom resource to carry across the upgrade.",
    });
  return samples;
}
