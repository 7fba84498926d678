// The CronJob tutorial's cron parser (project/src/cron/schedule.ts): robfig/cron ParseStandard's
// syntax and next-time semantics, in UTC.
import { describe, expect, it } from "vitest";
import { CronSchedule, CronSyntaxError } from "./project/src/cron/schedule.js";

const at = (iso: string) => new Date(iso);
/** The next `count` times after `from`, as ISO strings. */
function nextTimes(expr: string, from: string, count: number): string[] {
  const schedule = CronSchedule.parse(expr);
  const out: string[] = [];
  let t: Date | undefined = at(from);
  for (let i = 0; i < count; i++) {
    t = schedule.next(t!);
    if (!t) break;
    out.push(t.toISOString());
  }
  return out;
}

describe("CronSchedule.next", () => {
  it("fires every minute, strictly after the given time, on whole minutes", () => {
    expect(nextTimes("* * * * *", "2026-01-01T10:00:00Z", 2)).toEqual([
      "2026-01-01T10:01:00.000Z",
      "2026-01-01T10:02:00.000Z",
    ]);
    expect(nextTimes("*/1 * * * *", "2026-01-01T10:00:59.999Z", 1)).toEqual(["2026-01-01T10:01:00.000Z"]);
  });

  it("steps, ranges, lists and a/n (a to the maximum)", () => {
    expect(nextTimes("*/15 * * * *", "2026-01-01T10:01:00Z", 4)).toEqual([
      "2026-01-01T10:15:00.000Z",
      "2026-01-01T10:30:00.000Z",
      "2026-01-01T10:45:00.000Z",
      "2026-01-01T11:00:00.000Z",
    ]);
    expect(nextTimes("5,10-12 9 * * *", "2026-01-01T09:06:00Z", 4)).toEqual([
      "2026-01-01T09:10:00.000Z",
      "2026-01-01T09:11:00.000Z",
      "2026-01-01T09:12:00.000Z",
      "2026-01-02T09:05:00.000Z",
    ]);
    expect(nextTimes("50/5 0 * * *", "2026-01-01T00:00:00Z", 3)).toEqual([
      "2026-01-01T00:50:00.000Z",
      "2026-01-01T00:55:00.000Z",
      "2026-01-02T00:50:00.000Z",
    ]);
    expect(nextTimes("0 8-18/4 * * *", "2026-01-01T00:00:00Z", 4)).toEqual([
      "2026-01-01T08:00:00.000Z",
      "2026-01-01T12:00:00.000Z",
      "2026-01-01T16:00:00.000Z",
      "2026-01-02T08:00:00.000Z",
    ]);
  });

  it("names of months and days, and the descriptors", () => {
    // 2026-03-02 is a Monday.
    expect(nextTimes("0 0 * mar-apr mon", "2026-01-01T00:00:00Z", 2)).toEqual([
      "2026-03-02T00:00:00.000Z",
      "2026-03-09T00:00:00.000Z",
    ]);
    expect(nextTimes("@hourly", "2026-01-01T10:30:00Z", 1)).toEqual(["2026-01-01T11:00:00.000Z"]);
    expect(nextTimes("@daily", "2026-01-31T10:30:00Z", 1)).toEqual(["2026-02-01T00:00:00.000Z"]);
    expect(nextTimes("@weekly", "2026-01-01T00:00:00Z", 1)).toEqual(["2026-01-04T00:00:00.000Z"]); // a Sunday
    expect(nextTimes("@monthly", "2026-12-15T00:00:00Z", 1)).toEqual(["2027-01-01T00:00:00.000Z"]);
    expect(nextTimes("@yearly", "2026-06-01T00:00:00Z", 1)).toEqual(["2027-01-01T00:00:00.000Z"]);
  });

  it("a restricted day of month and day of week are alternatives; with a * both must match", () => {
    // The 13th or any Friday (2026-02-06 and 2026-02-13 are Fridays).
    expect(nextTimes("0 0 13 * fri", "2026-02-01T00:00:00Z", 3)).toEqual([
      "2026-02-06T00:00:00.000Z",
      "2026-02-13T00:00:00.000Z",
      "2026-02-20T00:00:00.000Z",
    ]);
    // "*/2" is restricted (odd days): alternatives, so the 3rd (a Tuesday) fires; "*/1" counts as
    // "*" (robfig/cron: only a step above 1 restricts), so both must match: Friday the 6th.
    expect(nextTimes("0 0 */2 * fri", "2026-02-01T00:00:00Z", 1)).toEqual(["2026-02-03T00:00:00.000Z"]);
    expect(nextTimes("0 0 */1 * fri", "2026-02-01T00:00:00Z", 1)).toEqual(["2026-02-06T00:00:00.000Z"]);
    expect(nextTimes("0 0 * * fri", "2026-02-01T00:00:00Z", 1)).toEqual(["2026-02-06T00:00:00.000Z"]);
  });

  it("the 29th of February comes in leap years only; a day that never comes gives undefined", () => {
    expect(nextTimes("0 0 29 2 *", "2026-01-01T00:00:00Z", 1)).toEqual(["2028-02-29T00:00:00.000Z"]);
    expect(CronSchedule.parse("0 0 30 2 *").next(at("2026-01-01T00:00:00Z"))).toBeUndefined();
  });
});

describe("CronSchedule.parse errors name the field and what is wrong", () => {
  it.each([
    ["", /empty; write 5 fields/],
    ["* * * *", /4 fields, expected 5 \(minute hour day-of-month month day-of-week\)/],
    ["60 * * * *", /minute field "60": 60 is outside 0-59/],
    ["* 24 * * *", /hour field "24": 24 is outside 0-23/],
    ["* * 0 * *", /day-of-month field "0": 0 is outside 1-31/],
    ["* * * foo *", /month field "foo": "foo" is not a number or a name \(jan, feb/],
    ["* * * * 7", /day-of-week field "7": 7 is outside 0-6/],
    ["*/0 * * * *", /minute field "\*\/0": step "0" is not a positive number/],
    ["5-1 * * * *", /range "5-1" starts after it ends/],
    ["1,,2 * * * *", /has no range before/],
    ["@every 5m", /unknown descriptor; use one of @yearly/],
    ["TZ=UTC * * * * *", /time zones are not supported/],
  ])("%j", (expr, message) => {
    expect(() => CronSchedule.parse(expr)).toThrow(CronSyntaxError);
    expect(() => CronSchedule.parse(expr)).toThrow(message);
  });
});
