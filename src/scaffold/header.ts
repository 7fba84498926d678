// The comment at the top of every scaffolded TypeScript file: the license notice, or nothing.
// No year, so the same input always gives the same files.

export function licenseHeader(license: "apache2" | "none" | undefined, owner: string): string {
  if (license === "none") return "";
  return [
    `// Copyright ${owner}.`,
    "// Licensed under the Apache License, Version 2.0; see http://www.apache.org/licenses/LICENSE-2.0.",
    "",
    "",
  ].join("\n");
}
