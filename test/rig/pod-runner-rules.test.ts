// The pod runner's decisions that need no cluster: which pods it takes (kwok's selector is the same
// rule in jq, exercised on the real bed), how pod and probe ports map to local ports in command
// lines, and who a container runs as (kubelet's runAsNonRoot messages). The real behaviour is
// test/rig/pod-runner.real.test.ts.
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/objects.js";
import { type ImageConfig, runsOnRunner } from "../support/rig/images.js";
import { PodPorts } from "../support/rig/ports.js";
import { runAs } from "../support/rig/security.js";

describe("which pods the runner takes", () => {
  const cases: Array<[string[], boolean]> = [
    [["127.0.0.1:5000/op@sha256:abc"], true],
    [["localhost:5000/op:1"], true],
    [["quay.io/operator-framework/olm:v0.28.0"], true],
    [["quay.io/operator-framework/opm@sha256:abc", "docker.io/library/busybox"], true],
    [["docker.io/library/busybox:1.36"], false],
    [["registry.example.com/memcached-operator:v0.0.1"], false],
    [["127.0.0.2:5000/op:1"], false],
  ];
  it.each(cases)("%j → %s", (images, expected) => {
    expect(runsOnRunner(images)).toBe(expected);
  });
  // The bed's mirror (rig/mirror.ts): a mirrored name runs (pulled through the mirror), and only it.
  const mirrored = ["docker.io/nginxinc/nginx-unprivileged"];
  const mirrorCases: Array<[string[], boolean]> = [
    [["docker.io/nginxinc/nginx-unprivileged@sha256:abc"], true],
    [["docker.io/nginxinc/nginx-unprivileged:1.27-alpine"], true],
    [["docker.io/nginxinc/nginx-unprivileged-other:1"], false],
    [["docker.io/library/busybox:1.36"], false],
  ];
  it.each(mirrorCases)("with the bed's mirror: %j → %s", (images, expected) => {
    expect(runsOnRunner(images, mirrored)).toBe(expected);
    expect(runsOnRunner(images)).toBe(false);
  });
});

describe("pod ports", () => {
  it("rewrites arguments that end in a pod or probe port; ports no command names keep their number", async () => {
    let next = 40000;
    const ports = await PodPorts.allocate(
      [
        {
          name: "manager",
          image: "x",
          ports: [{ containerPort: 8080, name: "metrics" }, { containerPort: 9443 }],
          readinessProbe: { httpGet: { path: "/readyz", port: 8081 } },
          livenessProbe: { httpGet: { path: "/healthz", port: "metrics" } },
        },
      ],
      async () => next++,
    );
    const argv = [
      "node",
      "--metrics-bind-address=:8080",
      "--health-probe-bind-address=0.0.0.0:8081",
      "--other=8081x",
      "8080",
      "--timeout=30",
    ];
    ports.keepHardCoded([argv]);
    expect(ports.rewrite(argv)).toEqual([
      "node",
      "--metrics-bind-address=:40000",
      "--health-probe-bind-address=0.0.0.0:40002",
      "--other=8081x",
      "40000",
      "--timeout=30",
    ]);
    expect(ports.hostPort("metrics")).toBe(40000);
    expect(ports.hostPort(8081)).toBe(40002);
    // 9443 appears in no command line: the program binds it itself.
    expect(ports.hostPort(9443)).toBe(9443);
  });
});

describe("who a container runs as", () => {
  let rootfs: string;
  beforeAll(async () => {
    rootfs = await mkdtemp(join(tmpdir(), "tsop-runas-"));
    await mkdir(join(rootfs, "etc"));
    await writeFile(
      join(rootfs, "etc/passwd"),
      "root:x:0:0::/root:/bin/sh\nnonroot:x:65532:65533::/home:/bin/sh\n",
    );
  });
  afterAll(() => rm(rootfs, { recursive: true, force: true }));

  const image = (user: string, mapped = false): ImageConfig => ({
    rootfs,
    entrypoint: [],
    cmd: [],
    env: [],
    workingDir: "/",
    user,
    imageID: "",
    mapped,
  });
  const pod = (securityContext: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "ns", uid: "u1" },
    spec: { securityContext },
  });
  const c = (securityContext: Record<string, unknown> = {}) => ({
    name: "main",
    image: "x",
    securityContext,
  });

  it("takes the container's, then the pod's, then the image's user", () => {
    expect(runAs(pod(), c(), image("65532:65532"))).toMatchObject({ uid: 65532, gid: 65532 });
    expect(runAs(pod({ runAsUser: 1001 }), c(), image("65532:65532"))).toMatchObject({
      uid: 1001,
      gid: 65532,
    });
    expect(runAs(pod({ runAsUser: 1001 }), c({ runAsUser: 7, runAsGroup: 8 }), image(""))).toMatchObject({
      uid: 7,
      gid: 8,
    });
    expect(runAs(pod(), c(), image("nonroot"))).toMatchObject({ uid: 65532, gid: 65533 });
    expect(runAs(pod(), c({ readOnlyRootFilesystem: true }), image(""))).toEqual({
      uid: 0,
      gid: 0,
      readOnlyRootFilesystem: true,
    });
  });

  it("refuses runAsNonRoot with root or an unverifiable user, in kubelet's words", () => {
    const who = '(pod: "p_ns(u1)", container: main)';
    expect(() => runAs(pod({ runAsNonRoot: true }), c(), image(""))).toThrow(
      `container has runAsNonRoot and image will run as root ${who}`,
    );
    expect(() => runAs(pod(), c({ runAsNonRoot: true, runAsUser: 0 }), image("65532"))).toThrow(
      `container's runAsUser breaks non-root policy ${who}`,
    );
    expect(() => runAs(pod({ runAsNonRoot: true }), c(), image("nonroot"))).toThrow(
      `container has runAsNonRoot and image has non-numeric user (nonroot), cannot verify user is non-root ${who}`,
    );
    expect(runAs(pod({ runAsNonRoot: true, runAsUser: 1001 }), c(), image(""))).toMatchObject({ uid: 1001 });
  });

  it("runs the mapped OLM/opm stand-ins as root whatever the pod says", () => {
    expect(runAs(pod({ runAsNonRoot: true, runAsUser: 1001 }), c(), image("", true))).toEqual({
      uid: 0,
      gid: 0,
      readOnlyRootFilesystem: false,
    });
  });
});
