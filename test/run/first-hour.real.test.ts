// The first hour of a new operator author, offline on the test bed, as docs/workflow.md ("On the
// test bed") tells it and with no flag it does not show (issue 42): `tsop init` + `create api`, a
// reconciler of their own that also reads a ConfigMap its custom resource names (with the @Rbac for
// it), `tsop generate`, `tsop image build --push` (which compiles first), `tsop bundle
// --use-image-digests` with no lock file — the scaffold's default operand image on docker.io is
// resolved through the bed's registry mirror (TSOP_REGISTRY_MIRRORS, as `npm run cluster` prints
// it) — `bundle push`, `run bundle`, the sample reconciled by the operator's own process (a condition
// carrying the ConfigMap's value; the operand's pod a process pulled through the same mirror by the
// digest the CSV pins), a v0.0.2 change and `run bundle-upgrade`, `catalog add/render/validate/image`
// on the bed's opm base, and `cleanup --delete-crds`, after which nothing of the operator is left
// (a snapshot of every object, compared). The bed is the one `npm run cluster` gives: its registry
// with the Node base, the opm base and the mirror (test/support/rig/mirror.ts), and OLM.
// Time: 287 s on the 2-core machine at load 15 (the bed's start overlaps the scaffold's npm install;
// the image builds and the two OLM installs are most of the rest); it prints each step's time.
import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { DEFAULT_WORKLOAD_IMAGE } from "../../src/scaffold/api.js";
import { pushOpmBase } from "../catalog/opm-base.js";
import { pushNodeBase } from "../operator-image/node-base.js";
import { alive, conditionOf, eventually, kubectl, kubectlJson, runningManager } from "../operator/support.js";
import { runTsop } from "../support/cli.js";
import { skopeoInspect, startRegistry, type TestRegistry } from "../support/registry.js";
import { type BedMirror, serveMirror } from "../support/rig/mirror.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { added, snapshot } from "./bed.js";

const NS = "sites";
const PACKAGE = "site-operator";
let registry: TestRegistry;
let bed: OlmBed;
let mirror: BedMirror;
let opmBase: string;
let work: string;
let project: string;
const timings: string[] = [];

/** The environment `npm run cluster` tells the user to export. */
const env = () => ({ KUBECONFIG: bed.cluster.kubeconfigPath, TSOP_REGISTRY_MIRRORS: mirror.env });
const R = () => registry.host;
const plain = () => `--plain-http=${R()}`;

async function timed<T>(step: string, run: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await run();
  } finally {
    timings.push(`${step} ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

/** The built CLI in `cwd` with the bed's environment; fails the test with its output unless it exits 0. */
async function tsop(cwd: string, args: string[]): Promise<string> {
  const result = await runTsop(args, { cwd, env: env(), timeoutMs: 420_000 });
  expect(result.exitCode, `tsop ${args.join(" ")}\n${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout.trim();
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "tsop-first-hour-"));
  registry = await startRegistry();
  project = join(work, PACKAGE);
  // The bed starts while the author scaffolds and writes their operator (neither needs the other).
  await Promise.all([startBed(), timed("scaffold and generate", scaffold)]);
}, 900_000);

/** What `npm run cluster` gives: its registry with the Node base, the opm base and the mirror, and OLM. */
async function startBed(): Promise<void> {
  const started = Date.now();
  const [, opm, served] = await Promise.all([
    pushNodeBase(registry, "base/node", "20"),
    pushOpmBase(registry),
    serveMirror(registry, work),
  ]);
  opmBase = opm;
  mirror = served;
  bed = await startOlmBed({ namespaces: [NS], mirror });
  timings.push(`bed ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** `tsop init` (its npm install), `create api`, the author's own API, reconciler and sample, `tsop generate`. */
async function scaffold(): Promise<void> {
  const init = await runTsop(["init", project, "--domain", "example.com"], {
    cwd: work,
    // npm from its cache where it can (the scaffold tests' install, without a second network round).
    env: { npm_config_prefer_offline: "true" },
    timeoutMs: 420_000,
  });
  expect(init.exitCode, init.stderr).toBe(0);
  const created = await runTsop(
    ["create", "api", "--group", "web", "--version", "v1alpha1", "--kind", "Site"],
    {
      cwd: project,
    },
  );
  expect(created.exitCode, created.stderr).toBe(0);
  await writeFile(join(project, "src/api/v1alpha1/site.ts"), API);
  await writeFile(join(project, "src/controllers/site.controller.ts"), controller("0.0.1"));
  // The scaffolded test exercises the scaffolded controller this author replaced.
  await unlink(join(project, "test/site.controller.test.ts"));
  await writeFile(join(project, "config/samples/web_v1alpha1_site.yaml"), SAMPLE);
  const generated = await runTsop(["generate"], { cwd: project });
  expect(generated.exitCode, generated.stderr).toBe(0);
}

afterAll(async () => {
  console.log(`first hour: ${timings.join(", ")}`);
  await bed?.stop();
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
}, 120_000);

// The author's own API and reconciler, written whole (not edits of the scaffold's text): a Site runs
// the operand (RELATED_IMAGE_SITE, else the scaffold's default image) with the greeting its
// ConfigMap holds, and reports it in the Ready condition.
const API = `import { type Condition, CustomResource, type Int32, KubeObject, Status } from "tsop";

export interface SiteSpec {
  /**
   * Replicas of the site.
   * @minimum 0
   * @default 1
   */
  size: Int32;
  /** Name of a ConfigMap in the Site's namespace whose data.greeting the site serves. */
  configMapName: string;
}

export interface SiteStatus {
  availableReplicas?: Int32;
  /**
   * The Ready condition.
   * @listType map
   * @listMapKey type
   */
  conditions?: Condition[];
}

@CustomResource({ group: "web.example.com", version: "v1alpha1", plural: "sites", scope: "Namespaced" })
@Status()
export class Site extends KubeObject<SiteSpec, SiteStatus> {}
`;

const controller = (version: string) => `import {
  type ControllerBuilder,
  createOrUpdate,
  ensureFinalizer,
  isBeingDeleted,
  Rbac,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
  relatedImage,
  removeFinalizer,
  setCondition,
  updateStatus,
} from "tsop";
import { Site } from "../api/v1alpha1/site.js";

const FINALIZER = "web.example.com/finalizer";
const VERSION = "${version}";

interface ConfigMap {
  apiVersion: "v1";
  kind: "ConfigMap";
  metadata: { name: string; namespace: string };
  data?: Record<string, string>;
}

interface Deployment {
  apiVersion: "apps/v1";
  kind: "Deployment";
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  spec?: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: { securityContext?: Record<string, unknown>; containers: Array<Record<string, unknown>> };
    };
  };
  status?: { availableReplicas?: number };
}

@Rbac({ groups: ["web.example.com"], resources: ["sites"], verbs: ["get", "list", "watch", "update", "patch"] })
@Rbac({ groups: ["web.example.com"], resources: ["sites/status"], verbs: ["get", "update", "patch"] })
@Rbac({ groups: ["web.example.com"], resources: ["sites/finalizers"], verbs: ["update"] })
@Rbac({ groups: ["apps"], resources: ["deployments"], verbs: ["get", "list", "watch", "create", "update", "patch", "delete"] })
@Rbac({ groups: [""], resources: ["configmaps"], verbs: ["get"] })
@Rbac({ groups: [""], resources: ["events"], verbs: ["create", "patch"] })
export class SiteReconciler implements Reconciler {
  static setup(builder: ControllerBuilder): Promise<unknown> {
    return builder.owns({ apiVersion: "apps/v1", kind: "Deployment" }).complete(new SiteReconciler());
  }

  async reconcile(request: Request, ctx: ReconcileContext): Promise<Result | undefined> {
    const site = await ctx.client.get(Site, request);
    if (!site) return undefined;
    if (isBeingDeleted(site)) {
      ctx.log.info("Site is being deleted");
      await removeFinalizer(ctx.client, site, FINALIZER);
      return undefined;
    }
    await ensureFinalizer(ctx.client, site, FINALIZER);
    const namespace = site.metadata.namespace ?? "default";
    const name = site.metadata.name ?? "";
    const config = (await ctx.client.get(
      { apiVersion: "v1", kind: "ConfigMap" },
      { namespace, name: site.spec?.configMapName ?? "" },
    )) as ConfigMap | undefined;
    const greeting = config?.data?.greeting;
    if (greeting === undefined) {
      await updateStatus(ctx.client, site, (latest) =>
        setCondition(latest, { type: "Ready", status: "False", reason: "NoConfig", message: "no greeting yet" }),
      );
      return { requeueAfter: 2000 };
    }
    const labels = { "app.kubernetes.io/name": "site", "app.kubernetes.io/instance": name };
    const container = {
      name: "site",
      image: relatedImage("site", "${DEFAULT_WORKLOAD_IMAGE}"),
      env: [{ name: "GREETING", value: greeting }],
      ports: [{ containerPort: 8080, name: "http", protocol: "TCP" }],
      securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: ["ALL"] } },
    };
    const { object } = await createOrUpdate(
      ctx.client,
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name, namespace } } as Deployment,
      (live) => {
        live.metadata.labels = { ...live.metadata.labels, ...labels, "example.com/operator-version": VERSION };
        if (!live.spec) {
          live.spec = {
            replicas: site.spec?.size ?? 1,
            selector: { matchLabels: labels },
            template: {
              metadata: { labels },
              spec: {
                securityContext: { runAsNonRoot: true, runAsUser: 1001, seccompProfile: { type: "RuntimeDefault" } },
                containers: [container],
              },
            },
          };
          return;
        }
        live.spec.replicas = site.spec?.size ?? 1;
        const current = live.spec.template.spec.containers[0]!;
        current.image = container.image;
        current.env = container.env;
      },
      { owner: site },
    );
    const available = object.status?.availableReplicas ?? 0;
    const ready = available >= (site.spec?.size ?? 1);
    await updateStatus(ctx.client, site, (latest) => {
      latest.status = { ...latest.status, availableReplicas: available };
      setCondition(latest, {
        type: "Ready",
        status: ready ? "True" : "False",
        reason: ready ? "Serving" : "Starting",
        message: \`greeting=\${greeting} version=\${VERSION} available=\${available}\`,
      });
    });
    return undefined;
  }
}
`;

const SAMPLE = `apiVersion: web.example.com/v1alpha1
kind: Site
metadata:
  name: site-sample
spec:
  size: 1
  configMapName: site-greeting
`;

async function site(): Promise<KubeObject> {
  return kubectlJson(env(), ["get", "site", "site-sample", "-n", NS]);
}

const describe = async () =>
  (await kubectl(env(), ["get", "sites,deployments,pods,csv,events", "-n", NS, "-o", "yaml"])).all?.slice(
    -10000,
  ) ?? "";

/** Waits for the sample's Ready condition to say `message` (the operator's process wrote it). */
function readyWith(message: RegExp): Promise<KubeObject> {
  return eventually(
    `the sample Ready with ${message}`,
    async () => {
      const cr = await site();
      const ready = conditionOf(cr, "Ready");
      return ready?.status === "True" && message.test(ready.message ?? "") ? cr : undefined;
    },
    240_000,
    describe,
  );
}

/** image build (compiles first) → bundle --use-image-digests → bundle push; the pinned image and bundle. */
async function release(version: string): Promise<[string, string]> {
  const image = await timed(`image build ${version}`, () =>
    tsop(project, [
      "image",
      "build",
      "--base",
      `${R()}/base/node:20`,
      "--push",
      `${R()}/${PACKAGE}:${version}`,
      plain(),
      "-q",
    ]),
  );
  await timed(`bundle ${version}`, () =>
    tsop(project, [
      "bundle",
      "--image",
      image,
      "--use-image-digests",
      "--version",
      version,
      "--channels",
      "alpha",
      "--yes",
      plain(),
    ]),
  );
  const bundle = `${R()}/${PACKAGE}-bundle:v${version}`;
  await timed(`bundle push ${version}`, () => tsop(project, ["bundle", "push", bundle, plain()]));
  return [image, bundle];
}

it("scaffold → own reconciler → image → bundle with pinned digests → run bundle → sample → upgrade → catalog → cleanup leaves nothing", async () => {
  const before = await snapshot(bed.cluster.kubeconfigPath);
  const greeting = await kubectl(env(), [
    "create",
    "configmap",
    "site-greeting",
    "-n",
    NS,
    "--from-literal=greeting=hello",
  ]);
  expect(greeting.exitCode, greeting.all).toBe(0);

  const [v1, bundle1] = await release("0.0.1");
  // The operand's digest is the mirror's: what the bed's node pulls for that name.
  const operandDigest = (await skopeoInspect(registry, `docker.io/nginxinc/nginx-unprivileged:1.27-alpine`))
    .Digest;
  const pinnedOperand = `${DEFAULT_WORKLOAD_IMAGE.split(":1.27")[0]}@${operandDigest}`;
  await timed("run bundle", () =>
    tsop(project, ["run", "bundle", bundle1, "-n", NS, plain(), "--timeout", "5m"]),
  );
  const first = await runningManager(env(), bed.olm.runner, NS, v1);
  const csv = await kubectlJson(env(), ["get", "csv", `${PACKAGE}.v0.0.1`, "-n", NS]);
  expect(
    (csv.spec as { relatedImages: Array<{ image: string }> }).relatedImages.map((r) => r.image),
  ).toContain(pinnedOperand);

  const applied = await kubectl(env(), ["apply", "-k", "config/samples", "-n", NS], { cwd: project });
  expect(applied.exitCode, applied.all).toBe(0);
  const cr = await timed("sample reconciled", () =>
    readyWith(/^greeting=hello version=0\.0\.1 available=1$/),
  );
  expect(cr.metadata.finalizers).toEqual(["web.example.com/finalizer"]);
  // The operand runs: its pod is a process of the bed's node, pulled through the mirror by the pinned digest.
  const pods = await kubectlJson<{ items: KubeObject[] }>(env(), [
    "get",
    "pods",
    "-n",
    NS,
    "-l",
    "app.kubernetes.io/instance=site-sample",
  ]);
  expect(pods.items).toHaveLength(1);
  const operand = pods.items[0]!;
  expect((operand.spec as { containers: Array<{ image: string }> }).containers[0]!.image).toBe(pinnedOperand);
  expect(
    (operand.status as { containerStatuses: Array<{ imageID: string }> }).containerStatuses[0]!.imageID,
  ).toBe(pinnedOperand);
  expect(bed.olm.runner.podPids(NS, operand.metadata.name ?? "")).toHaveLength(1);

  // v0.0.2: the author's change; image build compiles it (no npm run build by hand).
  await writeFile(join(project, "src/controllers/site.controller.ts"), controller("0.0.2"));
  const [v2, bundle2] = await release("0.0.2");
  expect(v2).not.toBe(v1);
  await timed("run bundle-upgrade", () =>
    tsop(project, ["run", "bundle-upgrade", bundle2, "-n", NS, plain(), "--timeout", "5m"]),
  );
  await runningManager(env(), bed.olm.runner, NS, v2);
  await timed("upgraded sample reconciled", () => readyWith(/^greeting=hello version=0\.0\.2 available=1$/));
  await eventually("the v0.0.1 process to be gone", async () => first.pids.every((pid) => !alive(pid)));

  // The catalog of both releases, on the bed's opm base.
  await timed("catalog", async () => {
    await tsop(project, ["catalog", "add", bundle1, plain()]);
    await tsop(project, ["catalog", "add", bundle2, plain()]);
    await tsop(project, ["catalog", "render", plain()]);
    await tsop(project, ["catalog", "validate"]);
    const image = await tsop(project, [
      "catalog",
      "image",
      "--base",
      opmBase,
      `${R()}/${PACKAGE}-catalog:latest`,
      plain(),
    ]);
    expect(image).toMatch(new RegExp(`^${R()}/${PACKAGE}-catalog@sha256:[0-9a-f]{64}$`, "m"));
  });

  await timed("cleanup", () =>
    tsop(project, ["cleanup", PACKAGE, "--delete-crds", "-n", NS, "--timeout", "3m"]),
  );
  await kubectl(env(), ["delete", "configmap", "site-greeting", "-n", NS]);
  const left = await eventually(
    "nothing of the operator left",
    async () => {
      const left = added(before, await snapshot(bed.cluster.kubeconfigPath));
      return left.length === 0 ? left : undefined;
    },
    120_000,
  ).catch(async () => added(before, await snapshot(bed.cluster.kubeconfigPath)));
  expect(left).toEqual([]);
  expect(bed.olm.runner.podNames().filter((p) => p.startsWith(`${NS}/`))).toEqual([]);
}, 1_500_000);
