// The in-toto statement tsop signs for an image it built: SLSA provenance v1
// (https://slsa.dev/provenance/v1). buildDefinition says how (a build type of tsop's own per command,
// the command's inputs as externalParameters, what it read by digest as resolvedDependencies);
// runDetails names the builder (tsop, its version). No timestamps unless SOURCE_DATE_EPOCH is set,
// so the statement of the same build is the same bytes (its DSSE signature is not: ECDSA is randomised).
import { sha256Digest } from "../digest.js";
import type { ImageReference } from "../reference.js";
import { dockerReference } from "../sign/payload.js";

export const IN_TOTO_STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
export const SLSA_PROVENANCE_V1 = "https://slsa.dev/provenance/v1";
/** tsop names itself by its package URL: the project has no web home of its own to mint URIs under. */
export const TSOP_BUILDER_ID = "pkg:npm/tsop";

/** The build types, one per command that builds an image; the version changes when the parameters' meaning does. */
export const BUILD_TYPES = {
  imageBuild: `${TSOP_BUILDER_ID}#build-types/image-build/v1`,
  bundlePush: `${TSOP_BUILDER_ID}#build-types/bundle-push/v1`,
  catalogImage: `${TSOP_BUILDER_ID}#build-types/catalog-image/v1`,
} as const;

export type BuildCommand = keyof typeof BUILD_TYPES;

/** An SLSA ResourceDescriptor: a file or image the build read, by digest. */
export interface ResourceDescriptor {
  name: string;
  uri?: string;
  digest: Record<string, string>;
}

/** What a command tells about one build: its type, its inputs, what it read. */
export interface BuildDescription {
  buildType: string;
  externalParameters: Record<string, unknown>;
  resolvedDependencies: ResourceDescriptor[];
}

export interface ProvenanceInput {
  /** The built image (its repository names the subject). */
  image: ImageReference;
  /** Its manifest digest (an index's for a multi-platform image), sha256:<hex>. */
  digest: string;
  build: BuildDescription;
  builder: { version: string };
  /** SOURCE_DATE_EPOCH (seconds): runDetails.metadata.finishedOn. */
  epoch?: number;
}

/** `sha256:<hex>` → an in-toto DigestSet. */
export function digestSet(digest: string): Record<string, string> {
  const [algorithm, hex] = digest.split(":") as [string, string];
  return { [algorithm]: hex };
}

/** A file or image by `sha256:<hex>` as a ResourceDescriptor. */
export function resource(name: string, digest: string, uri?: string): ResourceDescriptor {
  return { name, ...(uri ? { uri } : {}), digest: digestSet(digest) };
}

/** The statement as bytes (compact JSON, keys in a fixed order). */
export function provenanceStatement(input: ProvenanceInput): Buffer {
  const statement = {
    _type: IN_TOTO_STATEMENT_TYPE,
    subject: [{ name: dockerReference(input.image), digest: digestSet(input.digest) }],
    predicateType: SLSA_PROVENANCE_V1,
    predicate: {
      buildDefinition: {
        buildType: input.build.buildType,
        externalParameters: input.build.externalParameters,
        resolvedDependencies: input.build.resolvedDependencies,
      },
      runDetails: {
        builder: { id: TSOP_BUILDER_ID, version: { tsop: input.builder.version } },
        metadata: {
          // The same build (inputs and result) gets the same invocation id.
          invocationId: sha256Digest(Buffer.from(JSON.stringify([input.digest, input.build]))).replace(
            "sha256:",
            "urn:sha256:",
          ),
          ...(input.epoch !== undefined ? { finishedOn: new Date(input.epoch * 1000).toISOString() } : {}),
        },
      },
    },
  };
  return Buffer.from(JSON.stringify(statement));
}
