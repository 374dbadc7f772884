/** One line of a diff: in both texts, only in the first, or only in the second. */
export interface DiffLine {
  op: "equal" | "delete" | "insert";
  text: string;
}

/** Past these, a diff is the first text deleted whole and the second inserted whole. */
export const MAX_DIFF_LINES = 20_000;
export const MAX_DIFF_EDITS = 1_000;

/**
 * The lines of `from` and `to` as a shortest edit script (Myers' O(ND) algorithm, "An O(ND)
 * Difference Algorithm and Its Variations", 1986). Bounded: texts longer than `MAX_DIFF_LINES`
 * lines, or further apart than `MAX_DIFF_EDITS` edits, are answered as replaced whole, so a
 * diff of the largest templates stays a few milliseconds. Never throws.
 */
export function diffLines(from: string, to: string): DiffLine[] {
  const a = from === "" ? [] : from.split("\n");
  const b = to === "" ? [] : to.split("\n");
  if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) return replaced(a, b);
  const trace = shortestEdit(a, b);
  return trace ? backtrack(trace, a, b) : replaced(a, b);
}

function replaced(a: readonly string[], b: readonly string[]): DiffLine[] {
  return [...a.map((text) => ({ op: "delete" as const, text })), ...b.map((text) => ({ op: "insert" as const, text }))];
}

/** Each round's furthest-reaching x per diagonal, until the end is reached; null past the edit bound. */
function shortestEdit(a: readonly string[], b: readonly string[]): Int32Array[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_DIFF_EDITS);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d += 1) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        trace.push(v.slice());
        return trace;
      }
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], a: readonly string[], b: readonly string[]): DiffLine[] {
  const lines: DiffLine[] = [];
  let x = a.length;
  let y = b.length;
  // trace[d] holds the state before round d; the last entry is the state after the final round.
  const offset = (trace[0]!.length - 3) / 2 + 1;
  for (let d = trace.length - 2; d >= 0; d -= 1) {
    const v = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
    const previousK = down ? k + 1 : k - 1;
    const previousX = d === 0 ? 0 : v[offset + previousK]!;
    const previousY = d === 0 ? 0 : previousX - previousK;
    while (x > previousX && y > previousY) {
      x -= 1;
      y -= 1;
      lines.push({ op: "equal", text: a[x]! });
    }
    if (d > 0) {
      if (down) lines.push({ op: "insert", text: b[y - 1]! });
      else lines.push({ op: "delete", text: a[x - 1]! });
      x = previousX;
      y = previousY;
    }
  }
  return lines.reverse();
}
