// The compiler's view of the disk (ts.sys), observed: every answer it gives the analysis is also
// recorded in an InputRecorder, unchanged. program.ts reads the tsconfig, resolves modules and loads
// files only through this object, so the recorded facts cover all that the output depends on.
import type TS from "typescript";
import { ts } from "../compiler.js";
import type { InputRecorder } from "./inputs.js";

export type ObservedSystem = Pick<
  TS.System,
  "useCaseSensitiveFileNames" | "readFile" | "fileExists" | "directoryExists" | "readDirectory"
> & {
  realpath(path: string): string;
  getDirectories(path: string): string[];
};

export function observedSystem(inputs: InputRecorder | undefined): ObservedSystem {
  const sys = ts.sys;
  if (!inputs) {
    return {
      useCaseSensitiveFileNames: sys.useCaseSensitiveFileNames,
      readFile: (path) => sys.readFile(path),
      fileExists: (path) => sys.fileExists(path),
      directoryExists: (path) => sys.directoryExists(path),
      readDirectory: (...args) => sys.readDirectory(...args),
      realpath: (path) => (sys.realpath ? sys.realpath(path) : path),
      getDirectories: (path) => sys.getDirectories(path),
    };
  }
  return {
    useCaseSensitiveFileNames: sys.useCaseSensitiveFileNames,
    readFile(path) {
      const text = sys.readFile(path);
      inputs.readFile(path, text);
      return text;
    },
    fileExists(path) {
      const exists = sys.fileExists(path);
      inputs.fileExists(path, exists);
      return exists;
    },
    directoryExists(path) {
      const exists = sys.directoryExists(path);
      inputs.directoryExists(path, exists);
      return exists;
    },
    // Include patterns: program.ts lists their directories (inputs.listTree) itself.
    readDirectory: (...args) => sys.readDirectory(...args),
    realpath(path) {
      const target = sys.realpath ? sys.realpath(path) : path;
      inputs.realpath(path, target);
      return target;
    },
    getDirectories(path) {
      // Listed before the compiler looks, so a directory added in between shows as a change later.
      inputs.listTree(path, false);
      return sys.getDirectories(path);
    },
  };
}

/** Points a compiler host's file system calls at `system`. */
export function useSystem(host: TS.CompilerHost, system: ObservedSystem): void {
  host.readFile = system.readFile;
  host.fileExists = system.fileExists;
  host.directoryExists = system.directoryExists;
  host.realpath = system.realpath;
  host.getDirectories = system.getDirectories;
}
