// How much of a file tree tsop reads before refusing it: a bundle directory (bundle/load/tree.ts)
// and an image's layers (oci/extract.ts) are bounded alike, each with its own defaults.

export interface TreeLimits {
  /** Entries: in one directory of a bundle tree; over all of an image's layers. */
  maxEntries: number;
  maxFileBytes: number;
  /** Bytes read over the whole bundle; decompressed bytes over all layers. */
  maxTotalBytes: number;
}
