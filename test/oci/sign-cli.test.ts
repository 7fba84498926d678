// The CLI wiring of signing: usage errors before any work (--sign without --key, --key without
// --sign, --sign on an OCI layout), keygen's files and its refusal to overwrite, and a missing
// password without a terminal.
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decryptPrivateKey, loadPublicKey } from "../../src/oci/sign/keys.js";
import { runTsop } from "../support/cli.js";
import { testdir } from "../support/testdir.js";

describe("tsop image keygen", () => {
  it("writes cosign.key (0600) and cosign.pub, never overwrites them, and needs a password", async () => {
    const dir = await testdir();
    const env = { COSIGN_PASSWORD: "pw" };
    const made = await runTsop(["image", "keygen"], { cwd: dir, env });
    expect(made.exitCode, made.stderr).toBe(0);
    expect((await stat(join(dir, "cosign.key"))).mode & 0o777).toBe(0o600);
    const key = decryptPrivateKey(await readFile(join(dir, "cosign.key"), "utf8"), "pw", "cosign.key");
    const pub = loadPublicKey(await readFile(join(dir, "cosign.pub"), "utf8"), "cosign.pub");
    expect(pub.export({ format: "jwk" }).x).toBe(key.export({ format: "jwk" }).x);

    const again = await runTsop(["image", "keygen"], { cwd: dir, env });
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain("cosign.key exists; tsop image keygen does not overwrite keys");

    const noPassword = await runTsop(["image", "keygen", "--output-key-prefix", "other"], {
      cwd: dir,
      env: { COSIGN_PASSWORD: undefined },
    });
    expect(noPassword.exitCode).toBe(2);
    expect(noPassword.stderr).toContain("COSIGN_PASSWORD is not set and there is no terminal to ask on");
  });
});

describe("--sign --key", () => {
  it("are usage errors in the wrong combinations, before anything is built", async () => {
    const dir = await testdir();
    const push = (...flags: string[]) =>
      runTsop(["bundle", "push", "127.0.0.1:1/b:v1", ...flags], { cwd: dir });
    const noKey = await push("--sign");
    expect(noKey.exitCode).toBe(2);
    expect(noKey.stderr).toContain("--sign needs --key <file>");
    const keyOnly = await push("--key", "cosign.key");
    expect(keyOnly.exitCode).toBe(2);
    expect(keyOnly.stderr).toContain("--key is for --sign");
    const layout = await push("--sign", "--key", "cosign.key", "--oci-layout", "out");
    expect(layout.exitCode).toBe(2);
    expect(layout.stderr).toContain("it cannot sign an OCI layout");
  });
});
