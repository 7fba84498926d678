// Splits a watch answer into its events, as bytes: a JSON watch sends one event per line, a
// protobuf watch (what Go clients such as kube-controller-manager, OLM and catalogd ask for)
// sends frames of a 4-byte big-endian length and that many bytes. The fault gate holds and delays
// whole events, so the proxy must cut at their edges and never decode the bytes.

export interface FrameSplitter {
  /** The complete events this chunk finishes, in order. */
  push(chunk: Buffer): Buffer[];
  /** What is left when the stream ends (an incomplete event, passed on as it came). */
  rest(): Buffer | undefined;
}

export function watchFrameSplitter(contentType: string | undefined): FrameSplitter {
  const protobuf = /^application\/vnd\.kubernetes\.protobuf/i.test(contentType ?? "");
  let pending: Buffer = Buffer.alloc(0);
  const cut = (): Buffer[] => {
    const events: Buffer[] = [];
    for (;;) {
      const end = protobuf ? frameEnd(pending) : pending.indexOf(0x0a) + 1;
      if (end <= 0) return events;
      events.push(pending.subarray(0, end));
      pending = pending.subarray(end);
    }
  };
  return {
    push(chunk) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      return cut();
    },
    rest() {
      const left = pending.length > 0 ? pending : undefined;
      pending = Buffer.alloc(0);
      return left;
    },
  };
}

/** The length of the first whole protobuf frame in `data`, or 0 when it is not all there yet. */
function frameEnd(data: Buffer): number {
  if (data.length < 4) return 0;
  const end = 4 + data.readUInt32BE(0);
  return data.length >= end ? end : 0;
}
