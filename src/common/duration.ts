// Go-style durations ("90s", "5m", "1h30m", "250ms"), as kubectl and operator-sdk flags take them.
import { UsageError } from "./errors.js";

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const PART = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;

/** Parses a Go duration into milliseconds. A bare "0" is allowed, as in Go. */
export function parseDuration(text: string, what = "duration"): number {
  const input = text.trim();
  if (input === "0") return 0;
  if (input === "")
    throw new UsageError(`invalid ${what} "": empty`, {
      hint: 'use a Go-style duration such as "90s", "5m" or "1h30m"',
    });
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < input.length) {
    const start = PART.lastIndex;
    const match = PART.exec(input);
    if (!match || match.index !== start) {
      throw new UsageError(`invalid ${what} "${text}"`, {
        hint: 'use a Go-style duration such as "90s", "5m" or "1h30m"',
      });
    }
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
  }
  return Math.round(total);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)}s`;
  const minutes = Math.floor(seconds / 60);
  const rest = Math.round(seconds - minutes * 60);
  return rest === 0 ? `${minutes}m` : `${minutes}m${rest}s`;
}
