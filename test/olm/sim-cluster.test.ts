// `npm run sim-cluster` works as documented: it prints a kubeconfig path on which tsop sees a
// healthy OLM, on the requested port, and stops cleanly on SIGINT.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createServer } from "node:net";
import { execa } from "execa";
import { expect, it } from "vitest";
import { REPO_ROOT, runTsop } from "../support/cli.js";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

it("starts a simulated cluster with OLM installed, prints its kubeconfig, stops on SIGINT", async () => {
  const port = await freePort();
  // As `npm run sim-cluster` runs it: one node process with tsx's loader. (The `tsx` command relays
  // SIGINT to a child and exits 130 when the child takes over 30 ms to acknowledge: on a loaded
  // machine this test then failed with "expected 130 to be +0".)
  const pkg = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const [node, ...script] = pkg.scripts["sim-cluster"]!.split(" ");
  expect(node).toBe("node");
  expect(script.slice(0, 2)).toEqual(["--import", "tsx"]);
  const child = execa(
    process.execPath,
    [...script, "--port", String(port), "--csv-phase-ms", "0", "--pod-start-ms", "10"],
    {
      cwd: REPO_ROOT,
      reject: false,
      env: { NO_COLOR: "1" },
    },
  );
  let out = "";
  const kubeconfig = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (d) => {
      out += String(d);
      const m = /kubeconfig: (\S+)/.exec(out);
      if (m && out.includes("Press Ctrl-C")) resolve(m[1]!);
    });
    child.on("exit", () => reject(new Error(`sim-cluster exited early:\n${out}`)));
  });
  try {
    expect(out).toContain(`Simulated cluster at https://127.0.0.1:${port} (OLM installed)`);
    const status = await runTsop(["olm", "status", "--kubeconfig", kubeconfig]);
    expect(status.stdout).toContain("OLM v0.28.0: healthy");
    expect(status.exitCode).toBe(0);
    // kubectl only sends the kubeconfig's token over TLS: the simulated cluster must serve it.
    const kubectl = await execa(
      "kubectl",
      ["--kubeconfig", kubeconfig, "get", "deployments", "-n", "olm", "-o", "name"],
      {
        reject: false,
        env: { HOME: dirname(kubeconfig) },
      },
    );
    expect(kubectl.stderr).toBe("");
    expect(kubectl.stdout).toContain("deployment.apps/olm-operator");
  } finally {
    child.kill("SIGINT");
  }
  const result = await child;
  expect(result.exitCode).toBe(0);
  expect(existsSync(kubeconfig)).toBe(false);
}, 60_000);
