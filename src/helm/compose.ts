// From config/default's objects (as `tsop deploy` reads them) to the chart's files, in memory:
// every object becomes one template in the release namespace, the manager Deployment's image,
// replicas, resources, arguments and WATCH_NAMESPACE come from values, the CRDs and the metrics
// Service sit behind their switches, and a ServiceMonitor is added behind its own. The Namespace of
// config/default is left out: Helm installs into the release's (`--create-namespace`).
import type { KubeObject } from "../kube/objects.js";
import { isCrd } from "../kube/objects.js";
import { splitImage } from "../manifests/index.js";
import { toYaml } from "../common/yaml/write.js";
import { findManager } from "../devloop/project.js";
import { type BlockLines, guarded, Placeholders, yamlLines } from "./template-text.js";
import { type ChartValues, valuesSchema, valuesYaml } from "./values.js";
import { helmMessages } from "./messages.js";
import { InvalidInputError } from "../common/errors.js";

export interface ComposeInput {
  /** config/default's objects, in kustomize's order. */
  objects: KubeObject[];
  /** Chart name (PROJECT's projectName). */
  name: string;
  /** Chart version and appVersion (SemVer). */
  version: string;
  /** The image the values default to. */
  image: string;
}

/** Chart-relative path → content; sorted by path. */
export type ChartFiles = Map<string, string>;

const RELEASE_NAMESPACE = "{{ .Release.Namespace }}";
const IMAGE_ACTION =
  '"{{ .Values.image.repository }}{{ if .Values.image.digest }}@{{ .Values.image.digest }}{{ else }}:{{ .Values.image.tag }}{{ end }}"';
const MANAGED_BY = "app.kubernetes.io/managed-by";
const LEADER_ELECT = "--leader-elect";
const METRICS_ADDRESS = "--metrics-bind-address";
/** Where the manager serves metrics when the values turn them on and config/default turned them off. */
const DEFAULT_METRICS_ADDRESS = ":8443";

export function composeChart(input: ComposeInput): ChartFiles {
  const manager = findManager(input.objects, "config/default");
  const namespace = manager.deployment.metadata.namespace ?? "";
  const values = defaultValues(input, manager.deployment, manager.container);
  const files = new Map<string, string>();
  const add = (path: string, content: string) => {
    if (files.has(path)) throw new InvalidInputError(helmMessages.sameTemplate(path));
    files.set(path, content);
  };

  let metricsService: KubeObject | undefined;
  for (const original of input.objects) {
    if (original.apiVersion === "v1" && original.kind === "Namespace") continue;
    const object = structuredClone(original);
    const ph = new Placeholders();
    const released = inReleaseNamespace(object, namespace, ph) as KubeObject;
    labelForHelm(released, ph);
    if (original === manager.deployment) templateManager(released, ph);
    if (isCrd(released)) {
      released.metadata.annotations = {
        ...released.metadata.annotations,
        [ph.block(() => guarded(".Values.crds.keep", ["helm.sh/resource-policy: keep"]))]: "",
      };
      add(`templates/crd/${released.metadata.name}.yaml`, wrap(".Values.crds.install", ph.render(released)));
      continue;
    }
    const text = ph.render(released);
    if (isMetricsService(original)) {
      metricsService = original;
      add(templatePath(original), wrap(".Values.metrics.enabled", text));
      continue;
    }
    add(templatePath(original), text);
  }
  if (metricsService) {
    add("templates/metrics/servicemonitor.yaml", serviceMonitor(metricsService, namespace));
  }
  add("Chart.yaml", chartYaml(input));
  add("values.yaml", valuesYaml(values));
  add("values.schema.json", `${JSON.stringify(valuesSchema(), null, 2)}\n`);
  add(".helmignore", "# Patterns `helm package` leaves out.\n.git/\n*.tmp\n*.swp\n*~\n");
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function defaultValues(
  input: ComposeInput,
  deployment: KubeObject,
  container: Record<string, unknown>,
): ChartValues {
  const image = splitImage(input.image);
  const args = stringList(container.args);
  const metricsAddress = flagValue(args, METRICS_ADDRESS);
  return {
    image: {
      repository: image.repo,
      tag: image.tag ?? (image.digest ? "" : "latest"),
      digest: image.digest ?? "",
      pullPolicy: typeof container.imagePullPolicy === "string" ? container.imagePullPolicy : "IfNotPresent",
    },
    replicas: typeof deployment.spec?.replicas === "number" ? deployment.spec.replicas : 1,
    resources: (container.resources as Record<string, unknown> | undefined) ?? {},
    watchNamespaces: [],
    leaderElection: { enabled: args.some((a) => a === LEADER_ELECT || a === `${LEADER_ELECT}=true`) },
    metrics: {
      enabled: metricsAddress !== undefined && metricsAddress !== "0",
      serviceMonitor: { enabled: false },
    },
    crds: { install: true, keep: true },
  };
}

function chartYaml(input: ComposeInput): string {
  return toYaml({
    apiVersion: "v2",
    name: input.name,
    description: `The ${input.name} operator, from its config/default (generated by tsop helm).`,
    type: "application",
    version: input.version,
    appVersion: input.version,
  });
}

/** Every string naming config/default's namespace (as a whole, or between `.`, `/` and `:`) names the release's. */
function inReleaseNamespace(value: unknown, namespace: string, ph: Placeholders): unknown {
  if (!namespace) return value;
  const escaped = namespace.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const named = new RegExp(`(?<=^|[./:])${escaped}(?=$|[./:])`, "g");
  let token: string | undefined;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return v.replace(named, () => (token ??= ph.value(RELEASE_NAMESPACE)));
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object")
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}

/** Helm's standard labels on the object itself (never on selectors, which cannot change). */
function labelForHelm(object: KubeObject, ph: Placeholders): void {
  object.metadata.labels = {
    ...object.metadata.labels,
    [MANAGED_BY]: ph.value("{{ .Release.Service }}"),
    "app.kubernetes.io/instance": ph.value("{{ .Release.Name }}"),
    "helm.sh/chart": ph.value('{{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}'),
  };
}

/** The manager Deployment's fields that values set. */
function templateManager(deployment: KubeObject, ph: Placeholders): void {
  const { container } = findManager([deployment], "config/default");
  deployment.spec = { ...deployment.spec, replicas: ph.value("{{ .Values.replicas }}") };
  container.image = ph.value(IMAGE_ACTION);
  container.imagePullPolicy = ph.value("{{ .Values.image.pullPolicy }}");
  const args = stringList(container.args);
  delete container.args;
  container[ph.block(() => argsBlock(args))] = "";
  const env = (Array.isArray(container.env) ? container.env : []) as Array<{ name?: string }>;
  delete container.env;
  container[ph.block(() => envBlock(env.filter((e) => e.name !== "WATCH_NAMESPACE")))] = "";
  delete container.resources;
  container[
    ph.block((indent) => ["resources:", `  {{- toYaml .Values.resources | nindent ${indent + 2} }}`])
  ] = "";
}

function argsBlock(args: string[]): BlockLines {
  const address = flagValue(args, METRICS_ADDRESS);
  const kept = withoutFlag(withoutFlag(args, LEADER_ELECT), METRICS_ADDRESS);
  const metricsOn = address && address !== "0" ? address : DEFAULT_METRICS_ADDRESS;
  return [
    "args:",
    ...guarded(".Values.leaderElection.enabled", [`- ${LEADER_ELECT}`]),
    `- ${METRICS_ADDRESS}={{ if .Values.metrics.enabled }}${metricsOn}{{ else }}0{{ end }}`,
    ...(kept.length ? yamlLines(kept) : []),
  ];
}

function envBlock(env: unknown[]): BlockLines {
  return [
    "env:",
    ...(env.length ? yamlLines(env) : []),
    "{{- with .Values.watchNamespaces }}",
    "- name: WATCH_NAMESPACE",
    '  value: {{ join "," . | quote }}',
    "{{- end }}",
  ];
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

/** The value of `--flag=value` or `--flag value`; undefined when absent. */
function flagValue(args: string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
    if (arg === flag) return args[i + 1] ?? "";
  }
  return undefined;
}

/** args without `--flag`, `--flag=value` and `--flag value` (a value flag's next word goes too). */
function withoutFlag(args: string[], flag: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg.startsWith(`${flag}=`)) continue;
    if (arg === flag) {
      if (flag === METRICS_ADDRESS) i++;
      continue;
    }
    out.push(arg);
  }
  return out;
}

function isMetricsService(object: KubeObject): boolean {
  return (
    object.apiVersion === "v1" && object.kind === "Service" && /metrics/.test(object.metadata.name ?? "")
  );
}

/** templates/<part>/<kind>-<name>.yaml: the part of the operator an object belongs to. */
function templatePath(object: KubeObject): string {
  const group = object.apiVersion.includes("/") ? object.apiVersion.split("/")[0] : "";
  const part =
    group === "rbac.authorization.k8s.io" || object.kind === "ServiceAccount"
      ? "rbac"
      : group === "admissionregistration.k8s.io" || /webhook/.test(object.metadata.name ?? "")
        ? "webhook"
        : group === "cert-manager.io"
          ? "certmanager"
          : isMetricsService(object)
            ? "metrics"
            : object.kind === "Deployment"
              ? "manager"
              : "other";
  return `templates/${part}/${object.kind.toLowerCase()}-${object.metadata.name ?? ""}.yaml`;
}

/** The whole template only when `condition` holds. */
function wrap(condition: string, text: string): string {
  return `{{- if ${condition} }}\n${text}{{- end }}\n`;
}

/** A Prometheus operator ServiceMonitor for the metrics Service: HTTPS with the scraper's token. */
function serviceMonitor(service: KubeObject, namespace: string): string {
  const ph = new Placeholders();
  const port = ((service.spec?.ports ?? []) as Array<{ name?: string }>)[0]?.name ?? "https";
  const labels = Object.fromEntries(
    Object.entries(service.metadata.labels ?? {}).filter(([k]) => k !== MANAGED_BY),
  );
  const monitor: KubeObject = {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "ServiceMonitor",
    metadata: { name: service.metadata.name ?? "", namespace, labels: { ...labels } },
    spec: {
      endpoints: [
        {
          path: "/metrics",
          port,
          scheme: "https",
          bearerTokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token",
          // The manager's metrics certificate is self-signed unless one is mounted.
          tlsConfig: { insecureSkipVerify: true },
        },
      ],
      selector: { matchLabels: labels },
    },
  };
  const released = inReleaseNamespace(monitor, namespace, ph) as KubeObject;
  labelForHelm(released, ph);
  return wrap("and .Values.metrics.enabled .Values.metrics.serviceMonitor.enabled", ph.render(released));
}
