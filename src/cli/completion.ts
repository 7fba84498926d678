// `tsop completion bash|zsh|fish`: shell completion scripts generated from the live command tree,
// so they can never list a command or flag that does not exist.
import { Argument, Command } from "./commander.js";

interface Node {
  path: string;
  description: string;
  subcommands: string[];
  options: Array<{ flags: string[]; description: string }>;
}

function walk(command: Command, prefix: string, out: Node[]): void {
  const visible = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  out.push({
    path: prefix,
    description: command.description(),
    subcommands: visible.map((c) => c.name()),
    options: [...command.options.filter((o) => !o.hidden), helpOption].map((o) => ({
      flags: [o.short, o.long].filter((f): f is string => Boolean(f)),
      description: o.description,
    })),
  });
  for (const sub of visible) walk(sub, prefix ? `${prefix} ${sub.name()}` : sub.name(), out);
}
const helpOption = { short: "-h", long: "--help", description: "display help", hidden: false };

function nodes(program: Command): Node[] {
  const out: Node[] = [];
  walk(program, "", out);
  return out;
}

const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

export function bashScript(program: Command): string {
  const all = nodes(program);
  const subCases = all
    .map((n) => `    ${quote(n.path)}) echo ${quote(n.subcommands.join(" "))} ;;`)
    .join("\n");
  const optCases = all
    .map((n) => `    ${quote(n.path)}) echo ${quote(n.options.flatMap((o) => o.flags).join(" "))} ;;`)
    .join("\n");
  return `# tsop bash completion. Install: tsop completion bash > /etc/bash_completion.d/tsop
_tsop_subcommands() {
  case "$1" in
${subCases}
  esac
}
_tsop_options() {
  case "$1" in
${optCases}
  esac
}
_tsop_complete() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    if [[ " $(_tsop_subcommands "$path") " == *" $word "* ]]; then
      path="\${path:+$path }$word"
    fi
  done
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_tsop_options "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_tsop_subcommands "$path")" -- "$cur"))
    [[ \${#COMPREPLY[@]} -eq 0 ]] && COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o default -F _tsop_complete tsop
`;
}

export function zshScript(program: Command): string {
  return `#compdef tsop
# tsop zsh completion. Install: tsop completion zsh > "\${fpath[1]}/_tsop"
autoload -U +X bashcompinit && bashcompinit
${bashScript(program).split("\n").slice(1).join("\n")}`;
}

export function fishScript(program: Command): string {
  const lines = [
    "# tsop fish completion. Install: tsop completion fish > ~/.config/fish/completions/tsop.fish",
    "complete -c tsop -f",
  ];
  for (const node of nodes(program)) {
    const words = node.path ? node.path.split(" ") : [];
    // A command's position is known by the words seen so far; top level means "no subcommand yet".
    const condition =
      words.length === 0
        ? "__fish_use_subcommand"
        : words.map((w) => `__fish_seen_subcommand_from ${w}`).join("; and ");
    for (const sub of program.commands.length ? (findCommand(program, words)?.commands ?? []) : []) {
      lines.push(`complete -c tsop -n ${quote(condition)} -a ${sub.name()} -d ${quote(sub.description())}`);
    }
    for (const option of node.options) {
      const long = option.flags.find((f) => f.startsWith("--"))?.slice(2);
      const short = option.flags.find((f) => !f.startsWith("--"))?.slice(1);
      const parts = [`complete -c tsop -n ${quote(condition)}`];
      if (long) parts.push(`-l ${long}`);
      if (short) parts.push(`-s ${short}`);
      parts.push(`-d ${quote(option.description)}`);
      lines.push(parts.join(" "));
    }
  }
  return `${lines.join("\n")}\n`;
}

function findCommand(program: Command, words: string[]): Command | undefined {
  let current: Command | undefined = program;
  for (const word of words) current = current?.commands.find((c) => c.name() === word);
  return current;
}

export function completionCommand(program: () => Command): Command {
  return new Command("completion")
    .description("print a shell completion script")
    .addArgument(new Argument("<shell>", "shell to complete for").choices(["bash", "zsh", "fish"]))
    .action((shell: "bash" | "zsh" | "fish") => {
      const root = program();
      const script =
        shell === "bash" ? bashScript(root) : shell === "zsh" ? zshScript(root) : fishScript(root);
      process.stdout.write(script);
    });
}
