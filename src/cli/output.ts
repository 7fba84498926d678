// Renders a command's result for `-o json|yaml` (and leaves `table`/`text` to the command).
import { ExitCode } from "../common/errors.js";
import { Option } from "./commander.js";

export type OutputFormat = "text" | "table" | "json" | "yaml";

/** `-o, --output <format>` with the given choices; the first choice is the default. */
export function outputOption(choices: readonly OutputFormat[]): Option {
  return new Option("-o, --output <format>", "output format").choices([...choices]).default(choices[0]);
}

export async function renderData(data: unknown, format: "json" | "yaml"): Promise<string> {
  if (format === "json") return `${JSON.stringify(data, null, 2)}\n`;
  const { stringifyYaml } = await import("../common/yaml/write.js");
  return stringifyYaml(data, { lineWidth: 0 });
}

/**
 * A command whose report found problems (bundle validate, catalog check, olm status) exits with 1
 * without an error message of its own: the report says why. The one place an action sets the exit
 * code; main.ts returns it.
 */
export function failAfterReport(): void {
  process.exitCode = ExitCode.failure;
}

/** Formats rows as an aligned table with a header, as kubectl does. */
export function formatTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("   ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}
