// Edits of YAML files the user owns (kustomizations), through the yaml Document API so comments,
// key order and formatting elsewhere in the file are kept. Adding an item that is there is a no-op.
import { isMap, isScalar, isSeq, parseAllDocuments, parseDocument } from "yaml";
import { InvalidInputError } from "../common/errors.js";

export function appendToYamlList(text: string, file: string, key: string, item: string): string {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new InvalidInputError(`${file} is not valid YAML: ${doc.errors[0]!.message}`, {
      location: { file },
      hint: `fix the file, then run the command again (tsop adds "${item}" to ${key})`,
    });
  }
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
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) return text;
  let changed = false;
  for (const doc of docs) {
    if (doc.errors.length > 0) {
      throw new InvalidInputError(`${file} is not valid YAML: ${doc.errors[0]!.message}`, {
        location: { file },
      });
    }
    if (doc.get("kind") !== "Deployment") continue;
    const containers = doc.getIn(["spec", "template", "spec", "containers"], true);
    if (!isSeq(containers)) continue;
    for (const item of containers.items) {
      if (!isMap(item) || item.get("name") !== container) continue;
      const env = item.get("env", true);
      if (isSeq(env)) {
        if (env.items.some((e) => isMap(e) && e.get("name") === name)) return text;
        env.add(doc.createNode({ name, value }));
      } else {
        item.set("env", doc.createNode([{ name, value }]));
      }
      changed = true;
    }
  }
  if (!changed) return text;
  return docs.map((doc) => doc.toString({ indentSeq: false })).join("");
}
