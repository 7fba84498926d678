// Operand images for disconnected installs: the CSV's manager container sets RELATED_IMAGE_<NAME>
// (pinned by digest at bundle time); the operator reads it here and falls back to its default.
// Operators that map a RELATED_IMAGE_ variable to a name of their own
// (`DFA_BUSYBOX_IMAGE: $(RELATED_IMAGE_FEDORA)`) read that variable with `{ variable }`.
import { TsopError } from "../../common/errors.js";
import { relatedImageEnvName } from "../../common/related-image-names.js";

export { relatedImageEnvName };

/** Which variable holds the image: an image name ("memcached" → RELATED_IMAGE_MEMCACHED) or a variable. */
export type RelatedImageKey = string | { variable: string };

const REFERENCE = /\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g;

/**
 * Expands $(VAR) references the way the kubelet does for container env (a variable that is not
 * set stays as written; $$ is a literal $), for values read outside a pod, e.g. `tsop run local`.
 */
function expand(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(REFERENCE, (whole, name: string | undefined) =>
    name === undefined ? "$" : (env[name] ?? whole),
  );
}

/**
 * The image to run: the variable's value when set and non-empty, else `fallback`. Throws when
 * neither is available, naming the variable to set.
 */
export function relatedImage(
  key: RelatedImageKey,
  fallback?: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const variable = typeof key === "string" ? relatedImageEnvName(key) : checkedVariable(key.variable);
  const value = expand(env[variable]?.trim() ?? "", env);
  if (value && !value.includes("$(")) return value;
  if (fallback) return fallback;
  const what = typeof key === "string" ? `"${key}"` : variable;
  const detail = value ? `${variable} refers to an unset variable (${value})` : `${variable} is not set`;
  throw new TsopError(`no image configured for ${what}: ${detail}`, {
    hint: `set ${variable} in the manager's environment (the bundle's CSV does this) or pass a fallback image`,
  });
}

function checkedVariable(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new TsopError(`relatedImage: "${name}" is not an environment variable name`, {
      hint: 'pass { variable: "MY_IMAGE" }, or an image name such as "memcached"',
    });
  return name;
}
