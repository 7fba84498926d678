// Manager flags, as a scaffolded operator's main.ts accepts them (names follow operator-sdk's Go
// main.go so deployment manifests look familiar). Environment: KUBECONFIG, WATCH_NAMESPACE,
// LOG_LEVEL, LOG_FORMAT, ENABLE_WEBHOOKS.
import { parseArgs } from "node:util";
import { UsageError } from "../../common/errors.js";
import { parseDuration } from "../../common/duration.js";
import { isLogLevel, type LogFormat, type LoggerOptions } from "../log/logger.js";
import type { ManagerOptions } from "./manager.js";

export const MANAGER_FLAGS_HELP = `Flags:
  --kubeconfig <file>                  kubeconfig file (default: KUBECONFIG, in-cluster, ~/.kube/config)
  --context <name>                     kubeconfig context to use
  --namespace <ns[,ns...]>             only watch these namespaces, comma-separated
                                       (env WATCH_NAMESPACE; default: all)
  --metrics-bind-address <addr>        address of /metrics (default ":8443", ":8080" with
                                       --metrics-secure=false; "0" disables)
  --metrics-secure[=true|false]        serve /metrics over HTTPS to callers the API server authenticates
                                       and authorizes (TokenReview, SubjectAccessReview; default true);
                                       --metrics-secure=false serves plain HTTP to anyone
  --metrics-cert-path <dir>            directory of the metrics serving certificate, watched for rotation
                                       (default: a self-signed certificate made at start)
  --metrics-cert-name <file>           certificate file in that directory (default tls.crt)
  --metrics-cert-key <file>            key file in that directory (default tls.key)
  --health-probe-bind-address <addr>   address of /healthz and /readyz (default ":8081"; "0" disables)
  --webhook-bind-address <addr>        address of the HTTPS webhook server (default ":9443"; "0" disables;
                                       env ENABLE_WEBHOOKS=false also disables)
  --webhook-cert-path <dir>            directory of the webhook serving certificate
                                       (default "<tmpdir>/k8s-webhook-server/serving-certs")
  --webhook-cert-name <file>           certificate file in that directory (default tls.crt)
  --webhook-cert-key <file>            key file in that directory (default tls.key)
  --leader-elect                       enable leader election (one active manager)
  --leader-election-id <id>            lease name
  --leader-election-namespace <ns>     lease namespace (default: the pod's namespace)
  --leader-elect-lease-duration <d>    lease duration (default 15s)
  --leader-elect-renew-deadline <d>    renew deadline (default 10s)
  --leader-elect-retry-period <d>      retry period (default 2s)
  --sharding[=true|false]              every replica reconciles its share of the objects (needs
                                       --leader-elect; docs/runtime.md "Sharding")
  --log-format <json|human>            log format (env LOG_FORMAT; default json, human on a terminal)
  --log-level <debug|info|warn|error>  log level (env LOG_LEVEL; default info)
  --zap-devel                          human-readable debug logs (operator-sdk compatibility)
  -h, --help                           show this help`;

/** Boolean flags that also take Go's "--flag=true" / "--flag=false" (kubebuilder's manifests pass them so). */
const GO_BOOLEANS = new Set(["metrics-secure", "leader-elect", "sharding", "zap-devel"]);

/**
 * Takes the GO_BOOLEANS out of argv (parseArgs reads no "=false"): the rest of argv, and each such
 * flag's value, the last occurrence winning as with Go's flag package.
 */
function splitGoBooleans(argv: readonly string[]): { rest: string[]; booleans: Record<string, boolean> } {
  const rest: string[] = [];
  const booleans: Record<string, boolean> = {};
  for (const arg of argv) {
    const m = /^--([a-z-]+)(?:=(true|false))?$/.exec(arg);
    if (m && GO_BOOLEANS.has(m[1]!)) booleans[m[1]!] = m[2] !== "false";
    else rest.push(arg);
  }
  return { rest, booleans };
}

function seconds(value: string | undefined, flag: string): number | undefined {
  return value === undefined ? undefined : parseDuration(value, flag) / 1000;
}

/**
 * Manager options from command-line flags and the environment, layered over `defaults` (what the
 * operator's main.ts fixes, e.g. the leader election id). Unknown flags are a UsageError.
 */
export function managerOptionsFromArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  defaults: ManagerOptions = {},
): ManagerOptions & { help?: boolean } {
  const { rest, booleans } = splitGoBooleans(argv);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: rest,
      strict: true,
      allowPositionals: false,
      options: {
        kubeconfig: { type: "string" },
        context: { type: "string" },
        namespace: { type: "string" },
        "metrics-bind-address": { type: "string" },
        // The GO_BOOLEANS stay declared so that "--leader-elect=yes" is named as a bad value.
        "metrics-secure": { type: "boolean" },
        "metrics-cert-path": { type: "string" },
        "metrics-cert-name": { type: "string" },
        "metrics-cert-key": { type: "string" },
        "health-probe-bind-address": { type: "string" },
        "webhook-bind-address": { type: "string" },
        "webhook-cert-path": { type: "string" },
        "webhook-cert-name": { type: "string" },
        "webhook-cert-key": { type: "string" },
        "leader-elect": { type: "boolean" },
        "leader-election-id": { type: "string" },
        "leader-election-namespace": { type: "string" },
        "leader-elect-lease-duration": { type: "string" },
        "leader-elect-renew-deadline": { type: "string" },
        "leader-elect-retry-period": { type: "string" },
        sharding: { type: "boolean" },
        "log-format": { type: "string" },
        "log-level": { type: "string" },
        "zap-devel": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message, { hint: MANAGER_FLAGS_HELP });
  }
  values = { ...values, ...booleans };
  const str = (k: string) => values[k] as string | undefined;
  const options: ManagerOptions & { help?: boolean } = { ...defaults };
  if (values.help) options.help = true;
  if (str("kubeconfig")) options.kubeconfig = str("kubeconfig");
  if (str("context")) options.context = str("context");
  const namespace = str("namespace") ?? (env.WATCH_NAMESPACE || undefined);
  if (namespace) options.namespace = namespace;
  if (str("metrics-bind-address") !== undefined) options.metricsBindAddress = str("metrics-bind-address");
  // kubebuilder v4's main.go: secure metrics unless --metrics-secure=false.
  options.metricsSecure = (values["metrics-secure"] as boolean | undefined) ?? defaults.metricsSecure ?? true;
  if (str("metrics-cert-path")) options.metricsCertDir = str("metrics-cert-path");
  if (str("metrics-cert-name")) options.metricsCertName = str("metrics-cert-name");
  if (str("metrics-cert-key")) options.metricsKeyName = str("metrics-cert-key");
  if (str("health-probe-bind-address") !== undefined)
    options.healthProbeBindAddress = str("health-probe-bind-address");
  if (str("webhook-bind-address") !== undefined) options.webhookBindAddress = str("webhook-bind-address");
  // kubebuilder's convention for running the manager outside the cluster without certificates.
  if (env.ENABLE_WEBHOOKS === "false") options.webhookBindAddress = "0";
  if (str("webhook-cert-path")) options.webhookCertDir = str("webhook-cert-path");
  if (str("webhook-cert-name")) options.webhookCertName = str("webhook-cert-name");
  if (str("webhook-cert-key")) options.webhookKeyName = str("webhook-cert-key");

  const le = { ...defaults.leaderElection } as NonNullable<ManagerOptions["leaderElection"]>;
  if (values["leader-elect"] !== undefined) le.enabled = values["leader-elect"] as boolean;
  else if (defaults.leaderElection) le.enabled = defaults.leaderElection.enabled ?? false;
  if (str("leader-election-id")) le.id = str("leader-election-id") as string;
  if (str("leader-election-namespace")) le.namespace = str("leader-election-namespace");
  const lease = seconds(str("leader-elect-lease-duration"), "--leader-elect-lease-duration");
  const renew = seconds(str("leader-elect-renew-deadline"), "--leader-elect-renew-deadline");
  const retry = seconds(str("leader-elect-retry-period"), "--leader-elect-retry-period");
  if (lease !== undefined) le.leaseDurationSeconds = lease;
  if (renew !== undefined) le.renewDeadlineSeconds = renew;
  if (retry !== undefined) le.retryPeriodSeconds = retry;
  if (le.enabled || le.id || defaults.leaderElection) {
    if (le.enabled && !le.id)
      throw new UsageError("--leader-elect needs a lease name", { hint: "pass --leader-election-id <id>" });
    options.leaderElection = le;
  }
  // --sharding turns on what main.ts fixes in `sharding` (or the defaults); =false turns it off.
  const sharding = values.sharding as boolean | undefined;
  if (sharding === false) delete options.sharding;
  else if (sharding) options.sharding = { ...defaults.sharding };
  if (sharding && !options.leaderElection?.enabled)
    throw new UsageError("--sharding needs leader election (the leader assigns objects to the replicas)", {
      hint: "pass --leader-elect as well",
    });

  const format = str("log-format") ?? (values["zap-devel"] ? "human" : env.LOG_FORMAT || undefined);
  const level = str("log-level") ?? (values["zap-devel"] ? "debug" : env.LOG_LEVEL || undefined);
  if (format !== undefined && format !== "json" && format !== "human")
    throw new UsageError(`invalid log format "${format}"`, { hint: "use json or human" });
  if (level !== undefined && !isLogLevel(level))
    throw new UsageError(`invalid log level "${level}"`, { hint: "use debug, info, warn or error" });
  if (format || level) {
    const base = defaults.logger && !("info" in defaults.logger) ? (defaults.logger as LoggerOptions) : {};
    options.logger = {
      ...base,
      ...(format ? { format: format as LogFormat } : {}),
      ...(level && isLogLevel(level) ? { level } : {}),
    };
  }
  return options;
}
