// A small token issuer for Docker's token authentication protocol, as the registry's `auth.token`
// section expects: GET <realm>?service=..&scope=repository:<name>:<actions> (Basic auth optional)
// and the OAuth2 POST form (grant_type=password|refresh_token). Tokens are ES256 JWTs whose header
// carries the signing certificate (x5c); the registry trusts them through its rootcertbundle.
import { createPrivateKey, randomBytes, sign, X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface TokenIssuerOptions {
  /** PEM files of the signing key and its self-signed certificate (see generateCertificate). */
  keyPath: string;
  certPath: string;
  issuer: string;
  service: string;
  /** user → password; requests with wrong credentials get 401, without credentials are anonymous. */
  users: Record<string, string>;
  /** What a caller may do on a repository; default: users get what they ask for, anonymous gets nothing. */
  grant?: (account: string | undefined, repository: string, actions: string[]) => string[];
  /** refresh tokens accepted by the POST form (refresh token → account). */
  refreshTokens?: Record<string, string>;
  /** Token lifetime in seconds. */
  expiresIn?: number;
}

export interface TokenRequestRecord {
  method: string;
  account: string | undefined;
  scopes: string[];
}

export interface TokenIssuer {
  realm: string;
  requests: TokenRequestRecord[];
  stop(): Promise<void>;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");

export async function startTokenIssuer(options: TokenIssuerOptions): Promise<TokenIssuer> {
  const key = createPrivateKey(await readFile(options.keyPath));
  const cert = new X509Certificate(await readFile(options.certPath));
  const requests: TokenRequestRecord[] = [];
  const grant =
    options.grant ??
    ((account: string | undefined, _repo: string, actions: string[]) => (account ? actions : []));

  function issue(account: string | undefined, scopes: string[]): string {
    const access = scopes.flatMap((scope) => {
      const [type, ...rest] = scope.split(":");
      const actions = (rest.pop() ?? "").split(",").filter(Boolean);
      const name = rest.join(":");
      if (type !== "repository" || !name) return [];
      return [{ type, name, actions: grant(account, name, actions) }];
    });
    const now = Math.floor(Date.now() / 1000);
    const header = { alg: "ES256", typ: "JWT", x5c: [cert.raw.toString("base64")] };
    const claims = {
      iss: options.issuer,
      sub: account ?? "",
      aud: options.service,
      exp: now + (options.expiresIn ?? 300),
      nbf: now - 10,
      iat: now,
      jti: randomBytes(8).toString("hex"),
      access,
    };
    const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
    const signature = sign("sha256", Buffer.from(input), { key, dsaEncoding: "ieee-p1363" });
    return `${input}.${b64url(signature)}`;
  }

  function basicAccount(req: IncomingMessage): string | undefined | false {
    const header = req.headers.authorization;
    if (!header) return undefined;
    const match = /^Basic\s+(.+)$/i.exec(header);
    if (!match?.[1]) return false;
    const decoded = Buffer.from(match[1], "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    return options.users[user] !== undefined && options.users[user] === password ? user : false;
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://issuer");
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      if (url.pathname !== "/token") return reply(404, { error: "not found" });
      let account: string | undefined;
      let scopes: string[];
      if (req.method === "POST") {
        const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
        scopes = (form.get("scope") ?? "").split(" ").filter(Boolean);
        const grantType = form.get("grant_type");
        if (grantType === "refresh_token") {
          account = options.refreshTokens?.[form.get("refresh_token") ?? ""];
        } else if (grantType === "password") {
          const user = form.get("username") ?? "";
          account = options.users[user] === form.get("password") ? user : undefined;
        }
        if (!account) return reply(401, { error: "invalid_grant" });
      } else {
        const who = basicAccount(req);
        if (who === false) return reply(401, { details: "incorrect username or password" });
        account = who;
        scopes = url.searchParams.getAll("scope").flatMap((s) => s.split(" ").filter(Boolean));
      }
      if (url.searchParams.get("service") && url.searchParams.get("service") !== options.service) {
        return reply(400, { error: "unknown service" });
      }
      requests.push({ method: req.method ?? "GET", account, scopes });
      const token = issue(account, scopes);
      reply(200, {
        token,
        access_token: token,
        expires_in: options.expiresIn ?? 300,
        issued_at: new Date().toISOString(),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    realm: `http://127.0.0.1:${port}/token`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
