// Regenerates data/kubernetes-schemas.json: the schemas of Kubernetes' built-in types as a CRD
// embeds them, read from the OpenAPI v3 that the real kube-apiserver of the pinned version serves
// (started from the rig: etcd + kube-apiserver), reduced to what `tsop generate` needs and in
// controller-gen's conventions (see docs/generate.md, "Built-in Kubernetes types").
//
//   npm run build && node scripts/k8s-schemas.mjs
//
// Deterministic: the same Kubernetes version gives byte-identical output.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as clientNode from "@kubernetes/client-node";
import { KUBERNETES_VERSION } from "./rig/components.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(ROOT, "data/kubernetes-schemas.json");
const QUANTITY_PATTERN =
  "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

/** Types controller-gen does not walk: the schema it emits for each (controller-tools known_types.go). */
const KNOWN = {
  "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": { type: "object" },
  "io.k8s.apimachinery.pkg.apis.meta.v1.Time": { type: "string", format: "date-time" },
  "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": { type: "string", format: "date-time" },
  "io.k8s.apimachinery.pkg.apis.meta.v1.Duration": { type: "string" },
  "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": { type: "object" },
  "io.k8s.apimachinery.pkg.api.resource.Quantity": {
    anyOf: [{ type: "integer" }, { type: "string" }],
    pattern: QUANTITY_PATTERN,
    "x-kubernetes-int-or-string": true,
  },
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
    anyOf: [{ type: "integer" }, { type: "string" }],
    "x-kubernetes-int-or-string": true,
  },
  "io.k8s.apimachinery.pkg.runtime.RawExtension": {
    type: "object",
    "x-kubernetes-preserve-unknown-fields": true,
  },
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON": {
    "x-kubernetes-preserve-unknown-fields": true,
  },
};

const KEEP = [
  "type",
  "format",
  "description",
  "properties",
  "required",
  "items",
  "additionalProperties",
  "enum",
  "default",
  "pattern",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "uniqueItems",
  "nullable",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-int-or-string",
  "x-kubernetes-validations",
];

async function startApiserver() {
  const rig = join(ROOT, "scripts/rig/index.mjs");
  const assets = mkdtempSync(join(tmpdir(), "tsop-k8s-schemas-"));
  for (const name of ["etcd", "kube-apiserver"]) {
    const path = execFileSync(process.execPath, [rig, "path", name], { encoding: "utf8" }).trim();
    symlinkSync(path, join(assets, name));
  }
  const { startTestCluster } = await import(join(ROOT, "dist/testing/index.js"));
  const cluster = await startTestCluster({ controlPlane: "real", binaryAssetsDirectory: assets });
  return { cluster, cleanup: () => rmSync(assets, { recursive: true, force: true }) };
}

async function fetchOpenApi(cluster) {
  const get = (path) =>
    new Promise((resolve, reject) => {
      const req = https.get(
        `${cluster.apiserverUrl}${path}`,
        {
          ca: cluster.caCertificate,
          headers: { authorization: `Bearer ${cluster.token}`, accept: "application/json" },
        },
        (res) => {
          const chunks = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () => {
            if (res.statusCode !== 200) reject(new Error(`GET ${path}: ${res.statusCode}`));
            else resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
          });
        },
      );
      req.on("error", reject);
    });
  const index = await get("/openapi/v3");
  const schemas = {};
  for (const [, entry] of Object.entries(index.paths).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const doc = await get(entry.serverRelativeURL);
    Object.assign(schemas, doc.components?.schemas ?? {});
  }
  return { schemas, version: cluster.kubernetesVersion };
}

const refName = (ref) => ref.replace("#/components/schemas/", "");

function isZero(value) {
  return (
    value === "" ||
    value === 0 ||
    value === false ||
    (Array.isArray(value) && value.length === 0) ||
    (value && typeof value === "object" && Object.keys(value).length === 0)
  );
}

/** One property or item schema of the OpenAPI, in controller-gen's form. */
function reduce(schema, requiredHere) {
  if (schema.$ref || (schema.allOf?.length === 1 && schema.allOf[0].$ref)) {
    const target = refName(schema.$ref ?? schema.allOf[0].$ref);
    const out = { $ref: target };
    if (schema.description) out.description = schema.description;
    if (schema.default !== undefined && !isZero(schema.default)) out.default = schema.default;
    return out;
  }
  const out = {};
  for (const key of KEEP) {
    if (schema[key] === undefined) continue;
    if (key === "properties") {
      const required = new Set(schema.required ?? []);
      out.properties = Object.fromEntries(
        Object.keys(schema.properties)
          .sort()
          .map((name) => [name, reduce(schema.properties[name], required.has(name))]),
      );
    } else if (key === "items") out.items = reduce(schema.items, true);
    else if (key === "additionalProperties")
      out.additionalProperties =
        typeof schema.additionalProperties === "object"
          ? reduce(schema.additionalProperties, true)
          : schema.additionalProperties;
    else if (key === "default") {
      // openapi-gen writes the zero value as the default of every required (non-omitempty) field
      // and of nested structs; controller-gen only writes explicit +default markers.
      if (!(isZero(schema.default) && (requiredHere || typeof schema.default === "object")))
        out.default = schema.default;
    } else if (key === "required") out.required = [...schema.required].sort();
    else out[key] = schema[key];
  }
  // The "Possible enum values" suffix is openapi-gen's rendering of +enum; controller-gen has neither.
  delete out.enum;
  if (out.description) out.description = out.description.replace(/\n\nPossible enum values:[\s\S]*$/, "");
  return out;
}

/** client-node model class name → definition name, confirmed by equal property names. */
function clientNodeNames(definitions) {
  const out = {};
  for (const [name, schema] of Object.entries(definitions)) {
    const m =
      /^io\.k8s\.(?:api\.([a-z0-9.]+)\.|apimachinery\.pkg\.apis\.([a-z0-9]+)\.|apiextensions-apiserver\.pkg\.apis\.([a-z0-9]+)\.|kube-aggregator\.pkg\.apis\.([a-z0-9]+)\.)(v\d+(?:(?:alpha|beta)\d+)?)\.([A-Za-z0-9]+)$/.exec(
        name,
      );
    if (!m) continue;
    const group = (m[1] ?? m[2] ?? m[3] ?? m[4])
      .split(".")
      .map((p) => p[0].toUpperCase() + p.slice(1))
      .join("");
    const version = m[5][0].toUpperCase() + m[5].slice(1);
    const kind = m[6];
    const wanted = Object.keys(schema.properties ?? {})
      .sort()
      .join(",");
    for (const candidate of [`${version}${kind}`, `${group}${version}${kind}`]) {
      const cls = clientNode[candidate];
      const map = typeof cls?.getAttributeTypeMap === "function" ? cls.getAttributeTypeMap() : undefined;
      if (!map) continue;
      if (
        map
          .map((a) => a.baseName)
          .sort()
          .join(",") !== wanted
      )
        continue;
      out[candidate] = name;
      break;
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

// ---------------------------------------------------------------- what only the Go sources say
// openapi-gen drops a few facts controller-gen reads from the Go types of k8s.io/api and
// k8s.io/apimachinery (in the Go module cache, where the rig's Kubernetes build put them):
// kubebuilder validation markers (metav1.Condition), the map type of inline-embedded structs
// (ConfigMapEnvSource embeds LocalObjectReference, which is atomic), `+default=ref(…)` markers
// (which controller-gen cannot read, so it writes no default), and the doc of named scalar types
// used as list items (`[]Capability`).

const GO_MODULES = join(process.env.GOMODCACHE ?? join(process.env.HOME ?? "/root", "go/pkg/mod"));

function goPackageDir(definition) {
  const version = KUBERNETES_VERSION.replace(/^v1\./, "v0.");
  let m = /^io\.k8s\.api\.([a-z0-9.]+)\.(v[a-z0-9]+)\.[A-Za-z0-9]+$/.exec(definition);
  if (m) return join(GO_MODULES, `k8s.io/api@${version}`, m[1].replace(/\./g, "/"), m[2]);
  m = /^io\.k8s\.apimachinery\.pkg\.apis\.meta\.v1\.[A-Za-z0-9]+$/.exec(definition);
  if (m) return join(GO_MODULES, `k8s.io/apimachinery@${version}`, "pkg/apis/meta/v1");
  return undefined;
}

const goPackages = new Map();

/** Structs (fields with their comment lines) and documented named scalar types of one Go package. */
function goPackage(dir) {
  if (goPackages.has(dir)) return goPackages.get(dir);
  const pkg = { structs: new Map(), scalars: new Map() };
  goPackages.set(dir, pkg);
  if (!existsSync(dir)) return pkg;
  for (const file of readdirSync(dir).sort()) {
    if (
      !file.endsWith(".go") ||
      file.endsWith("_test.go") ||
      file.startsWith("zz_generated") ||
      file.startsWith("generated")
    )
      continue;
    const lines = readFileSync(join(dir, file), "utf8").split("\n");
    let comments = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (/^\/\//.test(line)) {
        comments.push(line.replace(/^\/\/ ?/, ""));
        continue;
      }
      const scalar = /^type (\w+) (string|int32|int64|bool)$/.exec(line);
      if (scalar) pkg.scalars.set(scalar[1], docOf(comments));
      const struct = /^type (\w+) struct \{$/.exec(line);
      if (struct) i = readStruct(lines, i + 1, struct[1], pkg);
      comments = [];
    }
  }
  return pkg;
}

function docOf(comments) {
  return comments
    .filter((c) => !c.startsWith("+") && !/^TODO/.test(c))
    .join("\n")
    .trim();
}

function readStruct(lines, start, name, pkg) {
  const fields = [];
  let comments = [];
  let i = start;
  for (; i < lines.length && lines[i] !== "}"; i++) {
    const line = lines[i].trim();
    if (line.startsWith("//")) {
      comments.push(line.replace(/^\/\/ ?/, ""));
      continue;
    }
    const embedded = /^(\w+)\s+`json:",inline"/.exec(line);
    const field = /^(\w+)\s+([\w.*[\]]+)\s+`json:"([^",]*)/.exec(line);
    if (embedded) fields.push({ embedded: embedded[1], markers: comments.filter((c) => c.startsWith("+")) });
    else if (field)
      fields.push({ json: field[3], goType: field[2], markers: comments.filter((c) => c.startsWith("+")) });
    comments = [];
  }
  pkg.structs.set(name, fields);
  return i;
}

const VALIDATION_MARKERS = {
  MaxLength: (v) => ["maxLength", Number(v)],
  MinLength: (v) => ["minLength", Number(v)],
  Maximum: (v) => ["maximum", Number(v)],
  Minimum: (v) => ["minimum", Number(v)],
  Pattern: (v) => ["pattern", v.replace(/^`(.*)`$/, "$1")],
  Enum: (v) => ["enum", v.split(";")],
};

function applyGoFacts(definitions) {
  for (const [name, schema] of Object.entries(definitions)) {
    const dir = goPackageDir(name);
    if (!dir || !schema.properties) continue;
    const pkg = goPackage(dir);
    const fields = pkg.structs.get(name.slice(name.lastIndexOf(".") + 1));
    if (!fields) continue;
    const prefix = name.slice(0, name.lastIndexOf(".") + 1);
    for (const f of fields) {
      if (f.embedded) {
        const inner = definitions[prefix + f.embedded];
        if (inner?.["x-kubernetes-map-type"] && !schema["x-kubernetes-map-type"])
          schema["x-kubernetes-map-type"] = inner["x-kubernetes-map-type"];
        continue;
      }
      const prop = schema.properties[f.json];
      if (!prop) continue;
      for (const marker of f.markers) {
        if (marker.startsWith("+default=ref(")) delete prop.default;
        const m = /^\+kubebuilder:validation:(\w+)=(.*)$/.exec(marker);
        const set = m && VALIDATION_MARKERS[m[1]];
        if (set) {
          const [key, value] = set(m[2]);
          prop[key] = value;
        }
      }
      const item = /^\[\](\w+)$/.exec(f.goType);
      const doc = item && pkg.scalars.get(item[1]);
      if (doc && prop.items && !prop.items.$ref && prop.items.description === undefined)
        prop.items.description = doc;
    }
  }
}

async function main() {
  const { cluster, cleanup } = await startApiserver();
  let fetched;
  try {
    fetched = await fetchOpenApi(cluster);
  } finally {
    await cluster.stop();
    cleanup();
  }
  if (fetched.version !== KUBERNETES_VERSION)
    throw new Error(`the rig's kube-apiserver is ${fetched.version}, expected ${KUBERNETES_VERSION}`);
  const definitions = {};
  for (const name of Object.keys(fetched.schemas).sort()) {
    definitions[name] = KNOWN[name] ?? reduce(fetched.schemas[name], false);
  }
  applyGoFacts(definitions);
  const data = {
    kubernetesVersion: fetched.version,
    clientNode: clientNodeNames(fetched.schemas),
    definitions,
  };
  writeFileSync(OUT, `${JSON.stringify(data)}\n`);
  process.stderr.write(
    `wrote ${OUT}: ${Object.keys(definitions).length} definitions, ${Object.keys(data.clientNode).length} client-node models, Kubernetes ${fetched.version}\n`,
  );
}

await main();
