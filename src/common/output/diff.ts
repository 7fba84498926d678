// A small unified diff (Myers' O(ND) algorithm) for `tsop generate --check` and every --dry-run.

type Op = { kind: " " | "-" | "+"; line: string };

function diffLines(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Map<number, number>([[1, 0]]);
  const trace: Map<number, number>[] = [];
  outer: for (let d = 0; d <= max; d++) {
    trace.push(new Map(v));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v.get(k - 1) ?? -1) < (v.get(k + 1) ?? -1));
      let x = down ? (v.get(k + 1) ?? 0) : (v.get(k - 1) ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v.set(k, x);
      if (x >= n && y >= m) break outer;
    }
  }
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d] as Map<number, number>;
    const k = x - y;
    const down = k === -d || (k !== d && (vd.get(k - 1) ?? -1) < (vd.get(k + 1) ?? -1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = vd.get(prevK) ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: " ", line: a[x - 1] as string });
      x--;
      y--;
    }
    if (d > 0) {
      if (down) ops.push({ kind: "+", line: b[y - 1] as string });
      else ops.push({ kind: "-", line: a[x - 1] as string });
    }
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

/** `diff -u` style text for one file; empty when equal. Context: 3 lines. */
export function unifiedDiff(path: string, before: string | undefined, after: string | undefined): string {
  if (before === after) return "";
  const a = before === undefined || before === "" ? [] : before.replace(/\n$/, "").split("\n");
  const b = after === undefined || after === "" ? [] : after.replace(/\n$/, "").split("\n");
  const ops = diffLines(a, b);
  const out = [
    `--- ${before === undefined ? "/dev/null" : `a/${path}`}`,
    `+++ ${after === undefined ? "/dev/null" : `b/${path}`}`,
  ];
  const context = 3;
  let i = 0;
  while (i < ops.length) {
    if ((ops[i] as Op).kind === " ") {
      i++;
      continue;
    }
    let start = Math.max(0, i - context);
    let end = i;
    // Extend the hunk while changes are within 2*context lines of each other.
    for (;;) {
      while (end < ops.length && (ops[end] as Op).kind !== " ") end++;
      let next = end;
      while (next < ops.length && (ops[next] as Op).kind === " " && next - end < 2 * context) next++;
      if (next < ops.length && (ops[next] as Op).kind !== " ") end = next;
      else break;
    }
    end = Math.min(ops.length, end + context);
    let aLine = 1;
    let bLine = 1;
    for (let j = 0; j < start; j++) {
      const k = (ops[j] as Op).kind;
      if (k !== "+") aLine++;
      if (k !== "-") bLine++;
    }
    const hunk = ops.slice(start, end);
    const aCount = hunk.filter((o) => o.kind !== "+").length;
    const bCount = hunk.filter((o) => o.kind !== "-").length;
    out.push(`@@ -${aCount ? aLine : aLine - 1},${aCount} +${bCount ? bLine : bLine - 1},${bCount} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    i = end;
    start = end;
  }
  return `${out.join("\n")}\n`;
}
