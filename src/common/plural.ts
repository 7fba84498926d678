// Plural of a kind, lowercased: the default resource name of a custom resource. The rules follow
// flect (what controller-gen and kubebuilder use), so the same kind gets the same plural in tsop
// and in Go projects. Shared by codegen (CRD names) and the runtime (API paths).

const UNCOUNTABLE = new Set([
  "equipment",
  "information",
  "rice",
  "money",
  "species",
  "series",
  "fish",
  "sheep",
  "deer",
  "news",
  "data",
  "metadata",
]);

const IRREGULAR: Record<string, string> = {
  person: "people",
  man: "men",
  woman: "women",
  child: "children",
  tooth: "teeth",
  foot: "feet",
  mouse: "mice",
  goose: "geese",
  ox: "oxen",
  quiz: "quizzes",
  index: "indices",
  matrix: "matrices",
  vertex: "vertices",
  criterion: "criteria",
  datum: "data",
  analysis: "analyses",
  basis: "bases",
  crisis: "crises",
  axis: "axes",
  status: "statuses",
  alias: "aliases",
  bus: "buses",
  proxy: "proxies",
  policy: "policies",
};

const SUFFIX_RULES: Array<[RegExp, string]> = [
  [/(quiz)$/, "$1zes"],
  [/([^aeiouy]|qu)y$/, "$1ies"],
  [/(x|ch|ss|sh|zz)$/, "$1es"],
  [/(s)$/, "$1es"],
  [/([^f])fe$/, "$1ves"],
  [/([lr])f$/, "$1ves"],
  [/(ss)$/, "$1es"],
];

/** `Memcached` → `memcacheds`, `Policy` → `policies`, `TestQuota` → `testquotas`. */
export function defaultPlural(kind: string): string {
  const lower = kind.toLowerCase();
  if (UNCOUNTABLE.has(lower)) return lower;
  for (const [singular, plural] of Object.entries(IRREGULAR)) {
    if (lower.endsWith(singular)) return lower.slice(0, lower.length - singular.length) + plural;
  }
  for (const [pattern, replacement] of SUFFIX_RULES) {
    if (pattern.test(lower)) return lower.replace(pattern, replacement);
  }
  return `${lower}s`;
}
