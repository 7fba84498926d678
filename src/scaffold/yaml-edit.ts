// Edits of YAML files the user owns (kustomizations), through the yaml Document API so comments,
// key order and formatting elsewhere in the file are kept. Adding an item that is there is a no-op.
import { isScalar, isSeq, parseDocument } from "yaml";
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
