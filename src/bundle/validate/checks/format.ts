// Bundle format, as operator-registry checks it (FMT-01…09): the manifests/ and metadata/
// directories, the required annotations and their values, metadata/dependencies.yaml. Default suite.
import semver from "semver";
import { asArray, isRecord, str } from "../../../manifests/index.js";
import type { Finding } from "../../load/types.js";
import { ANNOTATION } from "../../metadata.js";
import type { Check } from "../check.js";
import { finding } from "../util.js";

const REQUIRED_ANNOTATIONS = [
  ANNOTATION.mediatype,
  ANNOTATION.manifests,
  ANNOTATION.metadata,
  ANNOTATION.package,
  ANNOTATION.channels,
];

export const FORMAT_CHECKS: Check[] = [
  {
    id: "FMT-01",
    suite: "default",
    level: "error",
    description: "the bundle has a manifests/ directory",
    run: (b) =>
      b.hasManifestsDir
        ? []
        : [
            finding(
              "FMT-01",
              "error",
              "the bundle has no manifests/ directory; run `tsop bundle` to write one, or point at the directory that holds manifests/ and metadata/",
              "manifests/",
            ),
          ],
  },
  {
    id: "FMT-02",
    suite: "default",
    level: "error",
    description: "the bundle has a metadata/ directory",
    run: (b) =>
      b.hasMetadataDir
        ? []
        : [
            finding(
              "FMT-02",
              "error",
              "the bundle has no metadata/ directory; run `tsop bundle` to write metadata/annotations.yaml",
              "metadata/",
            ),
          ],
  },
  {
    id: "FMT-03",
    suite: "default",
    level: "error",
    description: "manifests/ holds YAML files",
    run: (b) =>
      b.hasManifestsDir && b.emptyManifests
        ? [
            finding(
              "FMT-03",
              "error",
              "manifests/ holds no YAML file; the ClusterServiceVersion and CRDs belong there (run `tsop bundle`)",
              "manifests/",
            ),
          ]
        : [],
  },
  {
    id: "FMT-04",
    suite: "default",
    level: "error",
    description: "metadata/annotations.yaml holds an annotations map",
    run: (b) =>
      b.hasMetadataDir && !b.annotations
        ? [
            finding(
              "FMT-04",
              "error",
              "metadata/annotations.yaml is missing or has no `annotations:` map; run `tsop bundle` to write it",
              "metadata/annotations.yaml",
            ),
          ]
        : [],
  },
  {
    id: "FMT-05",
    suite: "default",
    level: "error",
    description: "the required bundle annotations are present",
    run: (b) =>
      b.annotations
        ? REQUIRED_ANNOTATIONS.filter((k) => b.annotations?.[k] === undefined).map((k) =>
            finding(
              "FMT-05",
              "error",
              `the ${k} annotation is missing; add it (tsop bundle writes every required annotation)`,
              b.annotationsFile,
              `annotations.${k}`,
            ),
          )
        : [],
  },
  {
    id: "FMT-06",
    suite: "default",
    level: "error",
    description: "the media type annotation matches the manifests",
    run: (b) => {
      const value = b.annotations?.[ANNOTATION.mediatype];
      if (value === undefined || !b.hasManifestsDir || b.emptyManifests) return [];
      const detected = b.csv ? "registry+v1" : "plain";
      return value === detected
        ? []
        : [
            finding(
              "FMT-06",
              "error",
              `media type "${str(value)}" does not fit the content: manifests/ makes this a ${detected} bundle, so set it to "${detected}"`,
              b.annotationsFile,
              `annotations.${ANNOTATION.mediatype}`,
            ),
          ];
    },
  },
  {
    id: "FMT-07",
    suite: "default",
    level: "error",
    description: "channels (and the default channel, when present) are not empty",
    run: (b) => {
      const out: Finding[] = [];
      for (const key of [ANNOTATION.channels, ANNOTATION.defaultChannel]) {
        const value = b.annotations?.[key];
        if (value !== undefined && String(value ?? "").trim() === "") {
          out.push(
            finding(
              "FMT-07",
              "error",
              `the ${key} annotation is empty; ${key === ANNOTATION.channels ? "list at least one channel, e.g. alpha" : "name one of the channels or remove it"}`,
              b.annotationsFile,
              `annotations.${key}`,
            ),
          );
        }
      }
      return out;
    },
  },
  {
    id: "FMT-08",
    suite: "default",
    level: "error",
    description: "metadata/dependencies.yaml entries are well formed",
    run: (b) => {
      if (!b.dependenciesFile) return [];
      const deps = isRecord(b.dependencies) ? asArray(b.dependencies.dependencies) : [];
      const out: Finding[] = [];
      deps.forEach((d, i) => {
        const path = `dependencies[${i}]`;
        const at = (message: string) => {
          out.push(finding("FMT-08", "error", message, b.dependenciesFile, path));
        };
        if (!isRecord(d)) {
          at("is not a mapping; each dependency is {type, value}");
          return;
        }
        const value = isRecord(d.value) ? d.value : {};
        switch (d.type) {
          case "olm.gvk":
            if (!str(value.group)) at("olm.gvk dependency without a group; set value.group");
            if (!str(value.version)) at("olm.gvk dependency without a version; set value.version");
            if (!str(value.kind)) at("olm.gvk dependency without a kind; set value.kind");
            break;
          case "olm.package":
            if (!str(value.packageName))
              at("olm.package dependency without a packageName; set value.packageName");
            if (!str(value.version))
              at('olm.package dependency without a version range; set value.version, e.g. ">=1.0.0"');
            else if (semver.validRange(str(value.version)) === null)
              at(
                `olm.package version range "${str(value.version)}" is not a semver range; write e.g. ">=0.9.0 <1.0.0"`,
              );
            break;
          case "olm.label":
            if (!str(value.label)) at("olm.label dependency without a label; set value.label");
            break;
          case "olm.constraint":
            if (isRecord(value.cel) && !str(value.cel.rule))
              at("olm.constraint with a cel block but no rule; set value.cel.rule");
            break;
          default:
            at(
              `dependency type "${str(d.type)}" is unknown; use olm.gvk, olm.package, olm.label or olm.constraint`,
            );
        }
      });
      return out;
    },
  },
  {
    id: "FMT-09",
    suite: "default",
    level: "error",
    description:
      "manifests/metadata annotations point at the real directories; package set; default channel is a channel",
    run: (b) => {
      const a = b.annotations;
      if (!a) return [];
      const out: Finding[] = [];
      const at = (key: string, message: string) =>
        out.push(finding("FMT-09", "error", message, b.annotationsFile, `annotations.${key}`));
      if (
        a[ANNOTATION.manifests] !== undefined &&
        str(a[ANNOTATION.manifests]).replace(/\/$/, "") !== "manifests"
      ) {
        at(
          ANNOTATION.manifests,
          `is "${str(a[ANNOTATION.manifests])}", but bundle images carry their manifests in manifests/; set it to "manifests/"`,
        );
      }
      if (
        a[ANNOTATION.metadata] !== undefined &&
        str(a[ANNOTATION.metadata]).replace(/\/$/, "") !== "metadata"
      ) {
        at(
          ANNOTATION.metadata,
          `is "${str(a[ANNOTATION.metadata])}", but bundle images carry their metadata in metadata/; set it to "metadata/"`,
        );
      }
      if (a[ANNOTATION.package] !== undefined && !str(a[ANNOTATION.package]).trim()) {
        at(ANNOTATION.package, `the package annotation is empty; set it to the package name`);
      }
      const channels = str(a[ANNOTATION.channels])
        .split(",")
        .map((c) => c.trim());
      const def = str(a[ANNOTATION.defaultChannel]);
      if (def && a[ANNOTATION.channels] !== undefined && !channels.includes(def)) {
        at(
          ANNOTATION.defaultChannel,
          `default channel "${def}" is not one of the channels (${channels.join(", ")})`,
        );
      }
      return out;
    },
  },
];
