// `tsop version`: tsop's version and the versions of what it pins.
import { Command } from "./commander.js";
import { cliContext } from "./context.js";
import { outputOption, renderData } from "./output.js";
import { versionInfo, versionText } from "./version-info.js";

export function versionCommand(): Command {
  return new Command("version")
    .description("print tsop's version and the versions of the components it pins")
    .addOption(outputOption(["text", "json", "yaml"]))
    .action(async (options: { output: "text" | "json" | "yaml" }, command: Command) => {
      const ctx = await cliContext(command);
      const info = versionInfo();
      if (options.output !== "text") return ctx.out(await renderData(info, options.output));
      ctx.out(versionText(info));
    });
}
