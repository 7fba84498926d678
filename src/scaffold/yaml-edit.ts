// Edits of YAML files the user owns (kustomizations), through the yaml Document API so comments,
// key order and formatting elsewhere in the file are kept. Adding an item that is there is a no-op.
import { InvalidInputError } from "../common/errors.js";
import {
  type Document,
  editableDocument,
  isMap,
  isScalar,
  isSeq,
  parseEditableDocuments,
  type YAMLError,
  type YAMLMap,
} from "../common/yaml/edit.js";

/** The error for a file tsop was asked to edit that is not valid YAML. */
function notValidYaml(file: string, hint?: string): (error: YAMLError) => InvalidInputError {
  return (error) =>
    new InvalidInputError(`${file} is not valid YAML: ${error.message}`, {
      location: { file },
      ...(hint === undefined ? {} : { hint }),
    });
}

export function appendToYamlList(text: string, file: string, key: string, item: string): string {
  const doc = editableDocument(
    text,
    notValidYaml(file, `fix the file, then run the command again (tsop adds "${item}" to ${key})`),
  );
  const list = doc.get(key, true);
  if (list === undefined || list === null || (isScalar(list) && list.value === null)) {
    doc.set(key, doc.createNode([item]));
    return doc.toString({ indentSeq: false });
  }
  if (!isSeq(list)) {
    throw new InvalidInputError(`${file}: ${key} must be a list`, {
      location: { file },
      hint: `make ${key} a list, then run the command again`,
    });
  }
  if (list.items.some((node) => isScalar(node) && node.value === item)) return text;
  if (list.items.length === 0) {
    // `resources: []` is a flow list; the first item turns it into an ordinary block list.
    list.flow = false;
  }
  list.add(doc.createNode(item));
  return doc.toString({ indentSeq: false });
}

/**
 * Each container named `container` in the Deployments of `docs`, with its document and pod spec;
 * lazily, so a caller that stops early never reads the later documents (nor their syntax errors).
 */
function* deploymentContainers(
  docs: ReturnType<typeof parseEditableDocuments>,
  file: string,
  container: string,
): Generator<{ doc: Document; pod: YAMLMap; item: YAMLMap }> {
  for (const doc of docs) {
    if (doc.errors.length > 0) throw notValidYaml(file)(doc.errors[0]!);
    if (doc.get("kind") !== "Deployment") continue;
    const pod = doc.getIn(["spec", "template", "spec"], true);
    const containers = doc.getIn(["spec", "template", "spec", "containers"], true);
    if (!isMap(pod) || !isSeq(containers)) continue;
    for (const item of containers.items) {
      if (isMap(item) && item.get("name") === container) yield { doc, pod, item };
    }
  }
}

/**
 * Adds `name=value` to the env of `container` in the Deployment of a multi-document manifest file,
 * unless that variable is already set there. Returns the text unchanged when the file has no such
 * Deployment container (the user may have restructured it).
 */
export function addDeploymentEnv(
  text: string,
  file: string,
  container: string,
  name: string,
  value: string,
): string {
  const docs = parseEditableDocuments(text);
  let changed = false;
  for (const { doc, item } of deploymentContainers(docs, file, container)) {
    const env = item.get("env", true);
    if (isSeq(env)) {
      if (env.items.some((e) => isMap(e) && e.get("name") === name)) return text;
      env.add(doc.createNode({ name, value }));
    } else {
      item.set("env", doc.createNode([{ name, value }]));
    }
    changed = true;
  }
  if (!changed) return text;
  return docs.map((doc) => doc.toString({ indentSeq: false })).join("");
}

/** Block style for edited kustomizations: multi-line strings (inline patches) stay literal blocks. */
const OWNED_STYLE = { indentSeq: false, lineWidth: 0, blockQuote: "literal" } as const;

function parseOwned(text: string, file: string) {
  return editableDocument(text, notValidYaml(file, "fix the file, then run the command again"));
}

/** Appends each object item to the list at `key` unless an equal item (as JSON) is there already. */
export function appendObjectsToYamlList(
  text: string,
  file: string,
  key: string,
  items: readonly object[],
): string {
  const doc = parseOwned(text, file);
  let list = doc.get(key, true);
  if (list === undefined || list === null || (isScalar(list) && list.value === null)) {
    doc.set(key, doc.createNode([]));
    list = doc.get(key, true);
  }
  if (!isSeq(list)) {
    throw new InvalidInputError(`${file}: ${key} must be a list`, {
      location: { file },
      hint: `make ${key} a list, then run the command again`,
    });
  }
  const present = new Set(list.items.map((node) => JSON.stringify((node as { toJSON(): unknown }).toJSON())));
  let changed = false;
  for (const item of items) {
    if (present.has(JSON.stringify(item))) continue;
    list.flow = false;
    list.add(doc.createNode(item, { aliasDuplicateObjects: false }));
    changed = true;
  }
  return changed ? doc.toString(OWNED_STYLE) : text;
}

/**
 * kustomize replacements: adds each target to the replacement with the same source, or adds a new
 * replacement; targets already there are left alone.
 */
export function addReplacementTargets(
  text: string,
  file: string,
  source: object,
  targets: readonly object[],
): string {
  const doc = parseOwned(text, file);
  const list = doc.get("replacements", true);
  if (list === undefined || list === null || (isScalar(list) && list.value === null)) {
    doc.set("replacements", doc.createNode([{ source, targets }], { aliasDuplicateObjects: false }));
    return doc.toString(OWNED_STYLE);
  }
  if (!isSeq(list)) {
    throw new InvalidInputError(`${file}: replacements must be a list`, { location: { file } });
  }
  const sameSource = list.items.find(
    (node) => isMap(node) && JSON.stringify(node.toJSON().source) === JSON.stringify(source),
  );
  if (!isMap(sameSource)) {
    list.flow = false;
    list.add(doc.createNode({ source, targets }, { aliasDuplicateObjects: false }));
    return doc.toString(OWNED_STYLE);
  }
  if (!isSeq(sameSource.get("targets", true))) sameSource.set("targets", doc.createNode([]));
  const seq = sameSource.get("targets", true);
  if (!isSeq(seq)) return text;
  const present = new Set(seq.items.map((node) => JSON.stringify((node as { toJSON(): unknown }).toJSON())));
  let changed = false;
  for (const target of targets) {
    if (present.has(JSON.stringify(target))) continue;
    seq.add(doc.createNode(target, { aliasDuplicateObjects: false }));
    changed = true;
  }
  return changed ? doc.toString(OWNED_STYLE) : text;
}

/**
 * Makes sure the Deployment's `container` has a `volumeMounts` list and its pod a `volumes` list,
 * so JSON patches can add to them. Returns the text unchanged when both exist or there is no such
 * Deployment container.
 */
export function ensureVolumeLists(text: string, file: string, container: string): string {
  const docs = parseEditableDocuments(text);
  let changed = false;
  for (const { doc, pod, item } of deploymentContainers(docs, file, container)) {
    if (!isSeq(item.get("volumeMounts", true))) {
      item.set("volumeMounts", doc.createNode([]));
      changed = true;
    }
    if (!isSeq(pod.get("volumes", true))) {
      pod.set("volumes", doc.createNode([]));
      changed = true;
    }
  }
  if (!changed) return text;
  return docs.map((doc) => doc.toString(OWNED_STYLE)).join("");
}
