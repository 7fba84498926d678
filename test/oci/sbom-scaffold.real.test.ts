// The SBOM of a scaffolded operator, end to end: `tsop init` (its npm install from the registry),
// `tsop image build --push` to a docker-registry on 127.0.0.1 (TLS), the SBOM read back by `cosign
// download sbom` (the oracle of the attachment), and compared with an independent listing of what
// npm installed for production, `npm ls --omit=dev --all --json`: every package there is in the SBOM
// with that version and nothing else is, so no dev dependency (as package-lock.json marks them).
// The build is signed (`--sign --key`), and `cosign verify-attestation --type slsaprovenance1`
// verifies its provenance: the base and package-lock.json by digest.
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, expect, it } from "vitest";
import { pushNodeBase } from "../operator-image/node-base.js";
import { runTsop } from "../support/cli.js";
import { rigBinary } from "../support/rig.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";

let registry: TestRegistry;
let work: string;
let project: string;

beforeAll(async () => {
  registry = await startRegistry({ tls: true });
  await pushNodeBase(registry, "base/node", "20");
  work = await mkdtemp(join(tmpdir(), "tsop-sbom-scaffold-"));
  project = join(work, "memcached-operator");
  const init = await runTsop(["init", project, "--domain", "example.com"], {
    cwd: work,
    // npm from its cache where it can (the scaffold tests' install, without a second network round).
    env: { npm_config_prefer_offline: "true" },
    timeoutMs: 420_000,
  });
  expect(init.exitCode, init.stderr).toBe(0);
  const keygen = await runTsop(["image", "keygen", "--output-key-prefix", join(work, "tsop")], {
    env: { COSIGN_PASSWORD: "pw" },
  });
  expect(keygen.exitCode, keygen.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

interface NpmTree {
  version?: string;
  dependencies?: Record<string, NpmTree>;
}

/** Every name@version in npm's production tree (the root project left out). */
function npmPackages(tree: NpmTree, into = new Set<string>()): Set<string> {
  for (const [name, node] of Object.entries(tree.dependencies ?? {})) {
    if (node.version) into.add(`${name}@${node.version}`);
    npmPackages(node, into);
  }
  return into;
}

it("lists every production dependency of the scaffolded operator with its lockfile version, and no dev dependency", async () => {
  const built = await runTsop(
    [
      "image",
      "build",
      "--base",
      `${registry.host}/base/node:20`,
      "--push",
      `${registry.host}/memcached-operator:0.0.1`,
      "--ca-file",
      registry.caFile!,
      "--sign",
      "--key",
      join(work, "tsop.key"),
      "-q",
    ],
    { cwd: project, env: { COSIGN_PASSWORD: "pw" }, timeoutMs: 420_000 },
  );
  expect(built.exitCode, built.stderr).toBe(0);
  const pinned = built.stdout.trim();
  expect(pinned).toMatch(new RegExp(`^${registry.host}/memcached-operator@sha256:[0-9a-f]{64}$`));

  const cosignEnv = { HOME: work, SSL_CERT_FILE: registry.caFile!, TUF_ROOT: join(work, "tuf") };
  const downloaded = await execa(rigBinary("cosign"), ["download", "sbom", pinned], {
    env: cosignEnv,
    reject: false,
  });
  expect(downloaded.exitCode, downloaded.stderr).toBe(0);
  const bom = JSON.parse(downloaded.stdout) as {
    metadata: { component: { name: string } };
    components: Array<{ type: string; group?: string; name: string; version: string }>;
  };
  expect(bom.metadata.component.name).toBe("memcached-operator");
  const inSbom = new Set(
    bom.components
      .filter((c) => c.type === "library")
      .map((c) => `${c.group ? `${c.group}/` : ""}${c.name}@${c.version}`),
  );

  // npm ls exits 1 on a problem it finds; its JSON is what counts, and the problems would show there.
  const listed = await execa("npm", ["ls", "--omit=dev", "--all", "--json"], { cwd: project, reject: false });
  const installed = npmPackages(JSON.parse(listed.stdout) as NpmTree);
  expect(installed.size).toBeGreaterThan(5);
  expect([...installed].some((p) => p.startsWith("tsop@"))).toBe(true);
  expect([...inSbom].sort()).toEqual([...installed].sort());

  // No dev dependency: package-lock.json's dev packages are absent (those the production tree also
  // has at the same version aside), the project's own dev-only devDependencies among them.
  const lock = JSON.parse(await readFile(join(project, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version?: string; dev?: boolean; devDependencies?: Record<string, string> }>;
  };
  const devPackage = (path: string) =>
    `${path.slice(path.lastIndexOf("node_modules/") + 13)}@${lock.packages[path]!.version}`;
  const dev = Object.keys(lock.packages)
    .filter((path) => path !== "" && lock.packages[path]!.dev)
    .map(devPackage);
  const direct = Object.keys(lock.packages[""]!.devDependencies ?? {}).map((name) =>
    devPackage(`node_modules/${name}`),
  );
  // (A devDependency the production tree also needs, e.g. through tsop, is not marked dev.)
  const devOnly = direct.filter((p) => dev.includes(p));
  expect(devOnly.length).toBeGreaterThan(0);
  expect(devOnly.filter((p) => inSbom.has(p))).toEqual([]);
  expect(dev.filter((p) => inSbom.has(p) && !installed.has(p))).toEqual([]);

  const attested = await execa(
    rigBinary("cosign"),
    ["verify-attestation", "--key", join(work, "tsop.pub"), "--type", "slsaprovenance1"].concat([
      "--insecure-ignore-tlog=true",
      pinned,
    ]),
    { env: cosignEnv, reject: false },
  );
  expect(attested.exitCode, attested.stderr).toBe(0);
  const envelope = JSON.parse(attested.stdout.trim().split("\n")[0]!) as { payload: string };
  const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString()) as {
    predicate: { buildDefinition: { buildType: string; resolvedDependencies: unknown[] } };
  };
  const lockDigest = createHash("sha256")
    .update(await readFile(join(project, "package-lock.json")))
    .digest("hex");
  const baseDigest = bom.components.find((c) => c.type === "container")!.version;
  expect(statement.predicate.buildDefinition).toMatchObject({
    buildType: "pkg:npm/tsop#build-types/image-build/v1",
    resolvedDependencies: [
      { name: "base", digest: { sha256: baseDigest.slice(7) } },
      { name: "package-lock.json", digest: { sha256: lockDigest } },
    ],
  });
}, 600_000);
