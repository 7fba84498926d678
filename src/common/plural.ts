// Plural of a kind, lowercased: the default resource name of a custom resource. The rules follow
// flect (what controller-gen and kubebuilder use), so the same kind gets the same plural in tsop
// and in Go projects — including flect's quirks (`Redis` → `redis`, `Repo` → `repoes`). Only the
// last word of the kind is inflected (`TestQuota` → `testquotas`). Shared by codegen (CRD names)
// and the runtime (API paths).

/** Whole last words with a fixed plural (English irregulars and uncountables). */
const WORDS: Record<string, string> = {
  human: "humans",
  matrix: "matrices",
  vertix: "vertices",
  index: "indices",
  mouse: "mice",
  louse: "lice",
  ress: "resses",
  ox: "oxen",
  quiz: "quizzes",
  series: "series",
  octopus: "octopi",
  equipment: "equipment",
  information: "information",
  rice: "rice",
  money: "money",
  species: "species",
  fish: "fish",
  sheep: "sheep",
  jeans: "jeans",
  police: "police",
  dear: "dear",
  goose: "geese",
  tooth: "teeth",
  foot: "feet",
  bus: "buses",
  fez: "fezzes",
  piano: "pianos",
  halo: "halos",
  photo: "photos",
  aircraft: "aircraft",
  alumna: "alumnae",
  alumnus: "alumni",
  analysis: "analyses",
  antenna: "antennas",
  antithesis: "antitheses",
  apex: "apexes",
  appendix: "appendices",
  axis: "axes",
  bacillus: "bacilli",
  bacterium: "bacteria",
  basis: "bases",
  beau: "beaus",
  bison: "bison",
  bureau: "bureaus",
  campus: "campuses",
  codex: "codices",
  concerto: "concertos",
  corpus: "corpora",
  crisis: "crises",
  curriculum: "curriculums",
  deer: "deer",
  diagnosis: "diagnoses",
  die: "dice",
  dwarf: "dwarves",
  ellipsis: "ellipses",
  erratum: "errata",
  focus: "foci",
  formula: "formulas",
  fungus: "fungi",
  genus: "genera",
  graffito: "graffiti",
  grouse: "grouse",
  half: "halves",
  hoof: "hooves",
  hypothesis: "hypotheses",
  larva: "larvae",
  libretto: "librettos",
  loaf: "loaves",
  locus: "loci",
  minutia: "minutiae",
  moose: "moose",
  nebula: "nebulae",
  nucleus: "nuclei",
  oasis: "oases",
  offspring: "offspring",
  opus: "opera",
  parenthesis: "parentheses",
  phenomenon: "phenomena",
  phylum: "phyla",
  prognosis: "prognoses",
  radius: "radiuses",
  referendum: "referendums",
  salmon: "salmon",
  shrimp: "shrimp",
  stimulus: "stimuli",
  stratum: "strata",
  swine: "swine",
  syllabus: "syllabi",
  symposium: "symposiums",
  synopsis: "synopses",
  tableau: "tableaus",
  thesis: "theses",
  thief: "thieves",
  trout: "trout",
  tuna: "tuna",
  vertebra: "vertebrae",
  vita: "vitae",
  vortex: "vortices",
  wharf: "wharves",
  wife: "wives",
  wolf: "wolves",
  datum: "data",
  testis: "testes",
  alias: "aliases",
  shoe: "shoes",
  news: "news",
  ovum: "ova",
  foo: "foos",
};

const PLURAL_WORDS = new Set(Object.values(WORDS));

/** Suffix rules, tried in order; each also makes its plural form stay as it is. */
const SUFFIXES: Array<[string, string]> = [
  ["campus", "campuses"],
  ["man", "men"],
  ["tz", "tzes"],
  ["alias", "aliases"],
  ["oasis", "oasis"],
  ["wife", "wives"],
  ["basis", "basis"],
  ["atum", "ata"],
  ["adium", "adia"],
  ["actus", "acti"],
  ["irus", "iri"],
  ["iterion", "iteria"],
  ["dium", "diums"],
  ["ovum", "ova"],
  ["ize", "izes"],
  ["dge", "dges"],
  ["focus", "foci"],
  ["child", "children"],
  ["oaf", "oaves"],
  ["randum", "randa"],
  ["base", "bases"],
  ["atus", "atuses"],
  ["ode", "odes"],
  ["person", "people"],
  ["hello", "hellos"],
  ["va", "vae"],
  ["leus", "li"],
  ["oot", "eet"],
  ["oose", "eese"],
  ["box", "boxes"],
  ["ium", "ia"],
  ["sis", "ses"],
  ["nna", "nnas"],
  ["eses", "esis"],
  ["stis", "stes"],
  ["ex", "ices"],
  ["ula", "ulae"],
  ["isis", "ises"],
  ["use", "uses"],
  ["lf", "lves"],
  ["rf", "rves"],
  ...[..."abcdefghijklmnopqrstuvwxyz"].map((c): [string, string] => [`${c}fe`, `${c}ves`]),
  ["hive", "hives"],
  ["quy", "quies"],
  ...[..."bcdfghjklmnpqrstvwxz"].map((c): [string, string] => [`${c}y`, `${c}ies`]),
  ["x", "xes"],
  ["ch", "ches"],
  ["ss", "sses"],
  ["sh", "shes"],
  ["oe", "oes"],
  ["io", "ios"],
  ["o", "oes"],
];

interface Rule {
  /** Its place in flect's list: of the rules whose suffix a word ends with, the first applies. */
  order: number;
  suffix: string;
  /** undefined: the word is plural already. */
  plural: string | undefined;
}

/**
 * Each rule, followed by a rule that leaves its plural form alone (flect's order), by suffix: a word
 * looks up each of its own endings (a few map lookups, where trying the ~400 rules in turn cost each
 * call ~0.3 ms before the JIT had compiled it: 10 ms of a cold fifty-kind generate).
 */
const RULES = new Map<string, Rule>();
for (const [s, p] of SUFFIXES) {
  for (const [suffix, plural] of [
    [s, p],
    [p, undefined],
  ] as const) {
    if (!RULES.has(suffix)) RULES.set(suffix, { order: RULES.size, suffix, plural });
  }
}

/** The rule for a lower-case word: the first in flect's list whose suffix ends it. */
function ruleFor(lower: string): Rule | undefined {
  let first: Rule | undefined;
  for (let length = 1; length <= lower.length; length++) {
    const rule = RULES.get(lower.slice(lower.length - length));
    if (rule !== undefined && (first === undefined || rule.order < first.order)) first = rule;
  }
  return first;
}

/** The last word of an identifier: `TestQuota` → `Quota`, `HTTPRoute` → `Route`, `MyAPI` → `API`. */
function lastWord(kind: string): string {
  const words = kind.match(/[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g);
  return words?.[words.length - 1] ?? kind;
}

/** `Memcached` → `memcacheds`, `Policy` → `policies`, `TestQuota` → `testquotas`. */
export function defaultPlural(kind: string): string {
  if (kind === "") return "";
  const last = lastWord(kind);
  const prefix = kind.slice(0, kind.length - last.length);
  const lower = last.toLowerCase();
  if (PLURAL_WORDS.has(lower)) return kind.toLowerCase();
  const word = WORDS[lower];
  if (word !== undefined) return (prefix + word).toLowerCase();
  const rule = ruleFor(lower);
  if (rule !== undefined) {
    if (rule.plural === undefined) return kind.toLowerCase();
    return (prefix + last.slice(0, last.length - rule.suffix.length) + rule.plural).toLowerCase();
  }
  if (lower.endsWith("s")) return kind.toLowerCase();
  return `${kind}s`.toLowerCase();
}
