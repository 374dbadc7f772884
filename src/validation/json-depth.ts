/**
 * How deeply a JSON value the gateway accepts may nest. Real bodies (tool schemas, content parts)
 * stay far below it; far deeper values are parsed fine but overflow the stack of any recursive
 * walk later (`JSON.stringify` among them), which would turn a client's input into a 500.
 */
export const MAX_JSON_DEPTH = 128;

/** Up to this limit the walk recurses (a stack this deep is safe anywhere), past it it keeps its own stack. */
const RECURSION_LIMIT = 1_024;

/**
 * True when `value` nests objects and arrays more than `maxDepth` levels deep; stops at the
 * first level past the limit, so no depth can overflow the stack. Allocates nothing up to
 * `RECURSION_LIMIT` levels: it runs on every JSON body a route accepts.
 */
export function nestedDeeperThan(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== "object") return false;
  return maxDepth <= RECURSION_LIMIT ? deeperThan(value, maxDepth) : deeperThanIteratively(value, maxDepth);
}

/** `node` (an object or array) holds more than `levels` levels, itself included. */
function deeperThan(node: object, levels: number): boolean {
  if (levels === 0) return true;
  if (Array.isArray(node)) {
    for (let index = 0; index < node.length; index += 1) {
      const child: unknown = node[index];
      if (child !== null && typeof child === "object" && deeperThan(child, levels - 1)) return true;
    }
    return false;
  }
  for (const key in node) {
    const child = ownValue(node, key);
    if (child !== null && typeof child === "object" && deeperThan(child, levels - 1)) return true;
  }
  return false;
}

function deeperThanIteratively(value: object, maxDepth: number): boolean {
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

/** A key's own value (an own `__proto__` key of a parsed JSON object included, which `node[key]` would not read). */
function ownValue(node: object, key: string): unknown {
  return key === "__proto__" ? Object.getOwnPropertyDescriptor(node, key)?.value : (node as Record<string, unknown>)[key];
}
