import { describe, expect, it } from "vitest";
import {
  findCondition,
  isConditionFalse,
  isConditionTrue,
  removeCondition,
  setCondition,
} from "../../src/runtime/controllerutil/conditions.js";
import { generationChanged } from "../../src/runtime/controller/builder.js";
import {
  AlreadyOwnedError,
  InvalidOwnerError,
  setControllerReference,
} from "../../src/runtime/controllerutil/helpers.js";
import { Logger } from "../../src/runtime/log/logger.js";
import { MetricsRegistry } from "../../src/runtime/metrics/metrics.js";
import { managerOptionsFromArgs } from "../../src/runtime/manager/options.js";
import { relatedImage, relatedImageEnvName } from "../../src/runtime/controllerutil/related-image.js";
import type { Condition } from "../../src/runtime/schema.js";

describe("conditions", () => {
  const t1 = new Date("2026-01-01T00:00:00.123Z");
  const t2 = new Date("2026-01-02T00:00:00Z");

  it("adds a condition with observedGeneration from the object", () => {
    const obj: { metadata: { generation: number }; status?: { conditions?: Condition[] } } = {
      metadata: { generation: 3 },
    };
    expect(setCondition(obj, { type: "Available", status: "True", reason: "Ready", message: "ok" }, t1)).toBe(
      true,
    );
    expect(obj.status?.conditions).toEqual([
      {
        type: "Available",
        status: "True",
        reason: "Ready",
        message: "ok",
        lastTransitionTime: "2026-01-01T00:00:00Z",
        observedGeneration: 3,
      },
    ]);
    expect(isConditionTrue(obj, "Available")).toBe(true);
    expect(isConditionFalse(obj, "Available")).toBe(false);
  });

  it("changes lastTransitionTime only when the status changes", () => {
    const list: Condition[] = [];
    setCondition(list, { type: "Ready", status: "False", reason: "Creating" }, t1);
    expect(setCondition(list, { type: "Ready", status: "False", reason: "Creating" }, t2)).toBe(false);
    expect(
      setCondition(list, { type: "Ready", status: "False", reason: "Scaling", message: "2/3" }, t2),
    ).toBe(true);
    expect(findCondition(list, "Ready")?.lastTransitionTime).toBe("2026-01-01T00:00:00Z");
    expect(findCondition(list, "Ready")?.reason).toBe("Scaling");
    expect(setCondition(list, { type: "Ready", status: "True", reason: "Ready" }, t2)).toBe(true);
    expect(findCondition(list, "Ready")?.lastTransitionTime).toBe("2026-01-02T00:00:00Z");
    expect(list).toHaveLength(1);
  });

  it("updates observedGeneration without a transition, and removes", () => {
    const obj = { metadata: { generation: 1 }, status: { conditions: [] as Condition[] } };
    setCondition(obj, { type: "Ready", status: "True", reason: "R" }, t1);
    obj.metadata.generation = 2;
    expect(setCondition(obj, { type: "Ready", status: "True", reason: "R" }, t2)).toBe(true);
    expect(findCondition(obj, "Ready")).toMatchObject({
      observedGeneration: 2,
      lastTransitionTime: "2026-01-01T00:00:00Z",
    });
    expect(removeCondition(obj, "Ready")).toBe(true);
    expect(removeCondition(obj, "Ready")).toBe(false);
    expect(findCondition({}, "Ready")).toBeUndefined();
  });
});

describe("relatedImage", () => {
  it("reads RELATED_IMAGE_<NAME> and falls back", () => {
    expect(relatedImageEnvName("memcached")).toBe("RELATED_IMAGE_MEMCACHED");
    expect(relatedImageEnvName("kube-rbac.proxy")).toBe("RELATED_IMAGE_KUBE_RBAC_PROXY");
    const env = { RELATED_IMAGE_MEMCACHED: "quay.io/x/memcached@sha256:abc" };
    expect(relatedImage("memcached", "memcached:1.6", env)).toBe("quay.io/x/memcached@sha256:abc");
    expect(relatedImage("memcached", "memcached:1.6", {})).toBe("memcached:1.6");
    expect(relatedImage("memcached", "memcached:1.6", { RELATED_IMAGE_MEMCACHED: " " })).toBe(
      "memcached:1.6",
    );
    expect(() => relatedImage("memcached", undefined, {})).toThrow(/RELATED_IMAGE_MEMCACHED is not set/);
    expect(() => relatedImageEnvName("--")).toThrow(/invalid image name/);
  });

  it("reads a variable of the operator's own that maps a RELATED_IMAGE_ one", () => {
    const fedora = "quay.io/fedora/fedora@sha256:0123";
    // In a pod the kubelet has expanded $(RELATED_IMAGE_FEDORA); outside one tsop expands it the same way.
    expect(relatedImage({ variable: "DFA_BUSYBOX_IMAGE" }, undefined, { DFA_BUSYBOX_IMAGE: fedora })).toBe(
      fedora,
    );
    const unexpanded = { DFA_BUSYBOX_IMAGE: "$(RELATED_IMAGE_FEDORA)", RELATED_IMAGE_FEDORA: fedora };
    expect(relatedImage({ variable: "DFA_BUSYBOX_IMAGE" }, "busybox:1", unexpanded)).toBe(fedora);
    expect(relatedImage({ variable: "DFA_BUSYBOX_IMAGE" }, "busybox:1", {})).toBe("busybox:1");
    expect(() =>
      relatedImage({ variable: "DFA_BUSYBOX_IMAGE" }, undefined, {
        DFA_BUSYBOX_IMAGE: "$(RELATED_IMAGE_FEDORA)",
      }),
    ).toThrow(
      "no image configured for DFA_BUSYBOX_IMAGE: DFA_BUSYBOX_IMAGE refers to an unset variable ($(RELATED_IMAGE_FEDORA))",
    );
    expect(() => relatedImage({ variable: "not a name" })).toThrow(/is not an environment variable name/);
  });
});

describe("logger", () => {
  const capture = () => {
    const lines: string[] = [];
    return { lines, sink: { write: (l: string) => lines.push(l) } };
  };
  const now = () => new Date("2026-01-01T00:00:00Z");

  it("writes one JSON object per line with name, fields and errors", () => {
    const { lines, sink } = capture();
    const log = new Logger({ format: "json", sink, now })
      .named("controller")
      .child({ controller: "memcached" });
    log.info("reconciled", { namespace: "ns", skipped: undefined });
    log.debug("hidden");
    log.error("failed", new TypeError("boom"));
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0] as string)).toEqual({
      level: "info",
      ts: "2026-01-01T00:00:00.000Z",
      logger: "controller",
      msg: "reconciled",
      controller: "memcached",
      namespace: "ns",
    });
    const err = JSON.parse(lines[1] as string);
    expect(err).toMatchObject({ level: "error", msg: "failed", error: "boom", errorType: "TypeError" });
    expect(err.stacktrace).toContain("TypeError: boom");
  });

  it("honours the level and writes human lines", () => {
    const { lines, sink } = capture();
    const log = new Logger({ format: "human", level: "warn", sink, now, color: false, name: "setup" });
    log.info("no");
    log.warn("disk almost full", { path: "/data", pct: 91, note: "two words" });
    expect(lines).toEqual([
      '2026-01-01T00:00:00.000Z WARN  setup disk almost full path=/data pct=91 note="two words"\n',
    ]);
    expect(log.enabled("error")).toBe(true);
    expect(log.enabled("info")).toBe(false);
  });
});

describe("metrics", () => {
  it("renders counters, gauges and histograms in the Prometheus text format", () => {
    const reg = new MetricsRegistry();
    const c = reg.counter("reconcile_total", "Total reconciles", ["controller", "result"]);
    c.inc({ controller: "mc", result: "success" });
    c.inc({ controller: "mc", result: "success" }, 2);
    const g = reg.gauge("queue_depth", "Depth", ["name"]);
    g.set({ name: 'a"b' }, 4);
    const h = reg.histogram("duration_seconds", "Duration", ["controller"], [0.1, 1]);
    h.observe({ controller: "mc" }, 0.05);
    h.observe({ controller: "mc" }, 0.5);
    h.observe({ controller: "mc" }, 3);
    expect(reg.counter("reconcile_total", "Total reconciles", ["controller", "result"])).toBe(c);
    expect(reg.render()).toBe(
      [
        "# HELP duration_seconds Duration",
        "# TYPE duration_seconds histogram",
        'duration_seconds_bucket{controller="mc",le="0.1"} 1',
        'duration_seconds_bucket{controller="mc",le="1"} 2',
        'duration_seconds_bucket{controller="mc",le="+Inf"} 3',
        'duration_seconds_sum{controller="mc"} 3.55',
        'duration_seconds_count{controller="mc"} 3',
        "# HELP queue_depth Depth",
        "# TYPE queue_depth gauge",
        'queue_depth{name="a\\"b"} 4',
        "# HELP reconcile_total Total reconciles",
        "# TYPE reconcile_total counter",
        'reconcile_total{controller="mc",result="success"} 3',
        "",
      ].join("\n"),
    );
  });

  it("rejects bad names, unknown labels, decreasing counters and type clashes", () => {
    const reg = new MetricsRegistry();
    expect(() => reg.counter("bad-name", "x")).toThrow(/invalid metric name/);
    const c = reg.counter("ok_total", "x", ["a"]);
    expect(() => c.inc({ b: "1" })).toThrow(/no label "b"/);
    expect(() => c.inc({ a: "1" }, -1)).toThrow(/cannot decrease/);
    expect(() => reg.gauge("ok_total", "x")).toThrow(/already registered as counter/);
  });
});

describe("managerOptionsFromArgs", () => {
  it("maps flags and environment over defaults", () => {
    const opts = managerOptionsFromArgs(
      [
        "--leader-elect",
        "--metrics-bind-address=:9090",
        "--health-probe-bind-address",
        "127.0.0.1:0",
        "--context",
        "kind",
        "--leader-elect-lease-duration",
        "30s",
        "--zap-devel",
      ],
      { WATCH_NAMESPACE: "team-a" },
      { leaderElection: { id: "memcached.example.com" } },
    );
    expect(opts).toEqual({
      context: "kind",
      namespace: "team-a",
      metricsBindAddress: ":9090",
      metricsSecure: true,
      healthProbeBindAddress: "127.0.0.1:0",
      leaderElection: { id: "memcached.example.com", enabled: true, leaseDurationSeconds: 30 },
      logger: { format: "human", level: "debug" },
    });
  });

  it("reads the metrics flags as kubebuilder v4's main.go: secure unless --metrics-secure=false", () => {
    expect(managerOptionsFromArgs([], {}).metricsSecure).toBe(true);
    expect(managerOptionsFromArgs(["--metrics-secure=false"], {}).metricsSecure).toBe(false);
    expect(managerOptionsFromArgs(["--metrics-secure=false", "--metrics-secure"], {}).metricsSecure).toBe(
      true,
    );
    expect(
      managerOptionsFromArgs(["--leader-elect=false"], {}, { leaderElection: { id: "x" } }).leaderElection,
    ).toEqual({ id: "x", enabled: false });
    expect(
      managerOptionsFromArgs(
        [
          "--metrics-bind-address=:8443",
          "--metrics-secure=true",
          "--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs",
          "--metrics-cert-name=ca.crt",
          "--metrics-cert-key",
          "ca.key",
        ],
        {},
      ),
    ).toEqual({
      metricsBindAddress: ":8443",
      metricsSecure: true,
      metricsCertDir: "/tmp/k8s-metrics-server/metrics-certs",
      metricsCertName: "ca.crt",
      metricsKeyName: "ca.key",
    });
    expect(() => managerOptionsFromArgs(["--metrics-secure=yes"], {})).toThrow(/metrics-secure/);
  });

  it("turns sharding on with --sharding (a scaffolded main.ts needs no change), only beside --leader-elect", () => {
    const le = { leaderElection: { id: "x" } };
    expect(managerOptionsFromArgs(["--leader-elect", "--sharding"], {}, le).sharding).toEqual({});
    expect(managerOptionsFromArgs(["--leader-elect", "--sharding=true"], {}, le).sharding).toEqual({});
    // What main.ts fixes stays; --sharding=false turns it off.
    const fixed = { ...le, sharding: { ring: "r" } };
    expect(managerOptionsFromArgs(["--leader-elect", "--sharding"], {}, fixed).sharding).toEqual({
      ring: "r",
    });
    expect(
      managerOptionsFromArgs(["--leader-elect", "--sharding=false"], {}, fixed).sharding,
    ).toBeUndefined();
    expect(managerOptionsFromArgs(["--leader-elect"], {}, le).sharding).toBeUndefined();
    expect(() => managerOptionsFromArgs(["--sharding"], {}, le)).toThrow(/--sharding needs leader election/);
    expect(() => managerOptionsFromArgs(["--leader-elect", "--sharding=on"], {}, le)).toThrow(/sharding/);
  });

  it("keeps leader election off unless asked, and rejects bad input", () => {
    expect(managerOptionsFromArgs([], {}, { leaderElection: { id: "x" } }).leaderElection?.enabled).toBe(
      false,
    );
    expect(managerOptionsFromArgs([], { LOG_LEVEL: "warn" }).logger).toEqual({ level: "warn" });
    expect(() => managerOptionsFromArgs(["--bogus"], {})).toThrow(/bogus/);
    expect(() => managerOptionsFromArgs(["--leader-elect"], {})).toThrow(/needs a lease name/);
    expect(() => managerOptionsFromArgs(["--log-level", "loud"], {})).toThrow(/invalid log level "loud"/);
    expect(() => managerOptionsFromArgs(["--leader-elect-retry-period", "soon"], {})).toThrow(/invalid/);
  });
});

describe("setControllerReference", () => {
  const owner = {
    apiVersion: "cache.example.com/v1alpha1",
    kind: "Memcached",
    metadata: { name: "mc", namespace: "ns", uid: "u1" },
  };
  it("adds one controller reference and refuses a second controller", () => {
    const dep = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "mc", namespace: "ns" } };
    setControllerReference(owner, dep);
    setControllerReference(owner, dep);
    expect(dep.metadata).toMatchObject({
      ownerReferences: [
        {
          apiVersion: "cache.example.com/v1alpha1",
          kind: "Memcached",
          name: "mc",
          uid: "u1",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    });
    const other = { ...owner, metadata: { ...owner.metadata, uid: "u2", name: "other" } };
    expect(() => setControllerReference(other, dep)).toThrow(AlreadyOwnedError);
    const elsewhere = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "other" } };
    expect(() => setControllerReference(owner, elsewhere)).toThrow(/cross-namespace/);
    const clusterRole = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "r" },
    };
    expect(() => setControllerReference(owner, clusterRole)).toThrow(InvalidOwnerError);
    expect(() => setControllerReference(owner, clusterRole)).toThrow(
      "cluster-scoped resource must not have a namespace-scoped owner: ClusterRole r cannot be owned by Memcached ns/mc",
    );
    expect(clusterRole.metadata).not.toHaveProperty("ownerReferences");
    const clusterOwner = { apiVersion: "v1", kind: "Namespace", metadata: { name: "n", uid: "u3" } };
    setControllerReference(clusterOwner, clusterRole);
    expect(clusterRole.metadata).toHaveProperty("ownerReferences");
  });
});

describe("generationChanged", () => {
  it("passes creates, deletes and spec changes; drops status-only updates", () => {
    const v1 = { metadata: { generation: 1 } };
    const v2 = { metadata: { generation: 2 } };
    expect(generationChanged({ type: "create", object: v1 })).toBe(true);
    expect(generationChanged({ type: "delete", object: v1 })).toBe(true);
    expect(generationChanged({ type: "update", object: v2, old: v1 })).toBe(true);
    const statusOnly = { metadata: { generation: 1, resourceVersion: "9" } };
    expect(generationChanged({ type: "update", object: statusOnly, old: v1 })).toBe(false);
  });
});
