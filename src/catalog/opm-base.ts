// Whether a base image can serve a catalog. A catalog image runs `opm serve /configs`, so its base
// must start opm: quay.io/operator-framework/opm or a mirror of it. Read from the base's config (no
// layer is pulled): a Node or distroless base would give an image that builds and pushes fine and
// then cannot serve anything.
import { posix } from "node:path";
import { InvalidInputError } from "../common/errors.js";
import { type BasePlatformImage, platformName } from "../operator-image/base.js";

/** The opm binary the base starts (its entrypoint, else the first word of its command). */
export function opmPath(base: string, image: BasePlatformImage): string {
  const run = (image.config.config ?? {}) as { Entrypoint?: unknown; Cmd?: unknown };
  const words = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);
  const entrypoint = words(run.Entrypoint);
  const first = entrypoint[0] ?? words(run.Cmd)[0];
  if (first !== undefined && posix.basename(first) === "opm") return first;
  throw new InvalidInputError(
    `the catalog's base ${base} cannot serve a catalog: its entrypoint is ${JSON.stringify(entrypoint)}, ` +
      `not opm (${platformName(image.platform)})`,
    {
      hint:
        "A catalog image runs `opm serve /configs`. Build it on opm's image or a mirror of it: pass " +
        "--base <ref> or set TSOP_CATALOG_BASE (on the test bed, `npm run cluster` prints its `opm base:`).",
    },
  );
}
