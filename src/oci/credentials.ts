// Registry credentials from the files container tools write, in their lookup order:
//   --registry-config <file> (only that file), else $REGISTRY_AUTH_FILE,
//   ${XDG_RUNTIME_DIR}/containers/auth.json, ${XDG_CONFIG_HOME:-~/.config}/containers/auth.json,
//   ${DOCKER_CONFIG:-~/.docker}/config.json.
// In each file: credHelpers[registry], then credsStore, then auths (the most specific
// "registry/namespace/repo" key first, as podman allows). Helpers are the docker-credential-<name>
// programs (`get`, server URL on stdin). Credentials are returned to the client only, never logged.
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { InvalidInputError, TsopError } from "../common/errors.js";
import { DOCKER_HUB } from "./reference.js";

export interface Credential {
  username?: string;
  password?: string;
  /** An OAuth2 refresh token (docker login against some registries, `<token>` helper answers). */
  identityToken?: string;
  /** Where it came from, for messages ("~/.docker/config.json", "docker-credential-pass"). */
  source: string;
}

export interface CredentialOptions {
  registryConfig?: string;
  env: NodeJS.ProcessEnv;
  /** Debug lines (never with secrets). */
  debug?: (message: string) => void;
  /** Reuse parsed files and helper answers across lookups (one per client). */
  cache?: CredentialCache;
}

export interface CredentialCache {
  files: Map<string, Promise<AuthFile | undefined>>;
  helpers: Map<string, Promise<Credential | undefined>>;
}

export function credentialCache(): CredentialCache {
  return { files: new Map(), helpers: new Map() };
}

interface AuthEntry {
  auth?: string;
  username?: string;
  password?: string;
  identitytoken?: string;
}

export interface AuthFile {
  auths?: Record<string, AuthEntry>;
  credHelpers?: Record<string, string>;
  credsStore?: string;
}

export class CredentialHelperError extends TsopError {}

/** The auth files to consult, in order, with whether a missing file is an error. */
export function authFilePaths(options: CredentialOptions): Array<{ path: string; required: boolean }> {
  const { env } = options;
  if (options.registryConfig) return [{ path: options.registryConfig, required: true }];
  const home = env.HOME || homedir();
  const paths: Array<{ path: string; required: boolean }> = [];
  if (env.REGISTRY_AUTH_FILE) paths.push({ path: env.REGISTRY_AUTH_FILE, required: false });
  if (env.XDG_RUNTIME_DIR)
    paths.push({ path: join(env.XDG_RUNTIME_DIR, "containers", "auth.json"), required: false });
  paths.push({
    path: join(env.XDG_CONFIG_HOME || join(home, ".config"), "containers", "auth.json"),
    required: false,
  });
  paths.push({ path: join(env.DOCKER_CONFIG || join(home, ".docker"), "config.json"), required: false });
  return paths;
}

/** "https://index.docker.io/v1/" → "docker.io"; "http://quay.io/" → "quay.io"; keeps repo paths. */
export function normaliseAuthKey(key: string): string {
  let k = key.trim().replace(/^[a-z]+:\/\//i, "");
  const slash = k.indexOf("/");
  const host = (slash === -1 ? k : k.slice(0, slash)).toLowerCase();
  let path = slash === -1 ? "" : k.slice(slash + 1).replace(/\/+$/, "");
  // Docker's legacy keys carry an API path, not a repository.
  if (/^v[12]$/.test(path) || /^v[12]\//.test(path)) path = "";
  k = host === "index.docker.io" || host === "registry-1.docker.io" ? DOCKER_HUB : host;
  return path ? `${k}/${path}` : k;
}

/** The server URL docker uses for a registry when talking to credential helpers. */
function helperServerUrl(registry: string): string {
  return registry === DOCKER_HUB ? "https://index.docker.io/v1/" : registry;
}

async function readAuthFile(path: string, required: boolean): Promise<AuthFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new InvalidInputError(
      `cannot read registry credentials file ${path}: ${(error as Error).message}`,
      {
        hint: "Pass --registry-config <file> pointing at a docker config.json or containers auth.json.",
      },
    );
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
      throw new Error("not an object");
    return parsed as AuthFile;
  } catch {
    // The message names the file only: the content may hold secrets.
    throw new InvalidInputError(`registry credentials file ${path} is not valid JSON`, {
      location: { file: path },
      hint: 'Expected {"auths": {"<registry>": {"auth": "<base64 user:password>"}}}.',
    });
  }
}

function entryCredential(entry: AuthEntry, source: string): Credential | undefined {
  if (entry.identitytoken) return { identityToken: entry.identitytoken, source };
  if (entry.username && entry.password) return { username: entry.username, password: entry.password, source };
  if (entry.auth) {
    const decoded = Buffer.from(entry.auth, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon > 0) return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1), source };
  }
  return undefined;
}

export async function runCredentialHelper(
  helper: string,
  registry: string,
  env: NodeJS.ProcessEnv,
): Promise<Credential | undefined> {
  const program = `docker-credential-${helper}`;
  // Loaded here, where a helper runs: execa and its modules cost every registry command ~30 ms.
  const { execa } = await import("execa");
  const result = await execa(program, ["get"], {
    input: helperServerUrl(registry),
    env,
    reject: false,
    timeout: 30_000,
    stripFinalNewline: true,
  });
  if ((result as { code?: string }).code === "ENOENT" || result.exitCode === undefined) {
    throw new CredentialHelperError(
      `credential helper ${program} is not installed (needed for ${registry})`,
      {
        hint: `Install ${program}, or remove "${helper}" from credHelpers/credsStore in your docker config.`,
      },
    );
  }
  if (result.exitCode !== 0) {
    const said = `${result.stdout}`.trim();
    if (/credentials not found/i.test(said)) return undefined;
    throw new CredentialHelperError(
      `credential helper ${program} failed for ${registry} (exit ${result.exitCode})`,
      {
        hint: `Run \`echo ${helperServerUrl(registry)} | ${program} get\` to see its error.`,
      },
    );
  }
  let answer: { Username?: string; Secret?: string };
  try {
    answer = JSON.parse(`${result.stdout}`) as { Username?: string; Secret?: string };
  } catch {
    throw new CredentialHelperError(`credential helper ${program} printed something that is not JSON`);
  }
  if (!answer.Secret) return undefined;
  if (answer.Username === "<token>") return { identityToken: answer.Secret, source: program };
  return { username: answer.Username ?? "", password: answer.Secret, source: program };
}

function cached<T>(
  map: Map<string, Promise<T>> | undefined,
  key: string,
  load: () => Promise<T>,
): Promise<T> {
  if (!map) return load();
  let value = map.get(key);
  if (!value) {
    value = load();
    map.set(key, value);
  }
  return value;
}

/** Finds credentials for a repository on a registry, or undefined for anonymous access. */
export async function findCredentials(
  registry: string,
  repository: string,
  options: CredentialOptions,
): Promise<Credential | undefined> {
  for (const { path, required } of authFilePaths(options)) {
    const file = await cached(options.cache?.files, path, () => readAuthFile(path, required));
    if (!file) continue;
    const helpers = Object.fromEntries(
      Object.entries(file.credHelpers ?? {}).map(([k, v]) => [normaliseAuthKey(k), v] as const),
    );
    const helper = helpers[registry];
    if (helper) {
      options.debug?.(`credentials for ${registry}: credential helper docker-credential-${helper} (${path})`);
      const credential = await cached(options.cache?.helpers, `${helper}|${registry}`, () =>
        runCredentialHelper(helper, registry, options.env),
      );
      if (credential) return credential;
    }
    if (file.credsStore) {
      options.debug?.(
        `credentials for ${registry}: credential store docker-credential-${file.credsStore} (${path})`,
      );
      const store = file.credsStore;
      const credential = await cached(options.cache?.helpers, `${store}|${registry}`, () =>
        runCredentialHelper(store, registry, options.env),
      );
      if (credential) return credential;
    }
    const entries = new Map<string, AuthEntry>();
    for (const [key, entry] of Object.entries(file.auths ?? {})) entries.set(normaliseAuthKey(key), entry);
    // Most specific first: registry/ns/repo, registry/ns, registry.
    const parts = `${registry}/${repository}`.split("/");
    for (let n = parts.length; n >= 1; n--) {
      const key = parts.slice(0, n).join("/");
      const entry = entries.get(key);
      const credential = entry ? entryCredential(entry, path) : undefined;
      if (credential) {
        options.debug?.(`credentials for ${registry}: ${path} (key ${key})`);
        return credential;
      }
    }
  }
  return undefined;
}
