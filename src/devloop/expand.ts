// `$(VAR)` expansion exactly as the kubelet does it for a container's env values, command and args
// (k8s.io/kubernetes third_party/forked/golang/expansion): `$(NAME)` becomes NAME's value when the
// mapping defines it and stays as written otherwise, `$$` is a literal `$`, a `$` followed by
// anything else is kept with that character, and an unclosed `$(` is kept as text.

/** The kubelet's mapping: the first context that defines the name wins, else `$(name)` unchanged. */
export function mappingFor(
  ...contexts: ReadonlyArray<ReadonlyMap<string, string>>
): (name: string) => string {
  return (name) => {
    for (const vars of contexts) {
      const value = vars.get(name);
      if (value !== undefined) return value;
    }
    return `$(${name})`;
  };
}

/** Expands the references in `input` with `mapping`, byte-for-byte like the kubelet's Expand. */
export function expand(input: string, mapping: (name: string) => string): string {
  let out = "";
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== "$" || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const { text, isVariable, advance } = readVariableName(input, cursor + 1);
    out += isVariable ? mapping(text) : text;
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

/** What follows a `$` at `start`: a variable name, an escaped `$`, or text to keep. */
function readVariableName(
  input: string,
  start: number,
): { text: string; isVariable: boolean; advance: number } {
  // One code point, as Go's utf8.DecodeRuneInString reads it (surrogate pairs stay together).
  const char = String.fromCodePoint(input.codePointAt(start) ?? 0);
  if (char === "$") return { text: "$", isVariable: false, advance: 1 };
  if (char === "(") {
    const close = input.indexOf(")", start + 1);
    if (close >= 0)
      return { text: input.slice(start + 1, close), isVariable: true, advance: close - start + 1 };
    return { text: "$(", isVariable: false, advance: 1 };
  }
  return { text: `$${char}`, isVariable: false, advance: char.length };
}
