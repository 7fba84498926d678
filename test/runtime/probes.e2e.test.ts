// /healthz/<name> and /readyz/<name> run one check (404 for an unknown name), ?exclude=<name>
// leaves one out, as controller-runtime's healthz handler.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Manager } from "../../src/runtime/manager/manager.js";
import { type Harness, harness, httpGet } from "./support/cluster.js";
import { waitFor } from "./support/wait.js";

let h: Harness;
let m: Manager;
let url: string;
beforeAll(async () => {
  h = await harness();
  m = await h.startManager();
  m.addReadyCheck("database", () => "connection refused");
  m.addReadyCheck("config", () => true);
  m.addHealthCheck("deadlock", () => true);
  m.start().catch(() => {});
  url = await waitFor("the probe server", () => m.healthProbeUrl);
  await waitFor("the caches synced", async () => (await httpGet(`${url}/readyz/informers`)).status === 200);
}, 60_000);
afterAll(async () => h?.stop());

it("runs one check by name", async () => {
  expect(await httpGet(`${url}/readyz/config`)).toEqual({ status: 200, body: "ok" });
  const failing = await httpGet(`${url}/readyz/database`);
  expect(failing.status).toBe(500);
  expect(failing.body).toContain("[-]database failed: connection refused");
  expect(failing.body).not.toContain("config");
  expect((await httpGet(`${url}/healthz/deadlock`)).status).toBe(200);
});

it("answers 404 for a check that is not registered, naming the known ones", async () => {
  const missing = await httpGet(`${url}/readyz/nope`);
  expect(missing.status).toBe(404);
  expect(missing.body).toContain('no readyz check named "nope"');
  expect(missing.body).toContain("database");
  expect((await httpGet(`${url}/healthz/database`)).status).toBe(404);
  expect((await httpGet(`${url}/readyz/config/extra`)).status).toBe(404);
});

it("runs every check, or all but the excluded ones", async () => {
  const all = await httpGet(`${url}/readyz`);
  expect(all.status).toBe(500);
  expect(all.body).toContain("[+]config ok");
  expect(await httpGet(`${url}/readyz?exclude=database`)).toEqual({ status: 200, body: "ok" });
  const verbose = await httpGet(`${url}/readyz?exclude=database&exclude=config&verbose`);
  expect(verbose.body).toBe("[+]informers ok\nreadyz check passed\n");
});
