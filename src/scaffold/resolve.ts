// Flags first, prompts last: turns init's flags into complete options, asking on a terminal only
// for what is missing. Without a terminal (or with --yes) every missing value is listed in one
// usage error (exit 2) and nothing is written.
import { AggregateTsopError, ExitCode } from "../common/errors.js";
import { checkDomain, checkProjectName } from "../project/index.js";
import { defaultProjectName } from "./init.js";
import { messages } from "./messages.js";

export interface Prompter {
  input(question: {
    message: string;
    default?: string;
    validate: (value: string) => true | string;
  }): Promise<string>;
}

export interface InitFlags {
  domain?: string;
  projectName?: string;
}

export interface ResolveContext {
  dir: string;
  /** Present only when a person can answer (a TTY and no --yes). */
  prompter?: Prompter;
}

/** A check's message without the flag name (the prompt already says what is asked). */
const asValidation = (problem: string | undefined): true | string =>
  problem === undefined ? true : problem.replace(/^--[a-z-]+ /, "");

/** Fills in domain and project name, prompting for them when allowed; lists every missing one otherwise. */
export async function resolveInitFlags(
  flags: InitFlags,
  context: ResolveContext,
): Promise<{ domain: string; projectName?: string }> {
  const dirName = defaultProjectName(context.dir);
  const nameMissing = flags.projectName === undefined && checkProjectName(dirName) !== undefined;
  if (!context.prompter) {
    const missing: string[] = [];
    if (flags.domain === undefined) missing.push("--domain <domain>: the API domain, e.g. example.com");
    if (nameMissing) {
      missing.push(
        `--project-name <name>: the directory name "${dirName}" is not a DNS-1123 label, so it cannot be the default`,
      );
    }
    if (missing.length > 0) {
      throw new AggregateTsopError(messages.missingOptions, missing, {
        hint: messages.missingOptionsHint,
        exitCode: ExitCode.usage,
      });
    }
    return { domain: flags.domain!, ...(flags.projectName ? { projectName: flags.projectName } : {}) };
  }
  const domain =
    flags.domain ??
    (await context.prompter.input({
      message: "Domain of your API groups (e.g. example.com):",
      validate: (value) => asValidation(checkDomain(value.trim())),
    }));
  let projectName = flags.projectName;
  if (nameMissing) {
    projectName = await context.prompter.input({
      message: "Project name (lowercase letters, digits and '-'):",
      validate: (value) => asValidation(checkProjectName(value.trim())),
    });
  }
  return { domain: domain.trim(), ...(projectName ? { projectName: projectName.trim() } : {}) };
}

/** The real prompter (@inquirer/prompts), loaded only when a terminal is there to answer. */
export async function inquirerPrompter(): Promise<Prompter> {
  const { input } = await import("@inquirer/prompts");
  return {
    input: (question) =>
      input({
        message: question.message,
        ...(question.default !== undefined ? { default: question.default } : {}),
        validate: question.validate,
      }),
  };
}
