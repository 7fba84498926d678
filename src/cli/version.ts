// `tsop version`: tsop's version and the versions of what it pins.
import { Command } from "./commander.js";
import { CATALOG_INIT_IMAGE, KUBERNETES_SCHEMAS_VERSION, OLM_VERSION, OPM_IMAGE } from "../common/pins.js";
import { tsopVersion } from "../common/version.js";
import { cliContext } from "./context.js";
import { outputOption, renderData } from "./output.js";

export function versionInfo() {
  return {
    tsop: tsopVersion(),
    node: process.version,
    olm: OLM_VERSION,
    opmImage: OPM_IMAGE,
    catalogInitImage: CATALOG_INIT_IMAGE,
    kubernetes: KUBERNETES_SCHEMAS_VERSION,
  };
}

export function versionCommand(): Command {
  return new Command("version")
    .description("print tsop's version and the versions of the components it pins")
    .addOption(outputOption(["text", "json", "yaml"]))
    .action(async (options: { output: "text" | "json" | "yaml" }, command: Command) => {
      const ctx = await cliContext(command);
      const info = versionInfo();
      if (options.output !== "text") return ctx.out(await renderData(info, options.output));
      ctx.out(
        [
          `tsop ${info.tsop}`,
          `node ${info.node}`,
          `OLM (default for olm install) ${info.olm}`,
          `opm image (run bundle) ${info.opmImage}`,
          `catalog init image ${info.catalogInitImage}`,
          `Kubernetes (built-in type schemas of generate) ${info.kubernetes}`,
        ].join("\n"),
      );
    });
}
