// The fault proxy cuts watch answers at their events without decoding them: JSON lines, and the
// length-prefixed frames of protobuf watches (Go clients). A frame's bytes need not hold a newline
// and need not be UTF-8: both must come through whole and unchanged, however the chunks fall.
import { describe, expect, it } from "vitest";
import { watchFrameSplitter } from "../../src/testing/real/watch-frames.js";

function frame(payload: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(payload.length);
  return Buffer.concat([length, payload]);
}

/** Feeds `data` in chunks of `size` bytes and collects what comes out. */
function split(contentType: string, data: Buffer, size: number): Buffer[] {
  const splitter = watchFrameSplitter(contentType);
  const out: Buffer[] = [];
  for (let i = 0; i < data.length; i += size) out.push(...splitter.push(data.subarray(i, i + size)));
  const rest = splitter.rest();
  if (rest) out.push(rest);
  return out;
}

describe("watch frames", () => {
  const binary = [
    Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xfe, 0x80]),
    Buffer.from([0x01, 0x02]),
    Buffer.alloc(300, 0xc3),
  ];
  const frames = binary.map(frame);

  it("protobuf: each length-prefixed frame whole and byte for byte, whatever the chunking", () => {
    for (const size of [1, 3, 7, 64, 1000]) {
      expect(split("application/vnd.kubernetes.protobuf;stream=watch", Buffer.concat(frames), size)).toEqual(
        frames,
      );
    }
  });

  it("JSON: one event per line, an unfinished last line passed on at the end", () => {
    const text = '{"type":"ADDED"}\n{"type":"BOOKMARK"}\n{"type":"MOD';
    const out = split("application/json", Buffer.from(text), 5).map((b) => b.toString());
    expect(out).toEqual(['{"type":"ADDED"}\n', '{"type":"BOOKMARK"}\n', '{"type":"MOD']);
  });
});
