// relatedImages naming and deduplication cases (the operator-sdk table, with tsop's deterministic
// choice for an image listed under two names: keep the first name instead of an empty one).
import { describe, expect, test } from "vitest";
import { relatedImages } from "../../src/bundle/related-images.js";

type Env = Array<{ name: string; value?: string; valueFrom?: unknown }>;
const deployment = (name: string, containers: Array<[string, Env]>, init: Array<[string, Env]> = []) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: {
    template: {
      spec: {
        containers: containers.map(([n, env]) => ({ name: n, image: `example.com/${n}:1`, env })),
        initContainers: init.map(([n, env]) => ({ name: n, image: `example.com/${n}:1`, env })),
      },
    },
  },
});
const e = (name: string, value: string) => ({ name: `RELATED_IMAGE_${name}`, value });

describe("relatedImages", () => {
  const cases: Array<{
    name: string;
    deployments: Record<string, unknown>[];
    want: Array<{ name: string; image: string }>;
    notes?: number;
  }> = [
    { name: "no env vars", deployments: [deployment("d", [["c", []]])], want: [] },
    {
      name: "one image",
      deployments: [deployment("d", [["c", [e("FOO", "i/foo:1")]]])],
      want: [{ name: "foo", image: "i/foo:1" }],
    },
    {
      name: "lower case, underscores to dashes, other variables ignored",
      deployments: [deployment("d", [["c", [e("MY_DB_IMAGE", "i/db:1"), { name: "OTHER", value: "x" }]]])],
      want: [{ name: "my-db-image", image: "i/db:1" }],
    },
    {
      name: "same name and image in two deployments is listed once",
      deployments: [
        deployment("a", [["c", [e("FOO", "i/foo:1")]]]),
        deployment("b", [["c", [e("FOO", "i/foo:1")]]]),
      ],
      want: [{ name: "foo", image: "i/foo:1" }],
    },
    {
      name: "one name for two images: prefixed with the deployment",
      deployments: [
        deployment("a", [["c", [e("FOO", "i/foo:1")]]]),
        deployment("b", [["c", [e("FOO", "i/foo:2")]]]),
      ],
      want: [
        { name: "a-foo", image: "i/foo:1" },
        { name: "b-foo", image: "i/foo:2" },
      ],
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
      ],
    },
    {
      name: "init containers count too",
      deployments: [deployment("a", [["x", []]], [["init", [e("MIGRATE", "i/migrate:1")]]])],
      want: [{ name: "migrate", image: "i/migrate:1" }],
    },
    {
      name: "one image under two names: listed once under the first name, with a note",
      deployments: [deployment("a", [["c", [e("FOO", "i/foo:1"), e("BAR", "i/foo:1")]]])],
      want: [{ name: "foo", image: "i/foo:1" }],
      notes: 1,
    },
    {
      name: "empty value is skipped with a note",
      deployments: [deployment("a", [["c", [e("FOO", "")]]])],
      want: [],
      notes: 1,
    },
    {
      name: "discovery order is kept (deterministic)",
      deployments: [deployment("a", [["c", [e("ZED", "i/z:1"), e("ALPHA", "i/a:1")]]])],
      want: [
        { name: "zed", image: "i/z:1" },
        { name: "alpha", image: "i/a:1" },
      ],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const notes: string[] = [];
      expect(relatedImages(c.deployments, notes)).toEqual(c.want);
      expect(notes).toHaveLength(c.notes ?? 0);
    });
  }

  test("valueFrom is refused", () => {
    const d = deployment("a", [["c", [{ name: "RELATED_IMAGE_FOO", valueFrom: { fieldRef: {} } }]]]);
    expect(() => relatedImages([d], [])).toThrow(
      "Deployment a, container c: RELATED_IMAGE_FOO uses valueFrom",
    );
  });
});
