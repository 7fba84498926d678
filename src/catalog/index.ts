// File-based catalogs: opm's templates kept in the project → rendered FBC → checked upgrade graph →
// catalog image. One module per step:
//   template.ts         the basic and semver templates (parse, check, the images they name)
//   bundle-source.ts    bundle images read with tsop's bundle loader; bundle-blob.ts their olm.bundle
//   render.ts           template → catalog (semver-channels.ts: the semver template's channels)
//   fbc.ts              the catalog in memory, read from / written to a directory as opm writes it
//   add.ts              `catalog add`: a released bundle into the template
//   graph.ts            the upgrade graph; checks.ts its checks (CAT-nn), previous.ts CAT-15 against
//                       the catalog users have today, crd-safety.ts the CRD schemas along each edge
//                       (CAT-16…18); mermaid.ts its picture
//   image.ts            the catalog image on an opm base, pushed or as an OCI layout
import type { RegistryAccess } from "../bundle/load/index.js";
import type { Reporter } from "../common/reporter.js";
import { registryBundleReader } from "./bundle-source.js";
import { type CatalogFinding, checkCatalogGraph } from "./checks.js";
import { type Catalog, readCatalogDir, serializeCatalog, writeCatalogDir } from "./fbc.js";
import { catalogGraph } from "./graph.js";
import { mermaidGraph } from "./mermaid.js";
import { checkAgainstPrevious } from "./previous.js";
import { renderTemplate } from "./render.js";
import { readTemplate } from "./template.js";

export { addToTemplate, type AddOptions, type AddResult } from "./add.js";
export { CATALOG_CHECKS, type CatalogFinding } from "./checks.js";
export { buildCatalogImage, type CatalogImageOptions, type CatalogImageResult } from "./image.js";
export { DEFAULT_OUTPUT, DEFAULT_TEMPLATE } from "./template.js";
export { registryBundleReader } from "./bundle-source.js";

export interface RenderOptions extends RegistryAccess {
  template: string;
  /** Write <out>/<package>/catalog.yaml; without it, only the YAML stream is returned. */
  out?: string;
  reporter?: Reporter;
}

export async function renderCatalog(
  options: RenderOptions,
): Promise<{ catalog: Catalog; yaml: string; files: string[] }> {
  const { template } = await readTemplate(options.template);
  const catalog = await renderTemplate(template, registryBundleReader(options));
  const files = options.out ? await writeCatalogDir(catalog, options.out) : [];
  return { catalog, yaml: serializeCatalog(catalog), files };
}

export interface ValidateResult {
  findings: CatalogFinding[];
  errors: number;
  warnings: number;
  mermaid: string;
}

/**
 * The checks over a catalog (read from a rendered directory, or rendered from a template first);
 * with `previous` (the FBC directory users have today), also what the change does to their upgrades.
 */
export async function validateCatalog(
  source: { dir: string } | RenderOptions,
  previous?: string,
): Promise<ValidateResult> {
  const catalog = "dir" in source ? await readCatalogDir(source.dir) : (await renderCatalog(source)).catalog;
  const graph = catalogGraph(catalog);
  const findings = [
    ...checkCatalogGraph(graph),
    ...(previous ? checkAgainstPrevious(catalogGraph(await readCatalogDir(previous)), graph) : []),
  ];
  return {
    findings,
    errors: findings.filter((f) => f.level === "error").length,
    warnings: findings.filter((f) => f.level === "warning").length,
    mermaid: mermaidGraph(catalog),
  };
}

export async function catalogMermaid(dir: string): Promise<string> {
  return mermaidGraph(await readCatalogDir(dir));
}

/** One finding per block: level, id, where, message, then the fix. */
export function formatFindings(findings: readonly CatalogFinding[]): string {
  return findings
    .map((f) => {
      const where = f.channel ? `${f.package}/${f.channel}` : f.package;
      return `${f.level} ${f.id} ${where}: ${f.message}\n  fix: ${f.fix}`;
    })
    .join("\n");
}
