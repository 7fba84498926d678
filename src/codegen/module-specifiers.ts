// The module specifiers a source file may import, found without the compiler's scanner: the
// generate program's pruning (program.ts) decides which files' packages to load before the program
// exists, and running ts.preProcessFile over every file cost a cold analysis 7–25 ms (1–50 kinds).
// A specifier is a string after `from`, `import`, `import(`, `require(` or `module` (`declare
// module "x"`), comments allowed between. Matches in comments and strings are extra names, which
// only keep more of the program; test/codegen/module-specifiers.test.ts checks that every import
// preProcessFile finds in this repository's TypeScript is found here too.
const GAP = String.raw`(?:\s|/\*[\s\S]*?\*/|//[^\n]*\n)*`;
const SPECIFIER = new RegExp(
  String.raw`\b(?:from|import|require|module)${GAP}\(?${GAP}(["'])([^"'\r\n]*)\1`,
  "g",
);

export function moduleSpecifiers(text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((match) => match[2] as string);
}
