// A corpus of upgrade graphs as rendered FBC, each with the check ids `tsop catalog validate` must
// report (none for the sound ones). Bundles carry their CSV as an olm.bundle.object property, as
// `opm render` writes it, so the install-mode and minKubeVersion checks see it.
import { stringify } from "yaml";

type Entry = { name: string; replaces?: string; skips?: string[]; skipRange?: string };

export interface BundleOpts {
  installModes?: string[];
  minKubeVersion?: string;
  gvks?: string[];
  required?: string[];
  version?: string;
  /** CRDs the bundle ships (olm.bundle.object), for the schema-safety checks CAT-16…18. */
  crds?: object[];
}

const PKG = "widget";
const name = (v: string) => `${PKG}.v${v}`;

function gvk(text: string) {
  const [group, version, kind] = text.split("/");
  return { group, version, kind };
}

export function bundle(v: string, opts: BundleOpts = {}) {
  const modes = opts.installModes ?? ["AllNamespaces", "OwnNamespace"];
  const csv = {
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "ClusterServiceVersion",
    metadata: { name: name(v) },
    spec: {
      version: opts.version ?? v,
      installModes: ["AllNamespaces", "MultiNamespace", "OwnNamespace", "SingleNamespace"].map((type) => ({
        type,
        supported: modes.includes(type),
      })),
      ...(opts.minKubeVersion ? { minKubeVersion: opts.minKubeVersion } : {}),
    },
  };
  return {
    schema: "olm.bundle",
    name: name(v),
    package: PKG,
    image: `registry.example.com/widget-bundle:v${v}`,
    properties: [
      { type: "olm.package", value: { packageName: PKG, version: opts.version ?? v } },
      ...(opts.gvks ?? ["example.com/v1/Widget"]).map((g) => ({ type: "olm.gvk", value: gvk(g) })),
      ...(opts.required ?? []).map((g) => ({ type: "olm.gvk.required", value: gvk(g) })),
      ...[csv, ...(opts.crds ?? [])].map((o) => ({
        type: "olm.bundle.object",
        value: { data: Buffer.from(JSON.stringify(o)).toString("base64") },
      })),
    ],
  };
}

export function fbc(options: {
  defaultChannel?: string | null;
  channels: Record<string, Entry[]>;
  bundles: Array<ReturnType<typeof bundle>>;
}): string {
  const blobs = [
    {
      schema: "olm.package",
      name: PKG,
      ...(options.defaultChannel === null
        ? {}
        : { defaultChannel: options.defaultChannel ?? Object.keys(options.channels)[0] }),
    },
    ...Object.entries(options.channels).map(([channel, entries]) => ({
      schema: "olm.channel",
      package: PKG,
      name: channel,
      entries,
    })),
    ...options.bundles,
  ];
  return blobs.map((b) => `---\n${stringify(b)}`).join("");
}

const e = (v: string, edges: Omit<Entry, "name"> = {}): Entry => ({ name: name(v), ...edges });
const r = (v: string) => ({ replaces: name(v) });
const three = [bundle("0.1.0"), bundle("0.2.0"), bundle("0.3.0")];

interface CrdVersionOpts {
  name: string;
  served?: boolean;
  storage?: boolean;
  spec: Record<string, unknown>;
  required?: string[];
}

/** The Widget CRD with the given versions, each with its spec schema. */
export function widgetCrd(versions: CrdVersionOpts[], conversion?: string) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      names: { kind: "Widget", plural: "widgets" },
      scope: "Namespaced",
      ...(conversion ? { conversion: { strategy: conversion } } : {}),
      versions: versions.map((v) => ({
        name: v.name,
        served: v.served ?? true,
        storage: v.storage ?? true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: { type: "object", properties: v.spec, ...(v.required ? { required: v.required } : {}) },
              status: { type: "object", properties: { ready: { type: "boolean" } } },
            },
          },
        },
      })),
    },
  };
}

const SIZE = { size: { type: "integer", maximum: 10 }, mode: { type: "string", enum: ["fast", "safe"] } };
const v1 = (spec: Record<string, unknown> = SIZE, more: Partial<CrdVersionOpts> = {}) => ({
  name: "v1",
  spec,
  ...more,
});
/** 0.1.0 → 0.2.0 on one channel, with the CRDs given. */
const crdEdge = (before: object, after: object) =>
  fbc({
    channels: { stable: [e("0.1.0"), e("0.2.0", r("0.1.0"))] },
    bundles: [bundle("0.1.0", { crds: [before] }), bundle("0.2.0", { crds: [after] })],
  });

export interface CorpusCase {
  label: string;
  catalog: string;
  /** Ids reported (sorted, each once); [] for a sound graph. */
  ids: string[];
  /** Every error/warning names these entries somewhere. */
  names?: string[];
}

export const CORPUS: CorpusCase[] = [
  {
    label: "sound: a replaces chain",
    catalog: fbc({
      channels: { stable: [e("0.1.0"), e("0.2.0", r("0.1.0")), e("0.3.0", r("0.2.0"))] },
      bundles: three,
    }),
    ids: [],
  },
  {
    label: "sound: skips and skipRange next to replaces (two channels)",
    catalog: fbc({
      defaultChannel: "stable",
      channels: {
        fast: [e("0.3.0")],
        stable: [
          e("0.1.0"),
          e("0.2.0", r("0.1.0")),
          e("0.3.0", { ...r("0.2.0"), skips: [name("0.1.0")], skipRange: ">=0.1.0 <0.3.0" }),
        ],
      },
      bundles: three,
    }),
    ids: [],
  },
  {
    label: "sound: the oldest entry replaces a pruned version",
    catalog: fbc({ channels: { stable: [e("0.2.0"), e("0.3.0", r("0.2.0"))] }, bundles: three.slice(1) }),
    ids: [],
  },
  {
    label: "default channel names no channel",
    catalog: fbc({ defaultChannel: "beta", channels: { stable: [e("0.1.0")] }, bundles: [bundle("0.1.0")] }),
    ids: ["CAT-01"],
    names: ["beta"],
  },
  {
    label: "no default channel",
    catalog: fbc({ defaultChannel: null, channels: { stable: [e("0.1.0")] }, bundles: [bundle("0.1.0")] }),
    ids: ["CAT-01"],
  },
  {
    label: "two heads",
    catalog: fbc({
      channels: { stable: [e("0.1.0"), e("0.2.0", r("0.1.0")), e("0.3.0", r("0.1.0"))] },
      bundles: three,
    }),
    ids: ["CAT-02"],
    names: [name("0.2.0"), name("0.3.0")],
  },
  {
    label: "an entry without its bundle, and a bundle in no channel",
    catalog: fbc({
      channels: { stable: [e("0.1.0"), e("0.2.0", r("0.1.0"))] },
      bundles: [bundle("0.1.0"), bundle("0.3.0")],
    }),
    ids: ["CAT-03"],
    names: [name("0.2.0"), name("0.3.0")],
  },
  {
    label: "skips a bundle never in the channel, and a skipRange covering nothing",
    catalog: fbc({
      channels: {
        stable: [
          e("0.2.0"),
          e("0.3.0", { ...r("0.2.0"), skips: [name("0.0.9")], skipRange: ">=0.0.1 <0.1.0" }),
        ],
      },
      bundles: three.slice(1),
    }),
    ids: ["CAT-04"],
    names: [name("0.0.9"), ">=0.0.1 <0.1.0"],
  },
  {
    label:
      "stranded: the head skips 0.2.0 but replaces nothing, so 0.1.0 is off the chain (operator-registry #1744)",
    catalog: fbc({
      channels: { stable: [e("0.1.0"), e("0.2.0", r("0.1.0")), e("0.3.0", { skips: [name("0.2.0")] })] },
      bundles: three,
    }),
    ids: ["CAT-05"],
    names: [name("0.1.0"), name("0.3.0")],
  },
  {
    label: "a skipRange OLM cannot parse",
    catalog: fbc({
      channels: { stable: [e("0.2.0"), e("0.3.0", { ...r("0.2.0"), skipRange: "^0.2.0" })] },
      bundles: three.slice(1),
    }),
    ids: ["CAT-06"],
    names: ["^0.2.0"],
  },
  {
    label: "a downgrade: 0.2.0 replaces 0.3.0",
    catalog: fbc({
      channels: { stable: [e("0.1.0"), e("0.3.0", r("0.1.0")), e("0.2.0", r("0.3.0"))] },
      bundles: three,
    }),
    ids: ["CAT-07"],
    names: [name("0.2.0"), name("0.3.0")],
  },
  {
    label: "a skipRange reaching past its own version",
    catalog: fbc({
      channels: {
        stable: [e("0.1.0"), e("0.2.0", { ...r("0.1.0"), skipRange: "<0.4.0" }), e("0.3.0", r("0.2.0"))],
      },
      bundles: three,
    }),
    ids: ["CAT-07"],
    names: [name("0.2.0"), name("0.3.0")],
  },
  {
    label: "a replaces cycle below the head",
    catalog: fbc({
      channels: { stable: [e("0.1.0", r("0.2.0")), e("0.2.0", r("0.1.0")), e("0.3.0", r("0.2.0"))] },
      bundles: three,
    }),
    ids: ["CAT-07", "CAT-08"],
    names: [name("0.1.0"), name("0.2.0")],
  },
  {
    label: "the new head drops the OwnNamespace install mode",
    catalog: fbc({
      channels: { stable: [e("0.1.0"), e("0.2.0", r("0.1.0"))] },
      bundles: [bundle("0.1.0"), bundle("0.2.0", { installModes: ["AllNamespaces"] })],
    }),
    ids: ["CAT-09"],
    names: ["OwnNamespace", name("0.1.0"), name("0.2.0")],
  },
  {
    label: "the new head stops serving example.com/v1 Widget",
    catalog: fbc({
      channels: { stable: [e("0.1.0"), e("0.2.0", r("0.1.0"))] },
      bundles: [bundle("0.1.0"), bundle("0.2.0", { gvks: ["example.com/v2/Widget"] })],
    }),
    ids: ["CAT-10"],
    names: ["example.com/v1, Kind=Widget"],
  },
  {
    label: "the new head requires an API the old one did not",
    catalog: fbc({
      channels: { stable: [e("0.1.0"), e("0.2.0", r("0.1.0"))] },
      bundles: [bundle("0.1.0"), bundle("0.2.0", { required: ["cache.example.com/v1/Memcached"] })],
    }),
    ids: ["CAT-11"],
    names: ["cache.example.com/v1, Kind=Memcached"],
  },
  {
    label: "minKubeVersion rises, and one does not parse",
    catalog: fbc({
      channels: { stable: [e("0.1.0"), e("0.2.0", r("0.1.0")), e("0.3.0", r("0.2.0"))] },
      bundles: [
        bundle("0.1.0", { minKubeVersion: "1.25.0" }),
        bundle("0.2.0", { minKubeVersion: "1.30.0" }),
        bundle("0.3.0", { minKubeVersion: "one-thirty" }),
      ],
    }),
    ids: ["CAT-12"],
    names: ["1.30.0", "one-thirty"],
  },
  {
    label: "a bundle version that is not semver",
    catalog: fbc({
      channels: { stable: [e("0.1.0"), e("0.2.0", r("0.1.0"))] },
      bundles: [bundle("0.1.0"), bundle("0.2.0", { version: "2" })],
    }),
    ids: ["CAT-13"],
    names: [name("0.2.0")],
  },
  {
    label: "a bundle listed twice in a channel",
    catalog: fbc({
      channels: { stable: [e("0.1.0"), e("0.2.0", r("0.1.0")), e("0.2.0", r("0.1.0"))] },
      bundles: three.slice(0, 2),
    }),
    ids: ["CAT-14"],
    names: [name("0.2.0")],
  },
  {
    label: "sound CRD change: a field added, a maximum raised, an enum widened, a version added",
    catalog: crdEdge(
      widgetCrd([v1()]),
      widgetCrd([
        { name: "v1alpha1", served: true, storage: false, spec: SIZE },
        v1({
          ...SIZE,
          size: { type: "integer", maximum: 20 },
          mode: { type: "string", enum: ["fast", "safe", "slow"] },
          color: { type: "string" },
        }),
      ]),
    ),
    ids: [],
  },
  {
    label: "CRD field removed: 0.2.0 drops spec.size",
    catalog: crdEdge(widgetCrd([v1()]), widgetCrd([v1({ mode: SIZE.mode })])),
    ids: ["CAT-16"],
    names: [".spec.size", "widgets.example.com v1", name("0.2.0"), name("0.1.0")],
  },
  {
    label: "CRD validation tightened: a new required field, a narrowed enum, a lower maximum",
    catalog: crdEdge(
      widgetCrd([v1()]),
      widgetCrd([
        v1(
          { size: { type: "integer", maximum: 5 }, mode: { type: "string", enum: ["safe"] } },
          { required: ["mode"] },
        ),
      ]),
    ),
    ids: ["CAT-17"],
    names: ["new required field(s) mode", '"fast" no longer allowed', "maximum 10 → 5", ".spec.size"],
  },
  {
    label: "CRD served version dropped without a conversion webhook",
    catalog: crdEdge(
      widgetCrd([{ name: "v1alpha1", storage: false, spec: SIZE }, v1()]),
      widgetCrd([{ name: "v1alpha1", served: false, storage: false, spec: SIZE }, v1()]),
    ),
    ids: ["CAT-18"],
    names: ["stops serving widgets.example.com version v1alpha1", "conversion webhook"],
  },
  {
    label: "CRD served version dropped with a conversion webhook: no finding",
    catalog: crdEdge(
      widgetCrd([{ name: "v1alpha1", storage: false, spec: SIZE }, v1()], "Webhook"),
      widgetCrd([{ name: "v1alpha1", served: false, storage: false, spec: SIZE }, v1()], "Webhook"),
    ),
    ids: [],
  },
  {
    label: "CRD storage version moved to one that lacks a field, without a conversion webhook",
    catalog: crdEdge(
      widgetCrd([v1(), { name: "v2", storage: false, spec: { mode: SIZE.mode } }]),
      widgetCrd([v1(SIZE, { storage: false }), { name: "v2", storage: true, spec: { mode: SIZE.mode } }]),
    ),
    ids: ["CAT-18"],
    names: ["from v1 to v2", ".spec.size"],
  },
];

export interface PreviousCase {
  label: string;
  previous: string;
  catalog: string;
  ids: string[];
  names?: string[];
}

const released = fbc({
  channels: { stable: [e("0.1.0"), e("0.2.0", r("0.1.0"))] },
  bundles: three.slice(0, 2),
});
const withoutTwo = (head: Entry) =>
  fbc({ channels: { stable: [e("0.1.0"), head] }, bundles: [three[0]!, three[2]!] });

/** `validate --previous`: the catalog users have today against the new one (CAT-15). */
export const PREVIOUS: PreviousCase[] = [
  {
    label: "0.2.0 dropped and nothing upgrades from it: its users are stranded",
    previous: released,
    catalog: withoutTwo(e("0.3.0", r("0.1.0"))),
    ids: ["CAT-15"],
    names: [name("0.2.0"), "skips"],
  },
  {
    label: "0.2.0 dropped, the head skips it: fine (the skip to a pruned bundle is only a warning)",
    previous: released,
    catalog: withoutTwo(e("0.3.0", { ...r("0.1.0"), skips: [name("0.2.0")] })),
    ids: ["CAT-04"],
  },
  {
    label: "0.2.0 dropped, the head's skipRange covers its version: fine",
    previous: released,
    catalog: withoutTwo(e("0.3.0", { ...r("0.1.0"), skipRange: ">=0.1.0 <0.3.0" })),
    ids: [],
  },
  {
    label: "a whole channel dropped",
    previous: fbc({
      defaultChannel: "stable",
      channels: { fast: [e("0.2.0")], stable: [e("0.1.0"), e("0.2.0", r("0.1.0"))] },
      bundles: three.slice(0, 2),
    }),
    catalog: released,
    ids: ["CAT-15"],
    names: ["channel fast is gone"],
  },
];
