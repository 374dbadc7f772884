/**
 * A bounded copy of a refused JSON body, for zod to name the failure on. A body can hold
 * hundreds of thousands of elements, and zod, given all of them, builds an issue for every bad
 * one before answering; the answer needs one. The sample keeps the first few elements of every
 * array, the first keys of every object and a fixed number of values in all, always including
 * the element where the compiled check stopped, so zod's work on it is bounded whatever the
 * body. What the sample left out can make zod report issues the body does not have (a required
 * key cut, an array shortened); `trusted` keeps only the issues the body has too.
 */

/** A path into a JSON value, as zod reports it. */
export type ValuePath = ReadonlyArray<PropertyKey>;

/** What the sample keeps of a body. */
export interface SampleLimits {
  /** Elements kept of each array (plus the one on the focus path). */
  items: number;
  /** Keys kept of each object (plus the one on the focus path). */
  keys: number;
  /** Values copied in all; containers past it become null. */
  values: number;
}

export const SAMPLE_LIMITS: SampleLimits = { items: 8, keys: 64, values: 2_000 };

/** The parts of a zod issue the sample reads. */
export interface SampledIssue {
  code: string;
  path: PropertyKey[];
}

export interface BodySample {
  value: unknown;
  /** True when anything was left out: zod's verdict on `value` is then not the body's. */
  cut: boolean;
  /**
   * The issues of `issues` (zod's, on `value`) that the body has too, their paths turned into
   * the body's (an element kept past the first ones sits at another index in the sample).
   */
  trusted<I extends SampledIssue>(issues: readonly I[]): I[];
}

interface Copy {
  /** Arrays and objects of the sample that lost elements or keys, or hold a container cut to null. */
  readonly lossy: Set<object>;
  /** Sample containers at or above a lossy one. */
  readonly tainted: Set<object>;
  /** For a sample array holding an element past the first ones: the body's index of each element. */
  readonly indices: Map<unknown[], number[]>;
  budget: number;
}

/** The sample of `body`, keeping every value on `focus` (a path into `body`). Never throws. */
export function sampleOf(body: unknown, focus: ValuePath, limits: SampleLimits = SAMPLE_LIMITS): BodySample {
  const copy: Copy = { lossy: new Set(), tainted: new Set(), indices: new Map(), budget: limits.values };
  const value = copyOf(body, focus, limits, copy);
  return {
    value,
    cut: copy.lossy.size > 0,
    trusted: (issues) => issues.flatMap((issue) => {
      const path = bodyPath(value, issue, copy);
      return path === null ? [] : [path === issue.path ? issue : { ...issue, path }];
    }),
  };
}

/** Copies `node`, recording in `copy` every container at or above a loss. `focus` segments may be strings (a JSON pointer's). */
function copyOf(node: unknown, focus: ValuePath, limits: SampleLimits, copy: Copy): unknown {
  copy.budget -= 1;
  if (node === null || typeof node !== "object") return node;
  const [head, ...rest] = focus;
  if (Array.isArray(node)) {
    const focusIndex = Number(head);
    const onFocus = head !== undefined && Number.isInteger(focusIndex) && focusIndex >= 0 && focusIndex < node.length;
    const kept: number[] = [];
    for (let index = 0; index < Math.min(node.length, limits.items); index += 1) kept.push(index);
    if (onFocus && focusIndex >= limits.items) kept.push(focusIndex);
    // The focus first, so the budget never cuts it.
    const children = new Map<number, unknown>();
    if (onFocus) children.set(focusIndex, copyOf(node[focusIndex], rest, limits, copy));
    for (const index of kept) if (!children.has(index)) children.set(index, copyChild(node[index], limits, copy));
    const out = kept.map((index) => children.get(index));
    if (onFocus && focusIndex >= limits.items) copy.indices.set(out, kept);
    settle(out, kept.length < node.length, copy);
    return out;
  }
  const source = node as Record<string, unknown>;
  const keys = Object.keys(source);
  const kept = keys.slice(0, limits.keys);
  if (typeof head === "string" && Object.hasOwn(source, head) && !kept.includes(head)) kept.push(head);
  const children = new Map<string, unknown>();
  if (typeof head === "string" && kept.includes(head)) children.set(head, copyOf(ownValue(source, head), rest, limits, copy));
  for (const key of kept) if (!children.has(key)) children.set(key, copyChild(ownValue(source, key), limits, copy));
  const out: Record<string, unknown> = {};
  for (const key of keys) if (children.has(key)) ownKey(out, key, children.get(key));
  settle(out, kept.length < keys.length, copy);
  return out;
}

/** Sets an own key, `__proto__` included (JSON.parse makes it an own key; an assignment would set the prototype). */
function ownKey(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/** An own key's value: `node.__proto__` would read the prototype, not the key JSON.parse made. */
function ownValue(node: object, key: PropertyKey): unknown {
  return key === "__proto__" ? Object.getOwnPropertyDescriptor(node, key)?.value : (node as Record<PropertyKey, unknown>)[key];
}

/** A child off the focus path: copied while the budget lasts, a container past it cut to null. */
function copyChild(node: unknown, limits: SampleLimits, copy: Copy): unknown {
  if (copy.budget <= 0 && node !== null && typeof node === "object") return CUT;
  return copyOf(node, [], limits, copy);
}

/** Stands for a container the budget cut, until its parent records the loss. */
const CUT = Symbol("cut");

/** Replaces the cut children of a copied container by null and records what it lost. */
function settle(container: unknown[] | Record<string, unknown>, shortened: boolean, copy: Copy): void {
  let lossy = shortened;
  let tainted = false;
  const entries = Array.isArray(container) ? container.entries() : Object.entries(container);
  for (const [key, child] of entries) {
    if (child === CUT) {
      if (Array.isArray(container)) container[key as number] = null;
      else ownKey(container, key as string, null);
      lossy = true;
    } else if (child !== null && typeof child === "object" && copy.tainted.has(child)) {
      tainted = true;
    }
  }
  if (lossy) copy.lossy.add(container);
  if (lossy || tainted) copy.tainted.add(container);
}

/**
 * The body's path of an issue zod found in the sample, or null when the body need not have it.
 * An issue is the body's when what zod judged is the same in both: a value with nothing left out
 * at or below it, or a missing key of an object that lost no key. Two kinds hold however much
 * was left out: unknown keys (the sample only drops keys) and a count too big (the body has more).
 */
function bodyPath(sample: unknown, issue: SampledIssue, copy: Copy): PropertyKey[] | null {
  const nodes: unknown[] = [sample];
  const path: PropertyKey[] = [];
  let node: unknown = sample;
  for (const key of issue.path) {
    const indices = Array.isArray(node) ? copy.indices.get(node) : undefined;
    path.push(indices && typeof key === "number" ? (indices[key] ?? key) : key);
    node = node !== null && typeof node === "object" ? ownValue(node, key) : undefined;
    nodes.push(node);
  }
  const changed = path.some((key, index) => key !== issue.path[index]);
  const answer = changed ? path : issue.path;
  if (issue.code === "unrecognized_keys" || issue.code === "too_big") return answer;
  if (node === undefined || node === null) {
    // A missing key, or a null that may be a container the budget cut: the body's only where the parent lost nothing.
    const parent = nodes[nodes.length - 2];
    return parent !== null && typeof parent === "object" && copy.lossy.has(parent) ? null : answer;
  }
  if (typeof node !== "object") return answer;
  return copy.tainted.has(node) ? null : answer;
}
