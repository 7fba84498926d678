// A parser for the standard 5-field cron syntax and the next time a schedule fires, with the
// semantics of robfig/cron's ParseStandard (what kubebuilder's tutorial and Kubernetes' own
// CronJob controller use). Times are UTC: there is no TZ= prefix.
//
//   ┌ minute (0-59)  ┌ hour (0-23)  ┌ day of month (1-31)  ┌ month (1-12, jan-dec)  ┌ day of week (0-6, sun-sat)
//   *                *              *                      *                        *
//
// Each field: `*` or `?`, a value, a range `a-b`, a step `*/n`, `a-b/n` or `a/n` (a to the
// maximum), or a comma-separated list of those. Descriptors: @yearly (@annually), @monthly,
// @weekly, @daily (@midnight), @hourly. When both day fields are restricted (neither is `*`),
// a day matches when either does, as in cron(8).

/** A schedule that cannot be parsed; the message names the field, its text and what is wrong. */
export class CronSyntaxError extends Error {
  override name = "CronSyntaxError";
}

interface FieldBounds {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const MINUTE: FieldBounds = { name: "minute", min: 0, max: 59 };
const HOUR: FieldBounds = { name: "hour", min: 0, max: 23 };
const DAY_OF_MONTH: FieldBounds = { name: "day-of-month", min: 1, max: 31 };
const MONTH: FieldBounds = {
  name: "month",
  min: 1,
  max: 12,
  names: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
};
const DAY_OF_WEEK: FieldBounds = {
  name: "day-of-week",
  min: 0,
  max: 6,
  names: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
};

const DESCRIPTORS: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/** One parsed field: the values it allows, and whether it was written as an unrestricted `*`. */
interface Field {
  allowed: ReadonlySet<number>;
  star: boolean;
}

/** How far ahead `next` searches before deciding that a schedule never fires (robfig/cron's bound). */
const SEARCH_YEARS = 5;

export class CronSchedule {
  private constructor(
    readonly text: string,
    private readonly minute: Field,
    private readonly hour: Field,
    private readonly dayOfMonth: Field,
    private readonly month: Field,
    private readonly dayOfWeek: Field,
  ) {}

  /** Parses a standard cron expression; throws CronSyntaxError naming what is wrong. */
  static parse(text: string): CronSchedule {
    const trimmed = text.trim();
    if (trimmed === "")
      throw new CronSyntaxError(`schedule "${text}": empty; write 5 fields such as "*/5 * * * *"`);
    if (/^(CRON_)?TZ=/.test(trimmed))
      throw new CronSyntaxError(`schedule "${text}": time zones are not supported; schedules run in UTC`);
    let expanded = trimmed;
    if (trimmed.startsWith("@")) {
      const descriptor = DESCRIPTORS[trimmed.toLowerCase()];
      if (!descriptor)
        throw new CronSyntaxError(
          `schedule "${text}": unknown descriptor; use one of ${Object.keys(DESCRIPTORS).join(", ")}`,
        );
      expanded = descriptor;
    }
    const fields = expanded.split(/\s+/);
    if (fields.length !== 5)
      throw new CronSyntaxError(
        `schedule "${text}": ${fields.length} fields, expected 5 (minute hour day-of-month month day-of-week)`,
      );
    const [minute, hour, dom, month, dow] = fields as [string, string, string, string, string];
    return new CronSchedule(
      text,
      parseField(text, minute, MINUTE),
      parseField(text, hour, HOUR),
      parseField(text, dom, DAY_OF_MONTH),
      parseField(text, month, MONTH),
      parseField(text, dow, DAY_OF_WEEK),
    );
  }

  /**
   * The first time strictly after `after` (at a whole minute) that the schedule fires, or
   * undefined when it fires on no day within five years (e.g. "0 0 30 2 *").
   */
  next(after: Date): Date | undefined {
    const minuteMs = 60_000;
    let t = new Date(Math.floor(after.getTime() / minuteMs) * minuteMs + minuteMs);
    const lastYear = t.getUTCFullYear() + SEARCH_YEARS;
    while (t.getUTCFullYear() <= lastYear) {
      const [y, mo, d, h] = [t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate(), t.getUTCHours()];
      if (!this.month.allowed.has(mo + 1)) t = new Date(Date.UTC(y, mo + 1, 1));
      else if (!this.dayMatches(t)) t = new Date(Date.UTC(y, mo, d + 1));
      else if (!this.hour.allowed.has(h)) t = new Date(Date.UTC(y, mo, d, h + 1));
      else if (!this.minute.allowed.has(t.getUTCMinutes())) t = new Date(t.getTime() + minuteMs);
      else return t;
    }
    return undefined;
  }

  private dayMatches(t: Date): boolean {
    const dom = this.dayOfMonth.allowed.has(t.getUTCDate());
    const dow = this.dayOfWeek.allowed.has(t.getUTCDay());
    // cron(8): a restricted day-of-month and a restricted day-of-week are alternatives.
    if (this.dayOfMonth.star || this.dayOfWeek.star) return dom && dow;
    return dom || dow;
  }
}

function parseField(schedule: string, text: string, bounds: FieldBounds): Field {
  const fail = (why: string): never => {
    throw new CronSyntaxError(`schedule "${schedule}": ${bounds.name} field "${text}": ${why}`);
  };
  const allowed = new Set<number>();
  let star = false;
  for (const part of text.split(",")) {
    const [range, stepText, extra] = part.split("/");
    if (extra !== undefined) fail(`"${part}" has more than one "/"`);
    if (range === undefined || range === "") fail(`"${part}" has no range before "/"`);
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) === 0)
        fail(`step "${stepText}" is not a positive number`);
      step = Number(stepText);
    }
    let low: number;
    let high: number;
    if (range === "*" || range === "?") {
      [low, high] = [bounds.min, bounds.max];
      if (step === 1) star = true;
    } else {
      const [first, last, more] = range!.split("-");
      if (more !== undefined) fail(`"${range}" has more than one "-"`);
      low = value(first!, bounds, fail);
      // "a/n" means from a to the field's maximum, every n.
      high = last !== undefined ? value(last, bounds, fail) : stepText !== undefined ? bounds.max : low;
      if (low > high) fail(`range "${range}" starts after it ends`);
    }
    for (let v = low; v <= high; v += step) allowed.add(v);
  }
  return { allowed, star };
}

function value(text: string, bounds: FieldBounds, fail: (why: string) => never): number {
  const named = bounds.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + bounds.min;
  if (!/^\d+$/.test(text))
    fail(`"${text}" is not a number${bounds.names ? ` or a name (${bounds.names.join(", ")})` : ""}`);
  const n = Number(text);
  if (n < bounds.min || n > bounds.max) fail(`${n} is outside ${bounds.min}-${bounds.max}`);
  return n;
}
