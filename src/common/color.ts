// Minimal ANSI styling that honours NO_COLOR, FORCE_COLOR, TERM=dumb and --no-color.

export interface ColorOptions {
  /** --no-color was given. */
  noColor?: boolean;
  env?: NodeJS.ProcessEnv;
  isTTY?: boolean;
}

export function colorEnabled({ noColor = false, env = process.env, isTTY = false }: ColorOptions): boolean {
  if (noColor) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.TERM === "dumb") return false;
  return isTTY;
}

export interface Palette {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const identity = (text: string) => text;

export function palette(enabled: boolean): Palette {
  if (!enabled)
    return {
      red: identity,
      green: identity,
      yellow: identity,
      cyan: identity,
      dim: identity,
      bold: identity,
    };
  return {
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    dim: wrap(2, 22),
    bold: wrap(1, 22),
  };
}
