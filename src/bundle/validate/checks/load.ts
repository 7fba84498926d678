// What the loader found (LOAD-01…04): unparsable files, sub-directories, several CSVs, unsafe
// annotation paths, several objects in one file. ../../load reports them; these checks surface them
// with their ids. Default suite.
import type { Check } from "../check.js";

export const LOAD_CHECKS: Check[] = [
  {
    id: "LOAD-01",
    suite: "default",
    level: "error",
    description: "every bundle file parses; manifests/ is flat",
    run: (b) => b.loadFindings.filter((f) => f.id === "LOAD-01"),
  },
  {
    id: "LOAD-02",
    suite: "default",
    level: "error",
    description: "the bundle holds at most one CSV",
    run: (b) => b.loadFindings.filter((f) => f.id === "LOAD-02"),
  },
  {
    id: "LOAD-03",
    suite: "default",
    level: "error",
    description: "the manifests and metadata annotations are relative paths inside the bundle",
    run: (b) => b.loadFindings.filter((f) => f.id === "LOAD-03"),
  },
  {
    id: "LOAD-04",
    suite: "default",
    level: "warning",
    description: "one object per manifest file (OLM's registry reads only the first document)",
    run: (b) => b.loadFindings.filter((f) => f.id === "LOAD-04"),
  },
];
