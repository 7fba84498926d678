// The RoleBindings a project's own config tree already has. A project ported from Go keeps
// config/rbac/namespaced_role_binding.yaml (controller-gen never bound namespaced Roles); a second
// binding with the same id in role.yaml makes kustomize refuse the whole tree. Read from the
// kustomization beside role.yaml and what it lists (files, and directories with their own
// kustomization, recursively), role.yaml itself left out. Every file read goes through `read`, which
// the generate cache records, so editing the user's binding invalidates the cached role.yaml.
import { isAbsolute, join, relative } from "node:path";
import { readYamlValue, readYamlValues } from "../../common/yaml/read-values.js";
import type { Message } from "../diagnostics.js";
import { msg } from "../messages.js";
import { bindingName, MANAGER_SUBJECT, type RoleBucket } from "./normalize.js";

export interface ConfigBinding {
  /** The file it came from, relative to the project directory (forward slashes). */
  file: string;
  name: string;
  namespace: string;
  roleRef: { kind: string; name: string };
  /** Does it bind its role to the manager's ServiceAccount (controller-manager in system)? */
  bindsManager: boolean;
}

/** What the reader may ask the disk (recorded by the caller for the generate cache). */
export interface TreeReader {
  text(path: string): string | undefined;
  isDirectory(path: string): boolean;
}

const KUSTOMIZATION_FILES = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/**
 * Every RoleBinding of the tree rooted at `rbacDir`'s kustomization, but those of `generated`
 * (role.yaml). Unreadable or invalid files are skipped: kustomize reports them when it builds.
 */
export function readConfigBindings(
  rbacDir: string,
  generated: string,
  root: string,
  reader: TreeReader,
): ConfigBinding[] {
  const out: ConfigBinding[] = [];
  const visited = new Set<string>();
  const visitDir = (dir: string): void => {
    if (visited.has(dir)) return;
    visited.add(dir);
    const file = KUSTOMIZATION_FILES.map((n) => join(dir, n)).find((p) => reader.text(p) !== undefined);
    if (file === undefined) return;
    const k = readYamlValue(reader.text(file) ?? "", { where: file });
    if (!isRecord(k)) return;
    for (const entry of [...list(k.resources), ...list(k.bases)]) {
      if (/^[a-z]+:\/\//i.test(entry) || entry.startsWith("github.com/")) continue;
      const path = join(dir, entry);
      // Nothing outside the project is read: kustomize reports such an entry when it builds.
      if (!insideProject(root, path)) continue;
      if (reader.isDirectory(path)) visitDir(path);
      else if (path !== generated) out.push(...bindingsIn(path, relative(root, path), reader));
    }
  };
  visitDir(rbacDir);
  return out;
}

function bindingsIn(path: string, shown: string, reader: TreeReader): ConfigBinding[] {
  const text = reader.text(path);
  if (text === undefined || !text.includes("RoleBinding")) return [];
  const out: ConfigBinding[] = [];
  // A document with a syntax error is left out: kustomize reports it when it builds.
  for (const o of readYamlValues(text, { where: shown, onSyntaxError: () => undefined })) {
    if (!isRecord(o) || o.kind !== "RoleBinding") continue;
    const meta = isRecord(o.metadata) ? o.metadata : {};
    const roleRef = isRecord(o.roleRef) ? o.roleRef : {};
    const subjects = Array.isArray(o.subjects) ? o.subjects.filter(isRecord) : [];
    out.push({
      file: shown.split("\\").join("/"),
      name: String(meta.name ?? ""),
      namespace: String(meta.namespace ?? ""),
      roleRef: { kind: String(roleRef.kind ?? ""), name: String(roleRef.name ?? "") },
      bindsManager: subjects.some(
        (s) =>
          s.kind === MANAGER_SUBJECT.kind &&
          s.name === MANAGER_SUBJECT.name &&
          s.namespace === MANAGER_SUBJECT.namespace,
      ),
    });
  }
  return out;
}

/** What to do with the RoleBinding tsop would write for each namespaced Role. */
export interface BindingPlan {
  /** Buckets whose binding the config tree already provides: role.yaml writes none for them. */
  provided: Set<RoleBucket>;
  /** One line each, naming the user's file. */
  notes: string[];
  /** A user's binding that takes the generated binding's id but does not do its job. */
  conflicts: Array<{ file: string; message: Message }>;
}

/**
 * Per namespaced Role: a user binding of that Role to the manager's ServiceAccount makes the
 * generated one redundant (left out, with a note). A user binding that only shares the generated
 * binding's id (another role, or other subjects) is a conflict: dropping ours would silently take
 * the manager's permissions away, writing it would make kustomize refuse the tree.
 */
export function planBindings(
  buckets: readonly RoleBucket[],
  found: readonly ConfigBinding[],
  roleYaml: string,
): BindingPlan {
  const plan: BindingPlan = { provided: new Set(), notes: [], conflicts: [] };
  for (const b of buckets) {
    if (b.namespace === "" || b.rules.length === 0) continue;
    const inNamespace = found.filter((f) => f.namespace === b.namespace);
    const covering = inNamespace.find(
      (f) => f.roleRef.kind === "Role" && f.roleRef.name === b.roleName && f.bindsManager,
    );
    if (covering) {
      plan.provided.add(b);
      plan.notes.push(msg.bindingProvided(covering.file, b.roleName, b.namespace, roleYaml));
      continue;
    }
    const clash = inNamespace.find((f) => f.name === bindingName(b.roleName));
    if (clash) {
      plan.conflicts.push({
        file: clash.file,
        message: msg.bindingConflict(clash.file, clash.name, b.roleName, b.namespace, roleYaml),
      });
    }
  }
  return plan;
}

function list(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function insideProject(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel);
}
