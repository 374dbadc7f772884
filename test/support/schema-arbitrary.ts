import fc from "fast-check";

/** A JSON Schema of the gateway's document (the keywords its request bodies use). */
export type Schema = Record<string, unknown> | boolean;

/** How big the generated values may grow: nesting below `depth` keeps only what is required. */
export interface ValueLimits {
  depth: number;
  /** Most items of an array, and extra keys of an open object. */
  items: number;
}

const LIMITS: ValueLimits = { depth: 6, items: 3 };

/** Strings with a few astral code points, a tab, an edge space: what lengths and URLs must count right. */
const text = (minLength = 0, maxLength = 12) =>
  fc.string({ unit: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(..."abcXYZ019 _-./:") }, fc.constantFrom("😀", "é", "\t", "\u00a0", "𝄞"), { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) }), minLength, maxLength });

/**
 * Values the schema allows as JSON Schema reads it, for the schemas of one document
 * (`components`). Not every value is valid (two `oneOf` options may both match, a pattern may be
 * approximated); a test that needs validity checks it with a JSON Schema validator.
 */
export function valueOf(schema: Schema, components: Record<string, Schema>, limits: ValueLimits = LIMITS): fc.Arbitrary<unknown> {
  return arbitrary(schema, components, limits.depth, limits);
}

function arbitrary(schema: Schema, components: Record<string, Schema>, depth: number, limits: ValueLimits): fc.Arbitrary<unknown> {
  if (schema === true) return fc.jsonValue({ maxDepth: 2 });
  if (schema === false) return fc.constant(undefined);
  const s = schema as Record<string, any>;
  const next = (child: Schema) => arbitrary(child, components, depth - 1, limits);
  if (typeof s.$ref === "string") return arbitrary(components[s.$ref.split("/").pop() as string]!, components, depth, limits);
  if (Array.isArray(s.anyOf)) return fc.oneof(...s.anyOf.map((option: Schema) => arbitrary(option, components, depth, limits)));
  if (Array.isArray(s.oneOf)) return fc.oneof(...s.oneOf.map((option: Schema) => arbitrary(option, components, depth, limits)));
  if (Array.isArray(s.allOf)) return arbitrary(s.allOf[0], components, depth, limits);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((type: string) => arbitrary({ ...s, type }, components, depth, limits)));
  switch (s.type) {
    case "object":
      return objectOf(s, components, depth, limits, next);
    case "array": {
      const min = s.minItems ?? 0;
      const max = Math.min(s.maxItems ?? min + limits.items, depth > 0 ? min + limits.items : min);
      const items = s.items === undefined ? fc.jsonValue({ maxDepth: 1 }) : next(s.items);
      return s.uniqueItems ? fc.uniqueArray(items, { minLength: min, maxLength: max, comparator: "IsStrictlyEqual" }) : fc.array(items, { minLength: min, maxLength: max });
    }
    case "string":
      return stringOf(s);
    case "integer": {
      const min = Math.max(s.minimum ?? Number.MIN_SAFE_INTEGER, typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum + 1 : -Infinity);
      const max = Math.min(s.maximum ?? Number.MAX_SAFE_INTEGER, typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum - 1 : Infinity);
      return fc.oneof(fc.integer({ min: Math.max(min, -1_000), max: Math.min(max, Math.max(min, -1_000) + 2_000) }), fc.constantFrom(min, max));
    }
    case "number": {
      const min = s.minimum ?? (typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum : -1e6);
      const max = s.maximum ?? (typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum : 1e6);
      const value = fc.double({ min, max, noNaN: true, noDefaultInfinity: true, minExcluded: typeof s.exclusiveMinimum === "number", maxExcluded: typeof s.exclusiveMaximum === "number" });
      return value.map((number) => (Object.is(number, -0) ? 0 : number));
    }
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectOf(s: Record<string, any>, components: Record<string, Schema>, depth: number, limits: ValueLimits, next: (child: Schema) => fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const properties: Record<string, Schema> = s.properties ?? {};
  const required = new Set<string>(Array.isArray(s.required) ? s.required : []);
  // Deep down, only what is required: the values stay small.
  const names = Object.keys(properties).filter((name) => required.has(name) || depth > 0);
  const known = fc.record(Object.fromEntries(names.map((name) => [name, next(properties[name]!)])), { requiredKeys: names.filter((name) => required.has(name)) });
  const extra = s.additionalProperties;
  const maxExtra = Math.max(0, Math.min(limits.items, (s.maxProperties ?? Infinity) - names.length));
  if (extra === undefined || extra === false || depth <= 0 || maxExtra === 0) return known;
  const key = fc.string({ minLength: 1, maxLength: 8 }).filter((name) => !(name in properties) && name !== "__proto__");
  const extras = fc.dictionary(key, extra === true ? fc.jsonValue({ maxDepth: 1 }) : next(extra), { maxKeys: maxExtra });
  return fc.tuple(known, extras).map(([own, more]) => ({ ...more, ...(own as object) }));
}

function stringOf(s: Record<string, any>): fc.Arbitrary<string> {
  // A pattern's strings are stretched to its length bounds by repetition (no filter: a rare fit would stall the generation).
  if (typeof s.pattern === "string") return fc.stringMatching(new RegExp(s.pattern)).map((value) => fitted(s, value));
  switch (s.format) {
    case "uuid":
      return fc.uuid();
    case "date-time":
      return fc.date({ min: new Date("2000-01-01"), max: new Date("2099-12-31"), noInvalidDate: true }).map((date) => date.toISOString());
    case "date":
      return fc.date({ min: new Date("2000-01-01"), max: new Date("2099-12-31"), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10));
    case "uri":
      return fc.webUrl();
  }
  const min = s.minLength ?? 0;
  return text(min, Math.max(min, Math.min(s.maxLength ?? min + 12, min + 12))).filter((value) => lengthFits(s, value));
}

function fitted(s: Record<string, any>, value: string): string {
  const min = s.minLength ?? 0;
  const stretched = value.length > 0 && value.length < min ? value.repeat(Math.ceil(min / value.length)) : value;
  return stretched.slice(0, s.maxLength ?? stretched.length);
}

function lengthFits(s: Record<string, any>, value: string): boolean {
  const length = [...value].length;
  return length >= (s.minLength ?? 0) && length <= (s.maxLength ?? Infinity);
}

/** Paths to every value inside `value` (the root as []). */
export function pathsOf(value: unknown, prefix: Array<string | number> = [], into: Array<Array<string | number>> = []): Array<Array<string | number>> {
  into.push(prefix);
  if (Array.isArray(value)) value.forEach((item, index) => pathsOf(item, [...prefix, index], into));
  else if (value !== null && typeof value === "object") for (const [key, item] of Object.entries(value)) pathsOf(item, [...prefix, key], into);
  return into;
}

/** What a mutation does at the path it picks. */
export type Mutation = { kind: "replace"; value: unknown } | { kind: "delete" } | { kind: "add-key"; key: string; value: unknown } | { kind: "grow" } | { kind: "empty" };

/** Values that break a schema's rules: other types, bounds, lengths, formats, nulls. */
const wrongValue = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1, 1.5, -0.5, 2 ** 53, -(2 ** 53), 1e21, 3, 100_000_000, "", "x", " padded ", "http://example.com/v1", "not a url", "2024-13-45", "6f1f4a0e-4b7e-4c1a-9a53-0e0b2f6d8c11", [], {}, [1, "a"], { a: 1 }),
  text(0, 40),
  fc.string({ minLength: 100, maxLength: 600 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.jsonValue({ maxDepth: 2 }),
);

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 5, arbitrary: wrongValue.map((value) => ({ kind: "replace" as const, value })) },
  { weight: 2, arbitrary: fc.constant({ kind: "delete" as const }) },
  { weight: 2, arbitrary: fc.tuple(fc.oneof(fc.constantFrom("extra", "type", "role", "model", "__proto__", "constructor"), fc.string({ maxLength: 6 })), wrongValue).map(([key, value]) => ({ kind: "add-key" as const, key, value })) },
  { weight: 1, arbitrary: fc.constant({ kind: "grow" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "empty" as const }) },
);

/** `value` with one mutation applied at the path `pick` chooses among its values (a copy; `value` is untouched). */
export function mutated(value: unknown, pick: number, change: Mutation): unknown {
  const copy = structuredClone(value);
  const paths = pathsOf(copy);
  const path = paths[pick % paths.length]!;
  const parentPath = path.slice(0, -1);
  const last = path[path.length - 1];
  const at = (p: Array<string | number>) => p.reduce<any>((node, key) => node[key], copy);
  const target = at(path);
  switch (change.kind) {
    case "replace":
      if (path.length === 0) return change.value;
      at(parentPath)[last!] = change.value;
      return copy;
    case "delete": {
      if (path.length === 0) return undefined;
      const parent = at(parentPath);
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete parent[last!];
      return copy;
    }
    case "add-key":
      if (target !== null && typeof target === "object" && !Array.isArray(target)) Object.defineProperty(target, change.key, { value: change.value, enumerable: true, writable: true, configurable: true });
      return copy;
    case "grow":
      if (Array.isArray(target)) target.push(...Array.from({ length: 600 }, () => structuredClone(target[0] ?? null)));
      else if (typeof target === "string" && path.length > 0) at(parentPath)[last!] = target.repeat(200);
      return copy;
    case "empty":
      if (Array.isArray(target)) target.length = 0;
      else if (target !== null && typeof target === "object") for (const key of Object.keys(target)) delete target[key];
      else if (typeof target === "string" && path.length > 0) at(parentPath)[last!] = "";
      return copy;
  }
}
