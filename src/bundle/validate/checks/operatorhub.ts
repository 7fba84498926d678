// Optional suite "operatorhub", as operator-framework/api's OperatorHub validator checks a CSV
// (OH-01…05): provider, maintainers, links, version, icon.
import { asRecords, isRecord, str } from "../../../manifests/index.js";
import type { Check } from "../check.js";
import { csvChecks, finding } from "../util.js";

export const OPERATORHUB_CHECKS: Check[] = [
  {
    suite: "operatorhub",
    ...csvChecks("OH-01", "error", "spec.provider.name is set", (v) =>
      str(isRecord(v.spec.provider) ? v.spec.provider.name : "").trim()
        ? []
        : [
            finding(
              "OH-01",
              "error",
              "spec.provider.name is not set; name who provides the operator (--provider-name)",
              v.file.file,
              "spec.provider.name",
            ),
          ],
    ),
  },
  {
    suite: "operatorhub",
    ...csvChecks("OH-02", "error", "maintainers have a name and a valid email", (v) =>
      asRecords(v.spec.maintainers).flatMap((m, i) => {
        if (!str(m.name) || !str(m.email))
          return [
            finding(
              "OH-02",
              "error",
              "a maintainer needs both a name and an email",
              v.file.file,
              `spec.maintainers[${i}]`,
            ),
          ];
        return /^[^\s@]+@[^\s@]+$/.test(str(m.email))
          ? []
          : [
              finding(
                "OH-02",
                "error",
                `maintainer email "${str(m.email)}" is not an email address`,
                v.file.file,
                `spec.maintainers[${i}].email`,
              ),
            ];
      }),
    ),
  },
  {
    suite: "operatorhub",
    ...csvChecks("OH-03", "error", "links have a name and a valid URL", (v) =>
      asRecords(v.spec.links).flatMap((l, i) => {
        if (!str(l.name) || !str(l.url))
          return [
            finding("OH-03", "error", "a link needs both a name and a url", v.file.file, `spec.links[${i}]`),
          ];
        try {
          new URL(str(l.url));
          return [];
        } catch {
          return [
            finding(
              "OH-03",
              "error",
              `link url "${str(l.url)}" is not a URL`,
              v.file.file,
              `spec.links[${i}].url`,
            ),
          ];
        }
      }),
    ),
  },
  {
    suite: "operatorhub",
    ...csvChecks("OH-04", "error", "spec.version is set and not 0.0.0", (v) =>
      str(v.spec.version) && str(v.spec.version) !== "0.0.0"
        ? []
        : [
            finding(
              "OH-04",
              "error",
              "spec.version is not set (or is 0.0.0); pass --version to tsop bundle",
              v.file.file,
              "spec.version",
            ),
          ],
    ),
  },
  {
    suite: "operatorhub",
    ...csvChecks("OH-05", "error", "one icon with data and a supported media type", (v) => {
      const icons = asRecords(v.spec.icon);
      if (icons.length === 0)
        return [
          finding(
            "OH-05",
            "warning",
            "the CSV has no icon; add one with --icon <file>",
            v.file.file,
            "spec.icon",
          ),
        ];
      if (icons.length !== 1)
        return [
          finding("OH-05", "error", `spec.icon holds several icons; keep one`, v.file.file, "spec.icon"),
        ];
      const icon = icons[0]!;
      if (!str(icon.base64data) || !str(icon.mediatype))
        return [
          finding(
            "OH-05",
            "error",
            "the icon needs both base64data and mediatype; add it with --icon <file>",
            v.file.file,
            "spec.icon[0]",
          ),
        ];
      return ["image/gif", "image/jpeg", "image/png", "image/svg+xml"].includes(str(icon.mediatype))
        ? []
        : [
            finding(
              "OH-05",
              "error",
              `icon media type "${str(icon.mediatype)}" is not supported; use image/png, image/svg+xml, image/jpeg or image/gif`,
              v.file.file,
              "spec.icon[0].mediatype",
            ),
          ];
    }),
  },
];
