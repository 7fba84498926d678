// What the deploy tests of the scaffolded memcached operator start from: a registry on 127.0.0.1
// holding the Node base, the scaffolded and built project in a temp directory, and the pod-runner
// bed without OLM with a "tenant" namespace, started side by side. Kept apart from support.ts,
// which files outside the OLM lanes import: importing the bed puts a file in those lanes.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { type OlmBed, startOlmBed } from "../support/rig/olm-bed.js";
import { pushBase, scaffoldMemcached } from "./support.js";

export interface DeployBed {
  registry: TestRegistry;
  bed: OlmBed;
  /** The temp directory the project is in. */
  work: string;
  project: string;
  stop(): Promise<void>;
}

/** Starts it all; on a failure stops what did start before rethrowing. `prefix` names the temp directory. */
export async function startDeployBed(prefix: string): Promise<DeployBed> {
  const registry = await startRegistry();
  const work = await mkdtemp(join(tmpdir(), prefix));
  const [base, scaffolded, started] = await Promise.allSettled([
    pushBase(registry),
    scaffoldMemcached(work),
    startOlmBed({ olm: false, namespaces: ["tenant"] }),
  ]);
  const bed = started.status === "fulfilled" ? started.value : undefined;
  const stop = async () => {
    await bed?.stop();
    await registry.stop();
    await rm(work, { recursive: true, force: true });
  };
  for (const step of [base, scaffolded, started])
    if (step.status === "rejected") {
      await stop();
      throw step.reason;
    }
  return { registry, bed: bed!, work, project: (scaffolded as PromiseFulfilledResult<string>).value, stop };
}
