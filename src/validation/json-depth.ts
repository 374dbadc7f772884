/**
 * How deeply a JSON value the gateway accepts may nest. Real bodies (tool schemas, content parts)
 * stay far below it; far deeper values are parsed fine but overflow the stack of any recursive
 * walk later (`JSON.stringify` among them), which would turn a client's input into a 500.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * True when `value` nests objects and arrays more than `maxDepth` levels deep. Walks without
 * recursion, so no depth can overflow it; stops at the first level past the limit.
 */
export function nestedDeeperThan(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (node === null || typeof node !== "object") continue;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === "object") pending.push([child, depth + 1]);
    }
  }
  return false;
}
