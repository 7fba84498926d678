// Who a container runs as, decided as a kubelet and container runtime do: runAsUser/runAsGroup of
// the container, else of the pod, else the image's USER (a name is looked up in the image's
// /etc/passwd and /etc/group); runAsNonRoot refuses a container that would run as uid 0 or whose
// user cannot be verified (a name), with kubelet's messages (CreateContainerConfigError). The
// mapped OLM/opm stand-ins always run as root: they are rig binaries, not the upstream images.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeObject } from "../../../src/kube/objects.js";
import type { ImageConfig } from "./images.js";
import type { Container, SecurityContext } from "./pod-spec.js";

export interface RunAs {
  uid: number;
  gid: number;
  readOnlyRootFilesystem: boolean;
}

export class RunAsError extends Error {}

export function runAs(pod: KubeObject, c: Container, image: ImageConfig): RunAs {
  const podContext = (pod.spec?.securityContext ?? {}) as SecurityContext;
  const own = c.securityContext ?? {};
  const readOnlyRootFilesystem = own.readOnlyRootFilesystem ?? false;
  if (image.mapped) return { uid: 0, gid: 0, readOnlyRootFilesystem: false };
  const [userPart = "", groupPart] = image.user.split(":");
  const imageUid = userPart === "" ? 0 : /^\d+$/.test(userPart) ? Number(userPart) : undefined;
  const uid = own.runAsUser ?? podContext.runAsUser ?? imageUid;
  const who = `(pod: "${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})", container: ${c.name})`;
  if (own.runAsNonRoot ?? podContext.runAsNonRoot) {
    if ((own.runAsUser ?? podContext.runAsUser) === 0)
      throw new RunAsError(`container's runAsUser breaks non-root policy ${who}`);
    if (uid === undefined)
      throw new RunAsError(
        `container has runAsNonRoot and image has non-numeric user (${userPart}), cannot verify user is non-root ${who}`,
      );
    if (uid === 0) throw new RunAsError(`container has runAsNonRoot and image will run as root ${who}`);
  }
  const passwd = uid === undefined ? lookup(image.rootfs, "passwd", userPart) : undefined;
  if (uid === undefined && !passwd)
    throw new RunAsError(`unable to find user ${userPart}: no matching entries in passwd file`);
  const resolvedUid = uid ?? Number(passwd![2]);
  const imageGid =
    groupPart === undefined
      ? passwd
        ? Number(passwd[3])
        : undefined
      : /^\d+$/.test(groupPart)
        ? Number(groupPart)
        : Number(lookup(image.rootfs, "group", groupPart)?.[2] ?? 0);
  const gid = own.runAsGroup ?? podContext.runAsGroup ?? imageGid ?? 0;
  return { uid: resolvedUid, gid, readOnlyRootFilesystem };
}

/** The fields of the /etc/<file> line for `name`, if any. */
function lookup(rootfs: string, file: "passwd" | "group", name: string): string[] | undefined {
  let text = "";
  try {
    text = readFileSync(join(rootfs, "etc", file), "utf8");
  } catch {
    return undefined;
  }
  return text
    .split("\n")
    .map((line) => line.split(":"))
    .find((fields) => fields[0] === name);
}
