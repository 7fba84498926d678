// Type-checks small programs with the real compiler. Parsed declaration files are cached across
// calls (the lib and @kubernetes/client-node typings are large), so checking the same code in both
// decorator modes costs little more than once.
import ts from "typescript";

const cache = new Map<string, ts.SourceFile>();

export function typeErrors(files: string[], options: ts.CompilerOptions, onlyUnder: string): string[] {
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (fileName.startsWith(onlyUnder)) return read(fileName, languageVersion, onError, shouldCreate);
    let sf = cache.get(fileName);
    if (!sf) {
      sf = read(fileName, languageVersion, onError, shouldCreate);
      if (sf) cache.set(fileName, sf);
    }
    return sf;
  };
  const program = ts.createProgram({ rootNames: files, options, host });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName.startsWith(onlyUnder))
    .map(
      (d) =>
        `${d.file?.fileName.slice(onlyUnder.length + 1)}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
    );
}
