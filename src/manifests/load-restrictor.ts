// kustomize's load restrictor (LoadRestrictionsRootOnly, the default of `kustomize build`): every
// file a kustomization names (resources, patches, generator sources, replacements) must be in or
// below that kustomization's directory once symlinks are resolved. A directory resource is another
// kustomization with its own root (`../base` is fine). `--load-restrictor none` lifts the check,
// like kustomize's LoadRestrictionsNone.
import { readFile, realpath, stat } from "../common/fs.js";
import { join, relative, sep } from "node:path";
import { InvalidInputError } from "../common/errors.js";
import { specialFileKind } from "../common/file-kind.js";

export type LoadRestrictor = "rootOnly" | "none";

export const LOAD_RESTRICTORS: readonly LoadRestrictor[] = ["rootOnly", "none"];

/** Reads the files one kustomization names, relative to its directory. */
export class KustomizationFiles {
  constructor(
    readonly dir: string,
    /** The kustomization file, as shown in messages. */
    readonly file: string,
    private readonly restrictor: LoadRestrictor,
    private readonly shown: (path: string) => string,
  ) {}

  /**
   * The absolute path of `ref`, refused when it resolves outside the kustomization's directory, or
   * to a FIFO, socket or device (reading a FIFO would wait for a writer forever).
   */
  async resolve(ref: string, what = "resource"): Promise<string> {
    const path = join(this.dir, ref);
    const info = await stat(path).catch(() => undefined);
    if (info && !info.isFile() && !info.isDirectory()) {
      throw new InvalidInputError(
        `${what} ${ref} is a ${specialFileKind(info)} (${this.shown(path)}); a kustomization names regular files and directories only`,
        { location: { file: this.file }, hint: "replace it with a regular file, or remove the entry" },
      );
    }
    if (this.restrictor === "none") return path;
    const [real, root] = await Promise.all([realpath(path), realpath(this.dir)]);
    const inside = relative(root, real);
    if (inside === ".." || inside.startsWith(`..${sep}`) || inside.startsWith(sep) || inside === real) {
      throw new InvalidInputError(
        `${ref} resolves to ${real}, which is not in or below the kustomization's directory ${this.shown(this.dir)}; kustomize build refuses it the same way`,
        {
          location: { file: this.file },
          hint: "move the file under that directory (or make it a kustomization of its own and list the directory), or pass --load-restrictor none as with kustomize build --load-restrictor LoadRestrictionsNone",
        },
      );
    }
    return path;
  }

  /** The bytes of a file the kustomization names (missing: an error naming the entry). */
  async read(ref: string, what = "file"): Promise<Buffer> {
    if (!(await this.exists(ref))) {
      throw new InvalidInputError(`${what} ${ref} does not exist (${this.shown(join(this.dir, ref))})`, {
        location: { file: this.file },
        hint: "create the file, or remove the entry",
      });
    }
    return readFile(await this.resolve(ref, what));
  }

  async exists(ref: string): Promise<boolean> {
    try {
      await stat(join(this.dir, ref));
      return true;
    } catch {
      return false;
    }
  }

  async isDirectory(ref: string): Promise<boolean> {
    try {
      return (await stat(join(this.dir, ref))).isDirectory();
    } catch {
      return false;
    }
  }
}
