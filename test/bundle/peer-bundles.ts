// The bundles tsop produces across the suite, rebuilt through the CLI for the peer-tool oracles
// (operator-sdk bundle validate, opm render/validate/serve): the memcached fixture, a scaffolded
// project (init + create api, whose manager carries RELATED_IMAGE_ variables), a project with
// defaulting, validation and conversion webhooks, and one with namespaced permissions.
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { testdir } from "../support/testdir.js";
import { copyFixture, linkNodeModules, MEMCACHED, scaffoldWithNamespacedRbac, tsop } from "./helpers.js";

export interface PeerBundle {
  /** What the bundle stands for, in test names. */
  label: string;
  /** The project directory (bundle.Dockerfile, tsop.bundle.yaml). */
  project: string;
  /** The bundle directory tsop wrote. */
  dir: string;
  packageName: string;
  version: string;
  /** group/version/kind of every CRD version the bundle provides, sorted. */
  gvks: string[];
  /** The `tsop bundle` arguments that wrote it (a re-run with --fbc adds to them). */
  args: string[];
}

const BASE_FIELDS =
  "description: Runs memcached.\nproviderName: Example\nmaintainers: Jane <jane@example.com>\nminKubeVersion: 1.28.0\n";

/** Runs the CLI in `dir` and expects exit 0 (createdAt pinned). */
export async function tsopOk(dir: string, args: string[]): Promise<void> {
  const result = await tsop(dir, args, { SOURCE_DATE_EPOCH: "1667928397" });
  expect(result.exitCode, `tsop ${args.join(" ")}: ${result.stderr}`).toBe(0);
}

/** The memcached fixture, bundled as test/bundle/memcached.test.ts does. */
export async function memcachedFixtureBundle(): Promise<PeerBundle> {
  const project = await copyFixture(MEMCACHED);
  // The fixture's base CSV keeps operator-sdk's sample placeholder icon (empty data and media
  // type), which the operatorhub checks of both tools refuse: give it a real one.
  await writeFile(
    join(project, "icon.svg"),
    '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>\n',
  );
  const args = [
    "bundle",
    "--icon",
    "icon.svg",
    "--skip-generate",
    "--version",
    "0.0.1",
    "--image",
    "quay.io/example/memcached:v0.0.1",
  ];
  await tsopOk(project, args);
  return {
    label: "memcached fixture",
    project,
    dir: join(project, "bundle"),
    packageName: "memcached-operator",
    version: "0.0.1",
    gvks: ["cache.example.com/v1alpha1/Memcached"],
    args,
  };
}

async function initWithApi(name: string): Promise<string> {
  const project = join(await testdir(), name);
  await mkdir(project);
  await tsopOk(project, ["init", "--domain", "example.com", "--skip-install", "-y", "."]);
  await tsopOk(project, [
    "create",
    "api",
    "--group",
    "cache",
    "--version",
    "v1alpha1",
    "--kind",
    "Memcached",
  ]);
  await linkNodeModules(project);
  await appendFile(join(project, "tsop.bundle.yaml"), BASE_FIELDS);
  return project;
}

/**
 * init + create api + bundle; an extra RELATED_IMAGE_ variable and a second container image make
 * relatedImages hold several named entries.
 */
export async function scaffoldedBundle(): Promise<PeerBundle> {
  const project = await initWithApi("scaffolded-operator");
  const manager = join(project, "config/manager/manager.yaml");
  const text = await readFile(manager, "utf8");
  const withEnv = text.replace(
    /(\n(\s+)- name: RELATED_IMAGE_MEMCACHED\n)/,
    "\n$2- name: RELATED_IMAGE_METRICS_EXPORTER\n$2  value: quay.io/prometheus/memcached-exporter:v0.14.4$1",
  );
  expect(withEnv, "manager.yaml has a RELATED_IMAGE_MEMCACHED variable to add beside").not.toBe(text);
  await writeFile(manager, withEnv);
  const args = ["bundle", "--image", "quay.io/example/scaffolded-operator:v0.0.1"];
  await tsopOk(project, args);
  return {
    label: "scaffolded project (related images)",
    project,
    dir: join(project, "bundle"),
    packageName: "scaffolded-operator",
    version: "0.0.1",
    gvks: ["cache.example.com/v1alpha1/Memcached"],
    args,
  };
}

/** Two API versions, a conversion webhook and defaulting + validating webhooks. */
export async function webhooksBundle(): Promise<PeerBundle> {
  const project = await initWithApi("webhooks-operator");
  await tsopOk(project, [
    "create",
    "api",
    "--group",
    "cache",
    "--version",
    "v2",
    "--kind",
    "Memcached",
    "--controller=false",
  ]);
  const hub = join(project, "src/api/v1alpha1/memcached.ts");
  await writeFile(
    hub,
    (await readFile(hub, "utf8"))
      .replace("PrinterColumn, Status }", "PrinterColumn, Status, StorageVersion }")
      .replace("@Status()\n", "@Status()\n@StorageVersion()\n"),
  );
  await tsopOk(project, [
    "create",
    "webhook",
    "--group",
    "cache",
    "--version",
    "v1alpha1",
    "--kind",
    "Memcached",
    "--defaulting",
    "--programmatic-validation",
    "--conversion",
  ]);
  const args = ["bundle", "--image", "quay.io/example/webhooks-operator:v0.0.1"];
  await tsopOk(project, args);
  return {
    label: "webhooks project",
    project,
    dir: join(project, "bundle"),
    packageName: "webhooks-operator",
    version: "0.0.1",
    gvks: ["cache.example.com/v1alpha1/Memcached", "cache.example.com/v2/Memcached"],
    args,
  };
}

/** A namespaced @Rbac rule: the CSV gets `permissions` besides `clusterPermissions`. */
export async function namespacedPermissionsBundle(): Promise<PeerBundle> {
  const project = await testdir();
  await scaffoldWithNamespacedRbac(project);
  const args = ["bundle", "--min-kube-version", "1.28.0", "--image", "quay.io/example/nsperm:v0.0.1"];
  await tsopOk(project, args);
  return {
    label: "namespaced permissions",
    project,
    dir: join(project, "bundle"),
    packageName: "nsperm-operator",
    version: "0.0.1",
    gvks: ["cache.example.com/v1alpha1/Memcached"],
    args,
  };
}
