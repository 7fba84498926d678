// Image references (RI-01): relatedImages, the CSV deployments' container images and the
// containerImage annotation are pull specs by distribution's reference grammar. Default suite.
import { imageReferenceProblem } from "../../../oci/reference.js";
import { asRecords, isRecord, str } from "../../../manifests/index.js";
import type { Check } from "../check.js";
import { csvChecks, finding, validPullSpec } from "../util.js";
import { webhookDefinitionFindings } from "./csv-webhooks.js";

/** Container images of the CSV's deployments and the containerImage annotation: [field path, image]. */
function csvImageSites(csv: Record<string, unknown>): Array<[string, string]> {
  const sites: Array<[string, string]> = [];
  const meta = isRecord(csv.metadata) ? csv.metadata : {};
  const annotation = isRecord(meta.annotations) ? meta.annotations.containerImage : undefined;
  if (typeof annotation === "string" && annotation !== "")
    sites.push(["metadata.annotations.containerImage", annotation]);
  const spec = isRecord(csv.spec) ? csv.spec : {};
  const install = isRecord(spec.install) && isRecord(spec.install.spec) ? spec.install.spec : {};
  asRecords(install.deployments).forEach((d, i) => {
    const pod =
      isRecord(d.spec) && isRecord(d.spec.template) && isRecord(d.spec.template.spec)
        ? d.spec.template.spec
        : {};
    for (const list of ["initContainers", "containers"]) {
      asRecords(pod[list]).forEach((c, j) => {
        if (typeof c.image === "string")
          sites.push([`spec.install.spec.deployments[${i}].spec.template.spec.${list}[${j}].image`, c.image]);
      });
    }
  });
  return sites;
}

export const RELATED_IMAGE_CHECKS: Check[] = [
  {
    suite: "default",
    ...csvChecks(
      "CSV-16",
      "error",
      "webhook definitions name a deployment, a port, a path, review versions, side effects and rules or owned CRDs",
      (v) => webhookDefinitionFindings(v),
    ),
  },
  {
    suite: "default",
    ...csvChecks(
      "RI-01",
      "error",
      "relatedImages, container images and containerImage are valid image references",
      (v) => [
        ...asRecords(v.spec.relatedImages).flatMap((r, i) => {
          const image = str(r.image);
          const path = `spec.relatedImages[${i}].image`;
          if (!image)
            return [
              finding(
                "RI-01",
                "error",
                `spec.relatedImages[${i}] has no image; give a pull spec or remove the entry`,
                v.file.file,
                path,
              ),
            ];
          return validPullSpec(image)
            ? []
            : [
                finding(
                  "RI-01",
                  "error",
                  `"${image}" is not an image reference; write registry/repository:tag or registry/repository@sha256:<digest>`,
                  v.file.file,
                  path,
                ),
              ];
        }),
        ...csvImageSites(v.csv).flatMap(([path, image]) => {
          const problem = imageReferenceProblem(image);
          return problem
            ? [finding("RI-01", "error", `invalid image reference "${image}": ${problem}`, v.file.file, path)]
            : [];
        }),
      ],
    ),
  },
];
