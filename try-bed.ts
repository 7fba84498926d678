import { startOlmBed } from "./test/support/rig/olm-bed.js";
const paths: Record<string, string> = {
  olm: "/root/.cache/tsop-rig/olm-v0.28.0-81af6ae8cb2e/olm",
  catalog: "/root/.cache/tsop-rig/catalog-v0.28.0-9c8f04416b9b/catalog",
  cpb: "/root/.cache/tsop-rig/cpb-v0.28.0-7569b5e43b05/cpb",
};
import { readdirSync } from "node:fs";
for (const d of readdirSync("/root/.cache/tsop-rig")) {
  const m = /^(package-server|opm|etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kwok)-v/.exec(d);
  if (m && !d.includes(".tmp")) paths[m[1]!] = `/root/.cache/tsop-rig/${d}/${m[1]}`;
}
process.env.KUBEBUILDER_ASSETS = "/tmp/olmreal-try/assets";
import { mkdirSync, symlinkSync, rmSync } from "node:fs";
rmSync("/tmp/olmreal-try/assets", { recursive: true, force: true });
mkdirSync("/tmp/olmreal-try/assets", { recursive: true });
for (const [k, v] of Object.entries(paths)) symlinkSync(v, `/tmp/olmreal-try/assets/${k}`);
const t0 = Date.now();
const bed = await startOlmBed({
  olm: process.argv[2] !== "--no-olm",
  binary: (n) => paths[n] ?? (() => { throw new Error(`no ${n}`); })(),
  log: (m) => console.error(`[runner ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`),
});
console.log(`kubeconfig: ${bed.cluster.kubeconfigPath} (${Date.now() - t0} ms) dir ${bed.cluster.dataDir}`);
process.on("SIGINT", async () => { await bed.stop(); process.exit(0); });
setInterval(() => {}, 1000);
