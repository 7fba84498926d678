// The bad-input corpus (issue 15): table-driven through the built CLI. Every case must exit 1 or 2
// with a message naming the file, field or object, print no stack trace, and leave the project
// exactly as it was (nothing written, no temp files). Usage errors exit 2 before any cluster or
// registry is contacted (the kubeconfig here does not exist, and no registry runs).
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { CRD, DEPLOYMENT, MEMCACHED_EXPECTED, miniProject } from "../bundle/helpers.js";
import { runTsop } from "../support/cli.js";
import { readTree } from "../support/testdir.js";

interface Case {
  name: string;
  args: string[];
  exit: 1 | 2;
  message: RegExp;
  /** Extra or replaced project files. */
  files?: Record<string, string>;
  /** Prepares the project directory further. */
  setup?: (dir: string) => Promise<void>;
  env?: Record<string, string>;
  /** Text on stdin. */
  input?: string;
}

async function appendProject(dir: string, text: string): Promise<void> {
  const { appendFile } = await import("node:fs/promises");
  await appendFile(join(dir, "PROJECT"), text);
}

const KUBE = ["--kubeconfig", "/nonexistent/kubeconfig"];
const BASE = [
  "--description",
  "Runs demos",
  "--provider-name",
  "Example Inc",
  "--maintainers",
  "Jane Doe <jane@example.com>",
];
const bundleCmd = (...args: string[]) => ["bundle", "--skip-generate", ...BASE, ...args];

const BAD_REFS: Array<[string, RegExp]> = [
  ["Quay.io/Org/App:v1", /the repository name must be lowercase/],
  ["app:v1:v2", /path component "app:v1" is invalid/],
  [`${"a".repeat(300)}:v1`, /the name is longer than 255 characters/],
  ["not a ref!!", /path component "not a ref!!" is invalid/],
  ["quay.io/org/app:", /the tag after ':' is empty/],
  ["quay.io/org/app@sha256:abc", /a sha256 digest has 64 hex digits/],
  ["app-:v1", /path component "app-" is invalid/],
  ["quay.io/org/App", /the repository name must be lowercase/],
  ["quay.io//app:v1", /empty path component/],
  ["quay.io/org/app:-tag", /tag "-tag" is invalid/],
  ["app@md5:0123", /digest algorithm "md5" is not supported/],
];

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").slice(0, 60);

const BOMB = (() => {
  const levels = ["a: &a [x,x,x,x,x,x,x,x,x]"];
  for (let i = 1; i < 9; i++)
    levels.push(
      `l${i}: &l${i} [${Array(9)
        .fill(i === 1 ? "*a" : `*l${i - 1}`)
        .join(",")}]`,
    );
  return `${levels.join("\n")}\n`;
})();

/** A copy of the sample bundle whose CSV's manager image is `image`. */
async function bundleWithImage(dir: string, image: string): Promise<void> {
  await cp(join(MEMCACHED_EXPECTED, "bundle"), join(dir, "b"), { recursive: true });
  const file = join(dir, "b", "manifests", "memcached-operator.clusterserviceversion.yaml");
  const { readFile } = await import("node:fs/promises");
  const text = await readFile(file, "utf8");
  await writeFile(
    file,
    text.replace("image: quay.io/example/memcached-operator:v0.0.1", `image: ${JSON.stringify(image)}`),
  );
}

/** A base CSV as `tsop bundle --yes` creates it for the mini project, with `edit` applied. */
const BASE_CSV_FILE = "config/manifests/bases/demo-operator.clusterserviceversion.yaml";
const BASE_CSV = `apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  annotations:
    alm-examples: "[]"
    capabilities: Basic Install
  name: demo-operator.v0.0.0
  namespace: placeholder
spec:
  apiservicedefinitions: {}
  customresourcedefinitions:
    owned:
    - description: Demo is a demo.
      displayName: Demo
      kind: Demo
      name: demos.example.com
      version: v1
  description: The Demo Operator operator.
  displayName: Demo Operator
  install:
    spec:
      deployments: null
    strategy: ""
  installModes:
  - supported: false
    type: OwnNamespace
  - supported: false
    type: SingleNamespace
  - supported: false
    type: MultiNamespace
  - supported: true
    type: AllNamespaces
  keywords:
  - demo-operator
  maintainers:
  - email: demo-operator@example.com
    name: The demo-operator Authors
  maturity: alpha
  provider:
    name: The demo-operator Authors
  version: 0.0.0
`;
const baseCsv = (edit: (text: string) => string) => ({ [BASE_CSV_FILE]: edit(BASE_CSV) });
const BIG_FILE_BYTES = 50 * 1024 * 1024;

const CASES: Case[] = [
  // Image references, wherever tsop reads or writes them.
  ...BAD_REFS.flatMap(([ref, why]): Case[] => [
    {
      name: `bundle --image ${ref.slice(0, 30)}`,
      args: bundleCmd("--image", ref),
      exit: 2,
      message: new RegExp(`--image: invalid image reference "${esc(ref)}[^]*${why.source}`),
    },
    {
      name: `bundle --bundle-image ${ref.slice(0, 30)}`,
      args: bundleCmd("--fbc", "catalog", "--bundle-image", ref),
      exit: 2,
      message: new RegExp(`--bundle-image: invalid image reference[^]*${why.source}`),
    },
    {
      name: `init --image ${ref.slice(0, 30)}`,
      args: ["init", "newop", "--domain", "example.com", "--skip-install", "--image", ref],
      exit: 2,
      message: new RegExp(`--image "${esc(ref)}[^]*(is not an image reference|has a digest; give a tag)`),
    },
    {
      name: `run bundle ${ref.slice(0, 30)}`,
      args: ["run", "bundle", ref, ...KUBE],
      exit: 2,
      message: new RegExp(`<bundle-image>: invalid image reference[^]*${why.source}`),
    },
    {
      name: `run bundle-upgrade ${ref.slice(0, 30)}`,
      args: ["run", "bundle-upgrade", ref, ...KUBE],
      exit: 2,
      message: new RegExp(`<bundle-image>: invalid image reference[^]*${why.source}`),
    },
    {
      name: `run bundle --index-image ${ref.slice(0, 30)}`,
      args: ["run", "bundle", "quay.io/org/app-bundle:v1", "--index-image", ref, ...KUBE],
      exit: 2,
      message: new RegExp(`--index-image: invalid image reference[^]*${why.source}`),
    },
    {
      name: `bundle validate: CSV container image ${ref.slice(0, 30)}`,
      args: ["bundle", "validate", "b"],
      setup: (d) => bundleWithImage(d, ref),
      exit: 1,
      message: new RegExp(
        `RI-01 +manifests/memcached-operator\\.clusterserviceversion\\.yaml: spec\\.install\\.spec\\.deployments\\[0\\]\\.spec\\.template\\.spec\\.containers\\[\\d\\]\\.image: invalid image reference[^]*${why.source}`,
      ),
    },
  ]),
  // Registry settings.
  ...["soon", "-1s", "0", "5 parsecs"].map((value): Case => ({
    name: `TSOP_REGISTRY_REQUEST_TIMEOUT=${value}`,
    args: ["bundle", "validate", "127.0.0.1:1/team/app:v1", "--plain-http"],
    env: { TSOP_REGISTRY_REQUEST_TIMEOUT: value },
    exit: 2,
    message: /TSOP_REGISTRY_REQUEST_TIMEOUT/,
  })),
  {
    name: "TSOP_REGISTRY_OPERATION_TIMEOUT=never",
    args: ["bundle", "validate", "127.0.0.1:1/team/app:v1", "--plain-http"],
    env: { TSOP_REGISTRY_OPERATION_TIMEOUT: "never" },
    exit: 2,
    message: /invalid TSOP_REGISTRY_OPERATION_TIMEOUT "never"/,
  },
  // bundle validate targets.
  {
    name: "bundle validate of a missing directory",
    args: ["bundle", "validate", "./nope"],
    exit: 1,
    message: /bundle directory \.\/nope does not exist/,
  },
  {
    name: "bundle validate of a file",
    args: ["bundle", "validate", "PROJECT"],
    exit: 2,
    message: /PROJECT is a file; a bundle is a directory/,
  },
  {
    name: "bundle validate of a missing OCI layout",
    args: ["bundle", "validate", "oci:./nolayout:v1"],
    exit: 1,
    message: /OCI layout .*nolayout: oci-layout is missing/,
  },
  {
    name: "bundle validate --select-optional bogus",
    args: ["bundle", "validate", "b", "--select-optional", "bogus"],
    exit: 2,
    message: /--select-optional "bogus" does not match any optional suite/,
  },
  {
    name: "bundle validate of a malformed image reference",
    args: ["bundle", "validate", "Registry.example.com:5000/Team/App:v1"],
    exit: 2,
    message:
      /invalid image reference "Registry\.example\.com:5000\/Team\/App:v1": the repository name must be lowercase/,
  },
  // YAML bombs and invalid YAML name the file (and line:column).
  {
    name: "a YAML bomb in a bundle manifest",
    args: ["bundle", "validate", "b"],
    setup: async (d) => {
      await cp(join(MEMCACHED_EXPECTED, "bundle"), join(d, "b"), { recursive: true });
      await writeFile(join(d, "b/manifests/bomb.yaml"), BOMB);
    },
    exit: 1,
    message: /manifests\/bomb\.yaml: cannot parse YAML at line 1: the YAML aliases/,
  },
  {
    name: "a YAML bomb in bundle -f",
    args: bundleCmd("-f", "bomb.yaml"),
    files: { "bomb.yaml": BOMB },
    exit: 1,
    message: /bomb\.yaml:1: the YAML aliases \(\*name references\) expand too much/,
  },
  {
    name: "a YAML bomb in a config manifest",
    args: bundleCmd(),
    files: { "config/manifests/crd.yaml": BOMB },
    exit: 1,
    message: /crd\.yaml:1: the YAML aliases/,
  },
  {
    name: "invalid YAML in a bundle manifest gives line and column",
    args: ["bundle", "validate", "b"],
    setup: async (d) => {
      await cp(join(MEMCACHED_EXPECTED, "bundle"), join(d, "b"), { recursive: true });
      await writeFile(join(d, "b/manifests/bad.yaml"), "a: 1\nb: [unclosed\n");
    },
    exit: 1,
    message: /manifests\/bad\.yaml: cannot parse YAML at line 3, column 1/,
  },
  {
    name: "invalid YAML in bundle -f gives file:line:column",
    args: bundleCmd("-f", "bad.yaml"),
    files: { "bad.yaml": "kind: X\nmetadata: {name: [\n" },
    exit: 1,
    message: /invalid YAML in bad\.yaml:\d+:\d+/,
  },
  {
    name: "invalid YAML in a config manifest gives file:line:column",
    args: bundleCmd(),
    files: { "config/manifests/crd.yaml": "a: 1\n  b: 2\n" },
    exit: 1,
    message: /invalid YAML in config\/manifests\/crd\.yaml:1:4: Nested mappings/,
  },
  {
    name: "bundle -f of a missing file",
    args: bundleCmd("-f", "missing.yaml"),
    exit: 1,
    message: /missing\.yaml/,
  },
  // Flags and values.
  { name: "bundle --version not semver", args: bundleCmd("--version", "1.0"), exit: 2, message: /1\.0/ },
  {
    name: "bundle --default-channel not among channels",
    args: bundleCmd("--channels", "alpha", "--default-channel", "beta"),
    exit: 2,
    message: /beta/,
  },
  {
    name: "bundle --channels with a bad name",
    args: bundleCmd("--channels", "al pha"),
    exit: 2,
    message: /channel name "al pha"/,
  },
  {
    name: "bundle --package not a DNS label",
    args: bundleCmd("--package", "Bad_Pkg"),
    exit: 2,
    message: /package name "Bad_Pkg" is not a DNS-1123 label/,
  },
  {
    name: "bundle --replaces-previous without a previous bundle",
    args: bundleCmd("--replaces-previous", "--version", "0.0.2"),
    exit: 2,
    message: /--replaces-previous: no previous bundle CSV/,
  },
  {
    name: "SOURCE_DATE_EPOCH not a number",
    args: bundleCmd(),
    env: { SOURCE_DATE_EPOCH: "yesterday" },
    exit: 2,
    message: /SOURCE_DATE_EPOCH="yesterday"/,
  },
  {
    name: "bundle --fbc without a bundle image",
    args: bundleCmd("--fbc", "catalog"),
    exit: 2,
    message: /--fbc needs the bundle image reference/,
  },
  {
    name: "run bundle --timeout not a duration",
    args: ["run", "bundle", "quay.io/org/app-bundle:v1", "--timeout", "soon", ...KUBE],
    exit: 2,
    message: /soon/,
  },
  {
    name: "run bundle --install-mode unknown",
    args: [
      "run",
      "bundle",
      "quay.io/org/app-bundle:v1",
      "--install-mode",
      "Everywhere",
      ...KUBE,
      "--dry-run",
    ],
    exit: 2,
    message: /Everywhere/,
  },
  {
    name: "cleanup --timeout not a duration",
    args: ["cleanup", "demo-operator", "--timeout", "later", ...KUBE],
    exit: 2,
    message: /later/,
  },
  // The Low list of issue 15: accepted before although invalid.
  {
    name: "bundle --skip-range not a range",
    args: bundleCmd("--skip-range", "not a range"),
    exit: 2,
    message: /--skip-range "not a range" is not a semver range/,
  },
  {
    name: "skipRange not a range in tsop.bundle.yaml",
    args: bundleCmd(),
    files: { "tsop.bundle.yaml": "skipRange: not a range\n" },
    exit: 2,
    message: /skipRange in tsop.bundle.yaml "not a range" is not a semver range/,
  },
  {
    name: "base CSV maturity: {nested: 1}",
    args: ["bundle", "--skip-generate"],
    files: baseCsv((t) => t.replace("  maturity: alpha\n", "  maturity:\n    nested: 1\n")),
    exit: 1,
    message:
      /demo-operator\.clusterserviceversion\.yaml: the base CSV has invalid fields:\n {2}- spec\.maturity must be a string, not a mapping/,
  },
  {
    name: "base CSV maintainer with a malformed email",
    args: ["bundle", "--skip-generate"],
    files: baseCsv((t) => t.replace("email: demo-operator@example.com", "email: not-an-email")),
    exit: 1,
    message: /spec\.maintainers\[0\]\.email "not-an-email" is not a valid email address/,
  },
  {
    name: "base CSV maintainers as a string",
    args: ["bundle", "--skip-generate"],
    files: baseCsv((t) =>
      t.replace(
        "  maintainers:\n  - email: demo-operator@example.com\n    name: The demo-operator Authors\n",
        "  maintainers: jane\n",
      ),
    ),
    exit: 1,
    message: /spec\.maintainers must be a list, not a string/,
  },
  {
    name: "bundle --maintainers with a malformed email",
    args: [
      "bundle",
      "--skip-generate",
      "--description",
      "d",
      "--provider-name",
      "p",
      "--maintainers",
      "Jane <not-an-email>",
    ],
    exit: 2,
    message: /--maintainers: maintainer "Jane <not-an-email>" must be "Name <email>"/,
  },
  {
    name: "tsop.bundle.yaml maturity: {nested: 1}",
    args: bundleCmd(),
    files: { "tsop.bundle.yaml": "maturity:\n  nested: 1\n" },
    exit: 1,
    message:
      /tsop\.bundle\.yaml: invalid bundle config:\n {2}- maturity must be a single value, not a mapping/,
  },
  {
    name: "tsop.bundle.yaml channels: 5",
    args: bundleCmd(),
    files: { "tsop.bundle.yaml": "channels: 5\n" },
    exit: 1,
    message: /channels must be a list \(or a comma-separated string\), not a number \(5\)/,
  },
  {
    name: "tsop.bundle.yaml channels with a mapping entry",
    args: bundleCmd(),
    files: { "tsop.bundle.yaml": "channels:\n- alpha\n- {name: beta}\n" },
    exit: 1,
    message: /channels entries must be strings, not a mapping/,
  },
  {
    name: "tsop.bundle.yaml labels as a list",
    args: bundleCmd(),
    files: { "tsop.bundle.yaml": "labels: [a, b]\n" },
    exit: 1,
    message: /labels must be a mapping, not a list/,
  },
  {
    name: "bundle validate --k8s-version abc",
    args: ["bundle", "validate", "--k8s-version", "abc"],
    exit: 2,
    message: /"abc" is not a Kubernetes version such as 1\.29/,
  },
  {
    name: 'PROJECT resources: "string" (bundle)',
    args: bundleCmd(),
    setup: async (dir) => appendProject(dir, 'resources: "string"\n'),
    exit: 1,
    message: /PROJECT: resources must be a list, not a string/,
  },
  {
    name: 'PROJECT resources: "string" (create api)',
    args: [
      "create",
      "api",
      "--group",
      "cache",
      "--version",
      "v1",
      "--kind",
      "Memcached",
      "--resource",
      "--controller",
    ],
    setup: async (dir) => appendProject(dir, 'resources: "string"\n'),
    exit: 1,
    message: /PROJECT is invalid:\n {2}- resources must be a list/,
  },
  {
    name: "empty PROJECT (bundle)",
    args: bundleCmd(),
    files: { PROJECT: "" },
    exit: 1,
    message: /PROJECT: the file is empty; it must be a YAML mapping/,
  },
  {
    name: "empty PROJECT (create api)",
    args: [
      "create",
      "api",
      "--group",
      "cache",
      "--version",
      "v1",
      "--kind",
      "Memcached",
      "--resource",
      "--controller",
    ],
    files: { PROJECT: "# nothing here\n" },
    exit: 1,
    message: /PROJECT: the file is empty; it must be a YAML mapping/,
  },
  {
    name: "cleanup Bad Name",
    args: ["cleanup", "Bad Name", ...KUBE],
    exit: 2,
    message: /package name "Bad Name" is not a DNS-1123 subdomain/,
  },
  {
    name: "cleanup memop) (must not select memop)",
    args: ["cleanup", "memop)", ...KUBE],
    exit: 2,
    message: /package name "memop\)" is not a DNS-1123 subdomain/,
  },
  {
    name: "bundle -f of a 50 MB file",
    args: bundleCmd("-f", "big.yaml"),
    setup: async (dir) => writeFile(join(dir, "big.yaml"), Buffer.alloc(BIG_FILE_BYTES, "a")),
    exit: 1,
    message: /big\.yaml: the file is too large \(50\.0 MiB\); tsop reads manifests of up to 16\.0 MiB/,
  },
  {
    name: "bundle -f - with 20 MB on stdin",
    args: bundleCmd("-f", "-"),
    input: "a".repeat(20 * 1024 * 1024),
    exit: 1,
    message: /<stdin>: the file is too large \(more than 16\.0 MiB\)/,
  },
  {
    name: "invalid YAML in bundle -f gives line:column",
    args: bundleCmd("-f", "bad.yaml"),
    files: { "bad.yaml": "kind: ConfigMap\nmetadata: [\nname: x\n" },
    exit: 1,
    message: /bad\.yaml:3:\d+/,
  },
  {
    name: "invalid YAML in tsop.bundle.yaml gives line:column",
    args: bundleCmd(),
    files: { "tsop.bundle.yaml": "channels: [alpha\nversion: 1\n" },
    exit: 1,
    message: /tsop\.bundle\.yaml:\d+:\d+/,
  },
  {
    name: "invalid YAML in the base CSV gives line:column",
    args: ["bundle", "--skip-generate"],
    files: baseCsv((t) => `${t}  bad: [\n`),
    exit: 1,
    message: /demo-operator\.clusterserviceversion\.yaml:\d+:\d+/,
  },
  {
    name: "invalid YAML in PROJECT gives line:column (create api)",
    args: [
      "create",
      "api",
      "--group",
      "cache",
      "--version",
      "v1",
      "--kind",
      "Memcached",
      "--resource",
      "--controller",
    ],
    files: { PROJECT: "domain: example.com\n  projectName: [x\n" },
    exit: 1,
    message: /PROJECT:\d+:\d+/,
  },
];

describe.concurrent("bad-input corpus through the CLI", () => {
  it("has at least 100 cases", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(100);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  for (const c of CASES) {
    it(
      c.name,
      async () => {
        // Concurrent tests: each removes its own directory (testdir's hook belongs to one test at a time).
        const dir = await mkdtemp(join(tmpdir(), "tsop-bad-input-"));
        try {
          await check(c, dir);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
      90_000,
    );
  }
});

async function check(c: Case, dir: string): Promise<void> {
  const files = {
    ...miniProject({
      "crd.yaml": CRD,
      "deployment.yaml": DEPLOYMENT("demo-operator-controller-manager", "sa"),
    }),
    ...c.files,
  };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  await c.setup?.(dir);
  const tmp = join(dir, ".tmp-for-tsop");
  await mkdir(tmp);
  const before = await readTree(dir);
  const run = await runTsop(c.args, {
    cwd: dir,
    env: { CI: "1", TMPDIR: tmp, HOME: dir, ...c.env },
    timeoutMs: 60_000,
    ...(c.input === undefined ? {} : { input: c.input }),
  });
  const output = run.stdout + run.stderr;
  expect(run.exitCode, output).toBe(c.exit);
  expect(output).toMatch(c.message);
  expect(output).not.toMatch(/\n\s+at .+:\d+:\d+/);
  expect(output).not.toContain("unexpected error");
  expect(await readTree(dir)).toEqual(before);
  expect(await readdir(tmp)).toEqual([]);
}
