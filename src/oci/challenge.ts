// WWW-Authenticate parsing (RFC 7235 auth-params, as registries send them):
//   Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull"
//   Basic realm="Registry Realm"
export interface Challenge {
  scheme: "basic" | "bearer" | string;
  params: Record<string, string>;
}

export function parseChallenges(header: string | string[] | undefined): Challenge[] {
  const values = Array.isArray(header) ? header : header ? [header] : [];
  const challenges: Challenge[] = [];
  for (const value of values) {
    let rest = value.trim();
    let current: Challenge | undefined;
    while (rest.length > 0) {
      // A new challenge starts with a token that is not followed by '='.
      const scheme = /^([A-Za-z][\w.+-]*)(?:\s+|$)(?!=)/.exec(rest);
      if (scheme?.[1] && !/^[\w.+-]+\s*=/.test(rest)) {
        current = { scheme: scheme[1].toLowerCase(), params: {} };
        challenges.push(current);
        rest = rest.slice(scheme[0].length);
        continue;
      }
      const param = /^([\w.+-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))\s*,?\s*/.exec(rest);
      if (!param?.[1]) break;
      if (current)
        current.params[param[1].toLowerCase()] = (param[2] ?? param[3] ?? "").replace(/\\(.)/g, "$1");
      rest = rest.slice(param[0].length);
    }
  }
  return challenges;
}
