// The reporter is how domain modules talk to the user. They never print directly: the CLI hands
// them a terminal reporter (spinner on a TTY, plain lines otherwise, silent with --quiet) and
// tests hand them a memory reporter. Everything goes to stderr; stdout is for data only.
import type { Writable } from "node:stream";
import { type Palette, palette } from "./color.js";

export interface Progress {
  /** Replace the progress text (a spinner's label, or a new line without a TTY, only when it changes). */
  update(text: string): void;
  succeed(text?: string): void;
  fail(text?: string): void;
  warn(text?: string): void;
}

export interface Reporter {
  info(message: string): void;
  success(message: string): void;
  warn(message: string): void;
  /** Errors that do not end the command (the fatal one is printed by main.ts). */
  error(message: string): void;
  /** Shown with --verbose only. */
  debug(message: string): void;
  /** Starts a unit of progress: a spinner on a TTY, plain lines otherwise. */
  progress(text: string): Progress;
  readonly verbose: boolean;
  readonly quiet: boolean;
}

export interface TerminalReporterOptions {
  stream?: Writable & { isTTY?: boolean };
  quiet?: boolean;
  verbose?: boolean;
  color?: boolean;
  /** Spinners only when the stream is a TTY and colors are allowed; tests may force them off. */
  spinners?: boolean;
}

type Spinner = {
  text: string;
  start(): Spinner;
  stop(): void;
  succeed(t?: string): void;
  fail(t?: string): void;
  warn(t?: string): void;
};
type OraFactory = (options: {
  text: string;
  stream: Writable;
  isEnabled: boolean;
  discardStdin: boolean;
}) => Spinner;
let oraFactory: OraFactory | undefined;

/** Loads ora ahead of time (it is ESM-only and async to import); only called on a TTY. */
export async function preloadSpinners(): Promise<void> {
  if (oraFactory) return;
  const mod = (await import("ora")) as unknown as { default: OraFactory };
  oraFactory = mod.default;
}

export class TerminalReporter implements Reporter {
  readonly quiet: boolean;
  readonly verbose: boolean;
  private readonly stream: Writable & { isTTY?: boolean };
  private readonly c: Palette;
  private readonly spinners: boolean;

  constructor(options: TerminalReporterOptions = {}) {
    this.stream = options.stream ?? process.stderr;
    this.quiet = options.quiet ?? false;
    this.verbose = options.verbose ?? false;
    this.c = palette(options.color ?? false);
    this.spinners =
      (options.spinners ?? Boolean(this.stream.isTTY)) && !this.quiet && oraFactory !== undefined;
  }

  private line(text: string): void {
    this.stream.write(`${text}\n`);
  }

  info(message: string): void {
    if (!this.quiet) this.line(message);
  }
  success(message: string): void {
    if (!this.quiet) this.line(`${this.c.green("✔")} ${message}`);
  }
  warn(message: string): void {
    this.line(`${this.c.yellow("warning:")} ${message}`);
  }
  error(message: string): void {
    this.line(`${this.c.red("error:")} ${message}`);
  }
  debug(message: string): void {
    if (this.verbose) this.line(this.c.dim(message));
  }

  progress(text: string): Progress {
    if (this.spinners && oraFactory) {
      // discardStdin: false keeps the terminal's own Ctrl-C handling (isig). ora's default puts
      // stdin in raw mode, so Ctrl-C reached tsop only as a byte, which was lost: it was ignored.
      const spinner = oraFactory({ text, stream: this.stream, isEnabled: true, discardStdin: false }).start();
      return {
        update: (t) => {
          spinner.text = t;
        },
        succeed: (t) => spinner.succeed(t),
        fail: (t) => spinner.fail(t),
        warn: (t) => spinner.warn(t),
      };
    }
    let last = text;
    if (!this.quiet) this.line(`… ${text}`);
    return {
      update: (t) => {
        if (t !== last && !this.quiet) this.line(`… ${t}`);
        last = t;
      },
      succeed: (t) => this.success(t ?? last),
      fail: (t) => this.error(t ?? last),
      warn: (t) => this.warn(t ?? last),
    };
  }
}

export interface RecordedLine {
  level: "info" | "success" | "warn" | "error" | "debug" | "progress";
  message: string;
}

/** Records everything: for tests of domain modules. */
export class MemoryReporter implements Reporter {
  readonly lines: RecordedLine[] = [];
  readonly quiet = false;
  constructor(readonly verbose = true) {}
  info(message: string): void {
    this.lines.push({ level: "info", message });
  }
  success(message: string): void {
    this.lines.push({ level: "success", message });
  }
  warn(message: string): void {
    this.lines.push({ level: "warn", message });
  }
  error(message: string): void {
    this.lines.push({ level: "error", message });
  }
  debug(message: string): void {
    this.lines.push({ level: "debug", message });
  }
  progress(text: string): Progress {
    this.lines.push({ level: "progress", message: text });
    return {
      update: (t) => this.lines.push({ level: "progress", message: t }),
      succeed: (t) => this.lines.push({ level: "success", message: t ?? text }),
      fail: (t) => this.lines.push({ level: "error", message: t ?? text }),
      warn: (t) => this.lines.push({ level: "warn", message: t ?? text }),
    };
  }
  /** All messages joined, for simple `toContain` assertions. */
  text(): string {
    return this.lines.map((l) => `${l.level}: ${l.message}`).join("\n");
  }
}

/** A reporter that says nothing (library use). */
export const silentReporter: Reporter = new TerminalReporter({
  quiet: true,
  stream: { write: () => true } as unknown as Writable,
});
