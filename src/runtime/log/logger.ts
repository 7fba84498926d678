// Structured logging for operators: one JSON object per line (for log collectors) or a readable
// line for local runs. Loggers are cheap to derive: child() adds fields, named() extends the name.
import { colorEnabled, palette } from "../../common/color.js";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFormat = "json" | "human";
export type LogFields = Record<string, unknown>;

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LogSink {
  write(line: string): unknown;
}

export interface LoggerOptions {
  /** "json" (default without a TTY) or "human" (default on a TTY). */
  format?: LogFormat;
  /** Lowest level written. Default "info". */
  level?: LogLevel;
  /** Where lines go. Default process.stderr. */
  sink?: LogSink;
  /** Logger name (dotted, e.g. "controller.memcached"). */
  name?: string;
  /** Fields added to every line. */
  fields?: LogFields;
  /** Colour in human mode. Default: on for a TTY unless NO_COLOR / TERM=dumb. */
  color?: boolean;
  now?: () => Date;
}

export function isLogLevel(value: string): value is LogLevel {
  return Object.hasOwn(LEVELS, value);
}

/** Errors become { error, errorType, stacktrace? } so they survive JSON.stringify. */
function plainFields(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value instanceof Error) {
      out[key === "err" ? "error" : key] = value.message;
      if (value.name !== "Error") out.errorType = value.name;
      if (value.stack && !("status" in value)) out.stacktrace = value.stack;
    } else if (value !== undefined) {
      out[key] = value;
    }
  }
  return out;
}

function humanValue(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

export class Logger {
  private readonly format: LogFormat;
  private readonly threshold: number;
  private readonly sink: LogSink;
  private readonly color: boolean;
  private readonly now: () => Date;
  readonly name: string;
  private readonly fields: LogFields;

  constructor(private readonly options: LoggerOptions = {}) {
    const stderrTTY = process.stderr.isTTY === true;
    this.format = options.format ?? (stderrTTY ? "human" : "json");
    this.threshold = LEVELS[options.level ?? "info"];
    this.sink = options.sink ?? process.stderr;
    this.color = options.color ?? (this.format === "human" && colorEnabled({ isTTY: stderrTTY }));
    this.now = options.now ?? (() => new Date());
    this.name = options.name ?? "";
    this.fields = options.fields ?? {};
  }

  /** A logger that adds these fields to every line. */
  child(fields: LogFields): Logger {
    return new Logger({ ...this.options, fields: { ...this.fields, ...fields } });
  }

  /** A logger whose name is extended with ".name". */
  named(name: string): Logger {
    return new Logger({ ...this.options, name: this.name ? `${this.name}.${name}` : name });
  }

  enabled(level: LogLevel): boolean {
    return LEVELS[level] >= this.threshold;
  }

  debug(msg: string, fields?: LogFields): void {
    this.log("debug", msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.log("info", msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.log("warn", msg, fields);
  }
  /** Logs an error; `err` may be an Error (message and stack are kept) or anything else. */
  error(msg: string, err?: unknown, fields?: LogFields): void {
    const errFields = err === undefined ? {} : { err: err instanceof Error ? err : String(err) };
    this.log("error", msg, { ...errFields, ...fields });
  }

  log(level: LogLevel, msg: string, fields: LogFields = {}): void {
    if (!this.enabled(level)) return;
    const all = plainFields({ ...this.fields, ...fields });
    const ts = this.now().toISOString();
    if (this.format === "json") {
      const record: LogFields = { level, ts };
      if (this.name) record.logger = this.name;
      record.msg = msg;
      for (const [key, value] of Object.entries(all)) if (!(key in record)) record[key] = value;
      this.sink.write(`${safeStringify(record)}\n`);
      return;
    }
    const p = palette(this.color);
    const tint = level === "error" ? p.red : level === "warn" ? p.yellow : level === "debug" ? p.dim : p.cyan;
    const { stacktrace, ...rest } = all;
    const pairs = Object.entries(rest).map(([k, v]) => `${p.dim(`${k}=`)}${humanValue(v)}`);
    const head = [p.dim(ts), tint(level.toUpperCase().padEnd(5)), this.name ? p.bold(this.name) : "", msg]
      .filter(Boolean)
      .join(" ");
    const tail = pairs.length ? ` ${pairs.join(" ")}` : "";
    const stack = typeof stacktrace === "string" && level === "error" ? `\n${p.dim(stacktrace)}` : "";
    this.sink.write(`${head}${tail}${stack}\n`);
  }
}

function safeStringify(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "bigint") return v.toString();
    if (v && typeof v === "object") {
      if (seen.has(v)) return "[Circular]";
      seen.add(v);
    }
    return v;
  });
}

export function createLogger(options: LoggerOptions = {}): Logger {
  return new Logger(options);
}
