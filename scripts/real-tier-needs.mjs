// Which of the rig's components a real-tier file needs beyond the test bed proper, so its lane can
// run it as soon as they are built instead of after the whole rig (a cold rig builds the peers for
// half an hour after the bed). Read from the sources the file reaches: `rigBinary("name")`, and where
// a file passes rigBinary a variable, every component name it spells as a string.
import { readFileSync } from "node:fs";
import { COMPONENTS, TEST_BED } from "./rig/components.mjs";

const NAMES = new Set(COMPONENTS.map((c) => c.name));
/** The peers in the order a full build makes them: a file waits for the last one it needs. */
export const PEERS = COMPONENTS.map((c) => c.name).filter((name) => !TEST_BED.includes(name));

function namedIn(text) {
  const named = [...text.matchAll(/rigBinary\(\s*["']([\w-]+)["']/g)].map((m) => m[1]);
  if (/rigBinary\(\s*[^"'\s)]/.test(text)) {
    named.push(...[...text.matchAll(/["']([\w-]+)["']/g)].map((m) => m[1]).filter((s) => NAMES.has(s)));
  }
  return named;
}

/** The peers `file` needs, in build order; `importsOf` lists the sources a source reaches. */
export function peersNeeded(file, importsOf) {
  const seen = new Set();
  const needed = new Set();
  const visit = (source) => {
    if (seen.has(source)) return;
    seen.add(source);
    let text;
    try {
      text = readFileSync(source, "utf8");
    } catch {
      return; // not a source file (JSON, a fixture)
    }
    for (const name of namedIn(text)) if (PEERS.includes(name)) needed.add(name);
    for (const next of importsOf(source)) visit(next);
  };
  visit(file);
  return PEERS.filter((name) => needed.has(name));
}

/**
 * A lane's files in batches, each to run once the peers it needs are built: the files that need
 * none first, then by the last peer needed, in build order.
 */
export function batches(files, importsOf) {
  const byLast = new Map();
  for (const file of files) {
    const needs = peersNeeded(file, importsOf);
    const rank = needs.length ? PEERS.indexOf(needs.at(-1)) : -1;
    if (!byLast.has(rank)) byLast.set(rank, { needs: new Set(), files: [] });
    const batch = byLast.get(rank);
    batch.files.push(file);
    for (const name of needs) batch.needs.add(name);
  }
  return [...byLast.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, batch]) => ({ needs: PEERS.filter((name) => batch.needs.has(name)), files: batch.files }));
}
