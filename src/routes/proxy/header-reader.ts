import type { z } from "zod";

/** A route's validated headers, as its zod schema would give them. */
export type ReadHeaders = Record<string, unknown>;

/** Reads one header's value into what the schema gives; null when the schema would refuse it. */
type FieldReader = (value: string) => { value: unknown } | null;

/** Distinct values remembered per field whose check needs zod (a URL, a number); past this, zod runs each time. */
const MEMO_LIMIT = 1_000;

/**
 * Compiles a route's header schema (a zod object of optional fields) into a reader that takes
 * the request's headers and returns what the schema would, without running zod on the way that
 * passes: plain strings and length limits are checked directly; any other field (a URL, a
 * number from digits, an enum) is checked once per distinct value by its own zod schema and
 * remembered. Null when the headers break a rule: the caller then runs the schema itself for
 * its error. Undefined when the schema holds a field of a form not known here (the caller uses
 * zod alone).
 */
export function compileHeaderReader(schema: z.ZodType): ((headers: Headers) => ReadHeaders | null) | undefined {
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape;
  if (!shape) return undefined;
  const fields: { name: string; read: FieldReader }[] = [];
  for (const [name, field] of Object.entries(shape)) {
    const read = fieldReader(field);
    if (!read) return undefined;
    fields.push({ name, read });
  }
  return (headers) => {
    const out: ReadHeaders = {};
    for (const { name, read } of fields) {
      const raw = headers.get(name);
      if (raw === null) continue;
      const checked = read(raw);
      if (checked === null) return null;
      out[name] = checked.value;
    }
    return out;
  };
}

interface ZodDef {
  type: string;
  innerType?: { _zod: { def: ZodDef } };
  checks?: { _zod: { def: { check: string; minimum?: number; maximum?: number } } }[];
}

function defOf(schema: z.ZodType): ZodDef {
  return (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
}

/** The reader of an optional field; undefined for a required one (a missing header must be refused by zod). */
function fieldReader(field: z.ZodType): FieldReader | undefined {
  const outer = defOf(field);
  if (outer.type !== "optional" || !outer.innerType) return undefined;
  const inner = outer.innerType._zod.def;
  if (inner.type === "string") {
    const lengths = lengthRule(inner);
    if (lengths) return (value) => (value.length >= lengths.min && value.length <= lengths.max ? { value } : null);
  }
  return memoised(field);
}

/** A string's length limits, when they are its only checks. */
function lengthRule(def: ZodDef): { min: number; max: number } | null {
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  for (const check of def.checks ?? []) {
    const rule = check._zod.def;
    if (rule.check === "min_length" && rule.minimum !== undefined) min = rule.minimum;
    else if (rule.check === "max_length" && rule.maximum !== undefined) max = rule.maximum;
    else return null;
  }
  return { min, max };
}

/** The field's own schema, run once per distinct value and remembered (bounded). */
function memoised(field: z.ZodType): FieldReader {
  const seen = new Map<string, { value: unknown } | null>();
  return (value) => {
    const known = seen.get(value);
    if (known !== undefined) return known;
    const parsed = field.safeParse(value);
    const result = parsed.success ? { value: parsed.data } : null;
    if (seen.size < MEMO_LIMIT) seen.set(value, result);
    return result;
  };
}
