// The bundle as a whole, as operator-framework/api's bundle validator checks it (BDL-01…05): CRD
// versions defined once, owned CRDs present and present CRDs owned, no ServiceAccount OLM creates
// itself, the compressed size OLM can store. Default suite.
import { kindOf, nameOf, podSpecOf, str } from "../../../manifests/index.js";
import type { Finding } from "../../load/types.js";
import type { Check } from "../check.js";
import { crdInfo, csvChecks, deploymentsOf, finding, ownedApis } from "../util.js";

const MAX_COMPRESSED = 1 << 20;

export const BUNDLE_CHECKS: Check[] = [
  {
    id: "BDL-01",
    suite: "default",
    level: "error",
    description: "no CRD version appears twice",
    run: (b) => {
      const seen = new Map<string, string>();
      const out: Finding[] = [];
      for (const m of b.crds) {
        const c = crdInfo(m.object);
        for (const v of c.versions) {
          const gvk = `${c.group}/${str(v.name)}, Kind=${c.kind}`;
          if (seen.has(gvk))
            out.push(
              finding(
                "BDL-01",
                "error",
                `CRD version ${gvk} is defined twice (also in ${seen.get(gvk)}); keep one file per CRD`,
                m.file,
              ),
            );
          else seen.set(gvk, m.file);
        }
      }
      return out;
    },
  },
  {
    suite: "default",
    ...csvChecks("BDL-02", "error", "every owned CRD is in the bundle", (v, b) => {
      const have = new Set(
        b.crds.flatMap((m) => {
          const c = crdInfo(m.object);
          return c.versions.map((ver) => `${c.group}/${str(ver.name)}, Kind=${c.kind}`);
        }),
      );
      return ownedApis(v)
        .filter((a) => a.source.startsWith("spec.customresourcedefinitions"))
        .filter((a) => !have.has(`${a.group}/${a.version}, Kind=${a.kind}`))
        .map((a) =>
          finding(
            "BDL-02",
            "error",
            `${v.name} owns ${a.group}/${a.version}, Kind=${a.kind}, but no CRD in the bundle defines it; add the CRD (tsop generate) or drop the entry`,
            v.file.file,
            `${a.source}[${a.index}]`,
          ),
        );
    }),
  },
  {
    suite: "default",
    ...csvChecks("BDL-03", "error", "every CRD in the bundle is owned by the CSV", (v, b) => {
      const owned = new Set(ownedApis(v).map((a) => `${a.group}/${a.kind}`));
      return b.crds.flatMap((m) => {
        const c = crdInfo(m.object);
        return owned.has(`${c.group}/${c.kind}`)
          ? []
          : [
              finding(
                "BDL-03",
                "error",
                `CRD ${c.group}/${str(c.versions[0]?.name)}, Kind=${c.kind} is in the bundle, but ${v.name} does not own it; add it to spec.customresourcedefinitions.owned (tsop bundle does) or remove the file`,
                m.file,
              ),
            ];
      });
    }),
  },
  {
    suite: "default",
    ...csvChecks(
      "BDL-04",
      "error",
      "no ServiceAccount object duplicates a CSV deployment's service account",
      (v, b) => {
        const accounts = new Set(
          deploymentsOf(v).map((d) =>
            str(podSpecOf({ kind: "Deployment", spec: d.spec })?.serviceAccountName),
          ),
        );
        return b.manifests
          .filter((m) => kindOf(m.object) === "ServiceAccount" && accounts.has(nameOf(m.object)))
          .map((m) =>
            finding(
              "BDL-04",
              "error",
              `ServiceAccount ${nameOf(m.object)} is the account a CSV deployment runs as, which OLM creates itself; remove this file`,
              m.file,
            ),
          );
      },
    ),
  },
  {
    id: "BDL-05",
    suite: "default",
    level: "error",
    description: "the bundle's compressed size stays under 1 MiB (warning above 85%)",
    run: (b) => {
      if (!b.hasManifestsDir || b.manifests.length === 0) return [];
      const { compressed, bytes: size } = b.size;
      if (compressed > MAX_COMPRESSED) {
        return [
          finding(
            "BDL-05",
            "error",
            `the manifests compress to ~${(compressed / 1024 / 1024).toFixed(2)} MiB (${(size / 1024 / 1024).toFixed(2)} MiB uncompressed), over the 1 MiB OLM can store; make them smaller, e.g. shorter CRD descriptions (tsop generate --max-desc-len)`,
            "manifests/",
          ),
        ];
      }
      if (compressed > MAX_COMPRESSED * 0.85) {
        return [
          finding(
            "BDL-05",
            "warning",
            `the manifests compress to ~${(compressed / 1024 / 1024).toFixed(2)} MiB, close to the 1 MiB OLM can store`,
            "manifests/",
          ),
        ];
      }
      return [];
    },
  },
];
