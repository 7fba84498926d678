// What the dev-loop commands read from an operator project: its root and PROJECT facts, the CRDs
// under config/crd, the manager Deployment and container under config/manager, and the whole
// config/default tree. Everything goes through the built-in kustomize reader (src/manifests).
import { join, relative } from "node:path";
import { errorFrom, InvalidInputError } from "../common/errors.js";
import type { KubeObject } from "../kube/objects.js";
import { isCrd } from "../kube/objects.js";
import { buildKustomization, setNamespace } from "../manifests/kustomize.js";
import { loadManifests, podSpecOf } from "../manifests/index.js";
import { readProject } from "../project/index.js";
import type { Project } from "../project/types.js";
import { messages } from "./messages.js";

export const MANAGER_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container";

export async function openProject(cwd: string): Promise<Project> {
  return readProject(cwd);
}

/** The CRDs `tsop generate` wrote, as config/crd's kustomization lists them. */
export async function loadCrds(project: Project): Promise<KubeObject[]> {
  const loaded = await loadManifests({ cwd: project.root, dir: join("config", "crd") });
  const crds = loaded.map((l) => l.object as unknown as KubeObject).filter(isCrd);
  if (crds.length === 0) {
    throw errorFrom(messages.noCrds());
  }
  return crds;
}

/** The config/default tree, optionally moved to another namespace (kustomize's namespace transform). */
export async function loadDefault(project: Project, namespace?: string): Promise<KubeObject[]> {
  const dir = join(project.root, "config", "default");
  const resources = await buildKustomization(dir, { root: project.root });
  if (namespace) setNamespace(resources, namespace);
  return resources.map((r) => r.object as unknown as KubeObject);
}

export interface ManagerSpec {
  deployment: KubeObject;
  container: Record<string, unknown>;
  /** "config/manager: Deployment controller-manager, container manager", for messages. */
  where: string;
}

/** The manager Deployment among `objects` and its manager container. */
export function findManager(objects: KubeObject[], source: string): ManagerSpec {
  const deployments = objects.filter((o) => o.kind === "Deployment");
  const withManager = deployments.filter((d) => containerOf(d) !== undefined);
  const deployment = withManager[0];
  if (withManager.length !== 1 || !deployment) {
    throw errorFrom(
      messages.noManager(
        source,
        deployments.map((d) => d.metadata.name ?? ""),
      ),
      InvalidInputError,
    );
  }
  const container = containerOf(deployment) as Record<string, unknown>;
  return {
    deployment,
    container,
    where: `${source}: Deployment ${deployment.metadata.name ?? ""}, container ${String(container.name)}`,
  };
}

/** The container named by the default-container annotation, else "manager", else the only one. */
function containerOf(deployment: KubeObject): Record<string, unknown> | undefined {
  const pod = podSpecOf(deployment);
  const containers = (Array.isArray(pod?.containers) ? pod.containers : []) as Array<Record<string, unknown>>;
  const template = (deployment.spec?.template?.metadata ?? {}) as { annotations?: Record<string, string> };
  const wanted = template.annotations?.[MANAGER_CONTAINER_ANNOTATION] ?? "manager";
  return containers.find((c) => c.name === wanted) ?? (containers.length === 1 ? containers[0] : undefined);
}

/** The manager as config/manager defines it (what `run local` takes its env from). */
export async function loadManager(project: Project): Promise<ManagerSpec> {
  const dir = join("config", "manager");
  const loaded = await loadManifests({ cwd: project.root, dir });
  return findManager(
    loaded.map((l) => l.object as unknown as KubeObject),
    relative(project.root, join(project.root, dir)),
  );
}
