// Names in the generated TypeScript: every declaration is named after its path in the schema
// (version, kind, then each property on the way: `V1CertificateSpecIssuerRef`), as client-node
// names the built-in kinds (`V1Deployment`), so a name reads as where the type lives and stays the
// same from run to run. Two paths can spell the same name (`spec.fooBar` and `spec.foo.bar`): the
// first one met in the walk (properties in sorted order) keeps it, later ones get 2, 3, ….

/** `cert-manager.io` → `CertManagerIo`, `issuer_ref` → `IssuerRef`, `v1beta1` → `V1beta1`. */
export function pascalCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter((word) => word.length > 0);
  const joined = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
  if (joined === "") return "Field";
  return /^[0-9]/.test(joined) ? `N${joined}` : joined;
}

/** The declaration names of one file, handed out once each. */
export class NameTable {
  private readonly taken = new Set<string>();

  constructor(reserved: Iterable<string> = []) {
    for (const name of reserved) this.taken.add(name);
  }

  /** `wanted`, or `wanted2`, `wanted3`, … when an earlier path already has it. */
  claim(wanted: string): string {
    let name = wanted;
    for (let n = 2; this.taken.has(name); n++) name = `${wanted}${n}`;
    this.taken.add(name);
    return name;
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key as written in an interface: bare when it is an identifier, else quoted. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}
