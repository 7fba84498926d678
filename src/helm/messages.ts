// User-facing text of `tsop helm`, in one place so tests can match it.
import type { HintedMessage } from "../common/errors.js";

export const helmMessages = {
  sameTemplate: (path: string): string =>
    `config/default holds two objects that would both be ${path} (same kind and name); keep one`,
  noVersion: (file: string): HintedMessage => ({
    message: `${file} has no "version": a chart needs the project's version for Chart.yaml`,
    hint: 'add "version": "0.0.1" to package.json, or pass --version',
  }),
  badVersion: (version: string, where: string): HintedMessage => ({
    message: `${where} "${version}" is not a SemVer 2 version; Helm refuses charts without one`,
    hint: "use a version such as 0.1.0 or 1.2.3-rc.1",
  }),
  badChartName: (name: string): HintedMessage => ({
    message: `PROJECT projectName "${name}" cannot name a chart (lowercase letters, digits and "-", starting with a letter)`,
    hint: "rename the project in PROJECT (projectName)",
  }),
  outOfDate: (dir: string, count: number): HintedMessage => ({
    message: `the chart in ${dir} is out of date: ${count} file(s) differ from what tsop helm generates`,
    hint: "run `tsop helm` and commit the result",
  }),
  written: (dir: string, count: number): string => `wrote the chart to ${dir} (${count} files)`,
  upToDate: (dir: string): string => `the chart in ${dir} is up to date`,
};
