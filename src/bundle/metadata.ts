// bundle/metadata/annotations.yaml and bundle.Dockerfile: the same labels in two syntaxes
// (operator-sdk §2.12), kept in sync because both are rendered from one list.
import { isAbsolute, relative } from "node:path";
import { tsopVersion } from "../common/version.js";
import { yamlScalar } from "../common/yaml/write.js";

export interface MetadataOptions {
  packageName: string;
  channels: string[];
  defaultChannel: string | undefined;
  layout: string;
  scorecard: boolean;
  /** Extra labels from the bundle config (e.g. com.redhat.openshift.versions). */
  labels: Record<string, string>;
}

export const ANNOTATION = {
  mediatype: "operators.operatorframework.io.bundle.mediatype.v1",
  manifests: "operators.operatorframework.io.bundle.manifests.v1",
  metadata: "operators.operatorframework.io.bundle.metadata.v1",
  package: "operators.operatorframework.io.bundle.package.v1",
  channels: "operators.operatorframework.io.bundle.channels.v1",
  defaultChannel: "operators.operatorframework.io.bundle.channel.default.v1",
  testMediatype: "operators.operatorframework.io.test.mediatype.v1",
  testConfig: "operators.operatorframework.io.test.config.v1",
} as const;

export function builderName(): string {
  return `tsop-v${tsopVersion()}`;
}

interface Section {
  comment: string;
  labels: Array<[string, string]>;
}

function sections(options: MetadataOptions): Section[] {
  const core: Array<[string, string]> = [
    [ANNOTATION.mediatype, "registry+v1"],
    [ANNOTATION.manifests, "manifests/"],
    [ANNOTATION.metadata, "metadata/"],
    [ANNOTATION.package, options.packageName],
    [ANNOTATION.channels, options.channels.join(",")],
  ];
  if (options.defaultChannel) core.push([ANNOTATION.defaultChannel, options.defaultChannel]);
  const metrics: Array<[string, string]> = [
    ["operators.operatorframework.io.metrics.builder", builderName()],
    ["operators.operatorframework.io.metrics.mediatype.v1", "metrics+v1"],
    ["operators.operatorframework.io.metrics.project_layout", options.layout],
  ];
  metrics.sort(([a, x], [b, y]) => (`${a}=${x}` < `${b}=${y}` ? -1 : 1));
  const out: Section[] = [{ comment: "Core bundle", labels: [...core, ...metrics] }];
  const custom = Object.entries(options.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (custom.length > 0) out.push({ comment: "Custom", labels: custom });
  if (options.scorecard) {
    out.push({
      comment: "testing",
      labels: [
        [ANNOTATION.testMediatype, "scorecard+v1"],
        [ANNOTATION.testConfig, "tests/scorecard/"],
      ],
    });
  }
  return out;
}

export function annotationsYaml(options: MetadataOptions): string {
  const lines = ["annotations:"];
  sections(options).forEach((section, i) => {
    if (i > 0) lines.push("");
    const title =
      section.comment === "testing" ? "  # Annotations for testing." : `  # ${section.comment} annotations.`;
    lines.push(title);
    for (const [k, v] of section.labels) lines.push(`  ${k}: ${yamlScalar(v)}`);
  });
  return `${lines.join("\n")}\n`;
}

function dockerValue(value: string): string {
  return /^[\w./+,:-]+$/.test(value) ? value : JSON.stringify(value);
}

/** The Dockerfile lives in cwd; COPY paths are the output dir relative to it. */
export function bundleDockerfile(options: MetadataOptions, cwd: string, outputDir: string): string {
  const dir =
    (isAbsolute(outputDir) ? relative(cwd, outputDir) : outputDir).replace(/\\/g, "/").replace(/\/$/, "") ||
    ".";
  const lines = ["FROM scratch", ""];
  sections(options).forEach((section, i) => {
    if (i > 0) lines.push("");
    lines.push(
      section.comment === "testing"
        ? "# Labels for testing."
        : `# ${section.comment} bundle labels.`.replace("Core bundle bundle", "Core bundle"),
    );
    for (const [k, v] of section.labels) lines.push(`LABEL ${k}=${dockerValue(v)}`);
  });
  lines.push("", "# Copy files to locations specified by labels.");
  lines.push(`COPY ${dir}/manifests /manifests/`, `COPY ${dir}/metadata /metadata/`);
  if (options.scorecard) lines.push(`COPY ${dir}/tests/scorecard /tests/scorecard/`);
  return `${lines.join("\n")}\n`;
}
