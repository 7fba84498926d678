// relatedImages naming and deduplication cases (the operator-sdk table, with tsop's deterministic
// choices): one builder (src/oci/related-images.ts) lists every image of the CSV, sorted by
// name; `tsop bundle` uses it always and --use-image-digests rebuilds the list with it.
import { describe, expect, test } from "vitest";
import { relatedImagesOf } from "../../src/oci/related-images.js";

type Env = Array<{ name: string; value?: string; valueFrom?: unknown }>;
const deployment = (name: string, containers: Array<[string, Env]>, init: Array<[string, Env]> = []) => ({
  name,
  spec: {
    template: {
      spec: {
        containers: containers.map(([n, env]) => ({ name: n, image: `example.com/${n}:1`, env })),
        initContainers: init.map(([n, env]) => ({ name: n, image: `example.com/${n}:1`, env })),
      },
    },
  },
});
const csvOf = (deployments: Record<string, unknown>[], relatedImages?: unknown[]) => ({
  apiVersion: "operators.coreos.com/v1alpha1",
  kind: "ClusterServiceVersion",
  metadata: { name: "demo.v0.1.0" },
  spec: {
    install: { strategy: "deployment", spec: { deployments } },
    ...(relatedImages ? { relatedImages } : {}),
  },
});
const e = (name: string, value: string) => ({ name: `RELATED_IMAGE_${name}`, value });
const img = (name: string, image = `example.com/${name}:1`) => ({ name, image });

describe("relatedImages", () => {
  const cases: Array<{
    name: string;
    deployments: Record<string, unknown>[];
    base?: unknown[];
    want: Array<{ name: string; image: string }>;
    notes?: number;
  }> = [
    {
      name: "no env vars: the container image",
      deployments: [deployment("d", [["c", []]])],
      want: [img("c")],
    },
    {
      name: "one image",
      deployments: [deployment("d", [["c", [e("FOO", "i/foo:1")]]])],
      want: [img("c"), { name: "foo", image: "i/foo:1" }],
    },
    {
      name: "lower case, underscores to dashes, other variables ignored",
      deployments: [deployment("d", [["c", [e("MY_DB_IMAGE", "i/db:1"), { name: "OTHER", value: "x" }]]])],
      want: [img("c"), { name: "my-db-image", image: "i/db:1" }],
    },
    {
      name: "same name and image in two deployments is listed once",
      deployments: [
        deployment("a", [["c", [e("FOO", "i/foo:1")]]]),
        deployment("b", [["c", [e("FOO", "i/foo:1")]]]),
      ],
      want: [img("c"), { name: "foo", image: "i/foo:1" }],
    },
    {
      name: "one name for two images: prefixed with the deployment",
      deployments: [
        deployment("a", [["c", [e("FOO", "i/foo:1")]]]),
        deployment("b", [["c", [e("FOO", "i/foo:2")]]]),
      ],
      want: [{ name: "a-foo", image: "i/foo:1" }, { name: "b-foo", image: "i/foo:2" }, img("c")],
    },
    {
      name: "several containers: prefixed with deployment-container",
      deployments: [
        deployment("a", [
          ["x", [e("FOO", "i/foo:1")]],
          ["y", [e("FOO", "i/foo:2")]],
        ]),
      ],
      want: [
        { name: "a-x-foo", image: "i/foo:1" },
        { name: "a-y-foo", image: "i/foo:2" },
        img("x"),
        img("y"),
      ],
    },
    {
      name: "init containers count too",
      deployments: [deployment("a", [["x", []]], [["init", [e("MIGRATE", "i/migrate:1")]]])],
      want: [img("init"), { name: "migrate", image: "i/migrate:1" }, img("x")],
    },
    {
      name: "one image under two names: listed once under the first name, with a note",
      deployments: [deployment("a", [["c", [e("FOO", "i/foo:1"), e("BAR", "i/foo:1")]]])],
      want: [img("c"), { name: "foo", image: "i/foo:1" }],
      notes: 1,
    },
    {
      name: "an image used by a container and a RELATED_IMAGE_ variable takes the variable's name",
      deployments: [deployment("a", [["c", [e("SELF", "example.com/c:1")]]])],
      want: [{ name: "self", image: "example.com/c:1" }],
    },
    {
      name: "the base's entries keep their names; an image is listed once",
      deployments: [deployment("a", [["c", [e("FOO", "i/foo:1")]]])],
      base: [
        { name: "my-foo", image: "i/foo:1" },
        { name: "extra", image: "i/extra:2" },
      ],
      want: [img("c"), { name: "extra", image: "i/extra:2" }, { name: "my-foo", image: "i/foo:1" }],
      notes: 1,
    },
    {
      name: "sorted by name, whatever the discovery order",
      deployments: [deployment("a", [["c", [e("ZED", "i/z:1"), e("ALPHA", "i/a:1")]]])],
      want: [{ name: "alpha", image: "i/a:1" }, img("c"), { name: "zed", image: "i/z:1" }],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const result = relatedImagesOf(csvOf(c.deployments, c.base));
      expect(result.relatedImages).toEqual(c.want);
      expect(result.notes).toHaveLength(c.notes ?? 0);
      expect(result.problems).toEqual([]);
    });
  }

  test("an empty variable and valueFrom are problems, not entries", () => {
    const d = deployment("a", [
      ["c", [{ name: "RELATED_IMAGE_FOO", valueFrom: { fieldRef: {} } }, e("BAR", "")]],
    ]);
    const result = relatedImagesOf(csvOf([d]));
    expect(result.relatedImages).toEqual([img("c")]);
    expect(result.problems.map((p) => `${p.kind} ${p.where}`)).toEqual([
      "valueFrom ClusterServiceVersion demo.v0.1.0, deployment a, container c, env RELATED_IMAGE_FOO",
      "noValue ClusterServiceVersion demo.v0.1.0, deployment a, container c, env RELATED_IMAGE_BAR",
    ]);
  });
});
