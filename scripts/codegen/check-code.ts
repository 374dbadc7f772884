/**
 * Request checks as plain JavaScript, written from the document's schemas. A check decides what
 * the route's zod schema decides (`zod-schemas.ts`: json-schema-to-zod, with `$ref`s, `X or null`
 * and `maxProperties` handled there), so it follows json-schema-to-zod's reading of a schema,
 * keyword by keyword, rather than JSON Schema's:
 * - the first of `nullable`, `type: object`, `type: array`, `anyOf`, `allOf`, `oneOf`, `not`,
 *   `enum`, `const`, a list of types, then the primitive types, decides what a schema is; the
 *   other keywords beside it are not read;
 * - an object with `properties` drops unknown keys unless `additionalProperties` says otherwise;
 *   one without is a record, whose `required` is not read; `minProperties` is never read;
 * - a property with a `default` is filled in when absent; `uniqueItems` compares with `===`.
 * A value zod accepts unchanged, the check accepts; a value zod refuses, the check refuses, with
 * a failure marked final. Where zod would change the value (a key it drops, a default it fills in,
 * a URL it trims) or judges it alone (formats other than `uri`, `allOf`, `not`, `patternProperties`,
 * a tuple, `multipleOf` other than 1), the check refuses with a failure that is not final, and
 * zod decides. The failures' paths are built only when a check fails: a passing check allocates
 * nothing but its loop counters.
 */
import { refName, type JsonSchema } from "./document.ts";

/** Formats json-schema-to-zod turns into a zod check; any other `format` is not read. */
const ZOD_FORMATS = new Set(["email", "ip", "ipv4", "ipv6", "uri", "uuid", "date-time", "time", "date", "binary", "duration"]);

/** Up to this many known keys, a key is looked up by comparisons; past it, in a Set. */
const INLINE_KEYS = 8;

/**
 * What zod's schema of a value does with an absent one (`undefined`): refuses it, keeps it
 * absent, fills a default in, keeps it or refuses it (a refinement of any value, which never
 * fills), or unsure.
 */
export type AbsentOutcome = "refuses" | "absent" | "fills" | "kept-or-refused" | "unsure";

type Path = readonly string[];

/**
 * Writes check functions for schemas of one document. Each function takes a value and returns
 * true when it passes, or records its first failure (`src/validation/check-runtime.ts`) and
 * returns false. Components become one function each, written once.
 */
export class CheckWriter {
  private readonly declarations: string[] = [];
  private readonly functions = new Map<string, string>();
  private readonly constants = new Map<string, string>();
  private readonly writing = new Set<string>();
  private counter = 0;

  constructor(private readonly components: Readonly<Record<string, JsonSchema>>) {}

  /** The declarations written so far: constants, then functions, each once. */
  source(): string {
    return this.declarations.join("\n");
  }

  /** The name of a function checking a value against `schema`. */
  functionFor(schema: JsonSchema | boolean): string {
    if (typeof schema === "object" && typeof schema.$ref === "string") return this.component(refName(schema.$ref));
    const key = JSON.stringify(schema);
    const known = this.functions.get(key);
    if (known) return known;
    const name = `check${++this.counter}`;
    this.functions.set(key, name);
    this.declare(name, this.statements(schema, "value", []));
    return name;
  }

  /** The function of a component schema. */
  private component(name: string): string {
    const fn = `check${name.replace(/[^A-Za-z0-9_]/g, "_")}`;
    if (this.functions.has(`#${name}`)) return fn;
    if (this.writing.has(name)) throw new Error(`Cyclic schema reference through ${name}`);
    const schema = this.components[name];
    if (!schema) throw new Error(`Unknown schema ${name}`);
    this.writing.add(name);
    const body = this.statements(schema, "value", []);
    this.writing.delete(name);
    this.functions.set(`#${name}`, fn);
    this.declare(fn, body);
    return fn;
  }

  private declare(name: string, body: string[]): void {
    this.declarations.push(`function ${name}(value) {`, ...body.map((line) => `  ${line}`), "  return true;", "}");
  }

  /** A module constant (a RegExp, a Set) for `source`, declared once. */
  constant(source: string): string {
    const known = this.constants.get(source);
    if (known) return known;
    const name = `K${this.constants.size + 1}`;
    this.constants.set(source, name);
    this.declarations.unshift(`const ${name} = ${source};`);
    return name;
  }

  private variable(prefix: string): string {
    return `${prefix}${++this.counter}`;
  }

  /**
   * Statements that check the value held by `x` (at `path` below the function's value) and
   * `return fail(...)` at its first failure.
   */
  statements(schema: JsonSchema | boolean, x: string, path: Path): string[] {
    if (schema === true) return [];
    if (schema === false) return [failure(path, "not", true)];
    if (typeof schema.$ref === "string") return [`if (!${this.component(refName(schema.$ref))}(${x})) return nest([${path.join(", ")}]);`];
    const nullable = nullableOf(schema);
    if (nullable) return [`if (${x} !== null) {`, ...indent(this.statements(nullable, x, path)), "}"];
    if (typeof schema.maxProperties === "number") {
      const { maxProperties, ...rest } = schema;
      return [
        ...this.statements(rest, x, path),
        `if (isObject(${x}) && keysAbove(${x}, ${maxProperties})) ${failure(path, "maxProperties", true, `{ limit: ${maxProperties} }`)}`,
      ];
    }
    if (schema.nullable === true) return [leftToZod(path, "nullable")];
    if (schema.type === "object") return this.object(schema, x, path);
    if (schema.type === "array") return this.array(schema, x, path);
    if (schema.anyOf !== undefined) return this.union(schema.anyOf as JsonSchema[], "firstOf", x, path);
    if (schema.allOf !== undefined) return [leftToZod(path, "allOf")];
    if (isSimpleDiscriminatedOneOf(schema)) return [leftToZod(path, "discriminator")];
    if (schema.oneOf !== undefined) return this.union(schema.oneOf as JsonSchema[], "exactlyOne", x, path);
    if (schema.not !== undefined) return [leftToZod(path, "not")];
    if (schema.enum !== undefined) return this.literals(schema.enum as unknown[], x, path);
    if (schema.const !== undefined) return this.literals([schema.const], x, path);
    if (Array.isArray(schema.type)) return this.types(schema, schema.type as string[], x, path);
    if (schema.type === "string") return this.string(schema, x, path);
    if (schema.type === "number" || schema.type === "integer") return this.number(schema, x, path);
    if (schema.type === "boolean") return [`if (typeof ${x} !== "boolean") ${failure(path, "type", true, '{ type: "boolean" }')}`];
    if (schema.type === "null") return [`if (${x} !== null) ${failure(path, "type", true, '{ type: "null" }')}`];
    if ("if" in schema && schema.if && schema.then && schema.else) return [leftToZod(path, "if")];
    // Anything else is `z.any()`.
    return [];
  }

  private object(schema: JsonSchema, x: string, path: Path): string[] {
    const out = [`if (!isObject(${x})) ${failure(path, "type", true, '{ type: "object" }')}`];
    if (schema.patternProperties !== undefined) return [...out, leftToZod(path, "patternProperties")];
    // json-schema-to-zod intersects an object with these (`.and(…)`): zod's to judge.
    if (schema.anyOf !== undefined || schema.oneOf !== undefined || schema.allOf !== undefined) return [...out, leftToZod(path, "anyOf")];
    const extra = schema.additionalProperties as JsonSchema | boolean | undefined;
    const properties = schema.properties as Record<string, JsonSchema | boolean> | undefined;
    if (properties === undefined) {
      // A record: every key's value is checked by `additionalProperties` (any value when absent).
      out.push(this.noProtoKey(x, path));
      if (extra === undefined || extra === true) return out;
      const key = this.variable("key");
      return [...out, `for (const ${key} in ${x}) {`, ...indent(this.statements(extra, `${x}[${key}]`, [...path, key])), "}"];
    }
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : null;
    for (const [name, property] of Object.entries(properties)) {
      const hasDefault = typeof property === "object" && property.default !== undefined;
      const isRequired = required ? required.includes(name) : typeof property === "object" && property.required === true;
      const optional = !hasDefault && !isRequired;
      const value = this.variable("v");
      const absent = optional ? optionalAbsent(this.absentOutcome(property)) : this.absentOutcome(property);
      const onAbsent =
        absent === "absent" ? [] : [failure(path, "required", absent === "refuses", `{ missingProperty: ${JSON.stringify(name)} }`)];
      const checks = this.statements(property, value, [...path, JSON.stringify(name)]);
      if (onAbsent.length === 0 && checks.length === 0) continue;
      out.push(`const ${value} = ${x}[${JSON.stringify(name)}];`);
      if (checks.length === 0) out.push(`if (${value} === undefined) ${onAbsent[0]}`);
      else if (onAbsent.length === 0) out.push(`if (${value} !== undefined) {`, ...indent(checks), "}");
      else out.push(`if (${value} === undefined) ${onAbsent[0]}`, ...checks);
    }
    if (extra === true) return [...out, this.noProtoKey(x, path)];
    const key = this.variable("key");
    const known = this.knownKey(Object.keys(properties), key);
    if (extra === undefined || extra === false) {
      // No `additionalProperties`: zod drops unknown keys (the value changes); `false`: zod refuses them.
      const params = `{ additionalProperty: ${key} }`;
      return [...out, `for (const ${key} in ${x}) if (!(${known})) ${failure(path, "additionalProperties", extra === false && `${key} !== "__proto__"`, params)}`];
    }
    return [
      ...out,
      this.noProtoKey(x, path),
      `for (const ${key} in ${x}) {`,
      `  if (${known}) continue;`,
      ...indent(this.statements(extra, `${x}[${key}]`, [...path, key])),
      "}",
    ];
  }

  /** zod rebuilds a record or an open object: an own `__proto__` key would not survive it. */
  private noProtoKey(x: string, path: Path): string {
    return `if (Object.hasOwn(${x}, "__proto__")) ${failure(path, "additionalProperties", false, '{ additionalProperty: "__proto__" }')}`;
  }

  private knownKey(names: string[], key: string): string {
    if (names.length === 0) return "false";
    if (names.length <= INLINE_KEYS) return names.map((name) => `${key} === ${JSON.stringify(name)}`).join(" || ");
    return `${this.constant(`new Set(${JSON.stringify(names)})`)}.has(${key})`;
  }

  private array(schema: JsonSchema, x: string, path: Path): string[] {
    const out = [`if (!Array.isArray(${x})) ${failure(path, "type", true, '{ type: "array" }')}`];
    if (Array.isArray(schema.items)) return [...out, leftToZod(path, "prefixItems")];
    // The counts first: an array too long is refused before any of its items is read.
    if (typeof schema.minItems === "number") out.push(`if (${x}.length < ${schema.minItems}) ${failure(path, "minItems", true, `{ limit: ${schema.minItems} }`)}`);
    if (typeof schema.maxItems === "number") out.push(`if (${x}.length > ${schema.maxItems}) ${failure(path, "maxItems", true, `{ limit: ${schema.maxItems} }`)}`);
    const items = schema.items as JsonSchema | boolean | undefined;
    if (items) {
      const index = this.variable("i");
      const itemChecks = this.statements(items, `${x}[${index}]`, [...path, index]);
      if (itemChecks.length > 0) out.push(`for (let ${index} = 0; ${index} < ${x}.length; ${index}++) {`, ...indent(itemChecks), "}");
    }
    if (schema.uniqueItems === true) {
      out.push(`if (!${x}.every((item, index) => ${x}.indexOf(item) === index)) ${failure(path, "uniqueItems", true)}`);
    }
    return out;
  }

  /**
   * A union (`anyOf`, or a `oneOf` counted). zod tries every option, but an option refuses a value
   * of a kind it never takes (a string, an array, null…) as surely as the check does: the value's
   * kind picks the options that can decide, and when one alone can, it is checked in place.
   */
  private union(options: Array<JsonSchema | boolean>, runtime: "firstOf" | "exactlyOne", x: string, path: Path): string[] {
    if (options.length === 0) return [];
    if (options.length === 1) return this.statements(options[0]!, x, path);
    const kinds = options.map((option) => this.kinds(option));
    if (kinds.some((set) => set === ANY_KIND)) return [this.unionCall(options, runtime, x, path)];
    const out: string[] = [];
    for (const kind of KINDS) {
      const candidates = options.filter((_, index) => kinds[index]!.has(kind));
      if (candidates.length === 0) continue;
      const code = candidates.length === 1 ? this.statements(candidates[0]!, x, path) : [this.unionCall(candidates, runtime, x, path)];
      out.push(`${out.length === 0 ? "" : "} else "}if (${kindTest(kind, x)}) {`, ...indent(code));
    }
    if (out.length === 0) return [failure(path, runtime === "firstOf" ? "anyOf" : "oneOf", true)];
    return [...out, "} else {", `  ${failure(path, "type", true)}`, "}"];
  }

  private unionCall(options: Array<JsonSchema | boolean>, runtime: "firstOf" | "exactlyOne", x: string, path: Path): string {
    const list = this.constant(`[${options.map((option) => this.functionFor(option)).join(", ")}]`);
    return `if (!${runtime}(${x}, ${list})) return nest([${path.join(", ")}]);`;
  }

  /** The kinds of JSON value the zod schema of `schema` can accept; `ANY_KIND` when it may take any. */
  private kinds(schema: JsonSchema | boolean): ReadonlySet<Kind> {
    if (schema === true) return ANY_KIND;
    if (schema === false) return new Set();
    if (typeof schema.$ref === "string") return this.kinds(this.components[refName(schema.$ref)] ?? true);
    const nullable = nullableOf(schema);
    if (nullable) return joinKinds([this.kinds(nullable), new Set(["null"])]);
    if (typeof schema.maxProperties === "number") {
      const { maxProperties: _, ...rest } = schema;
      return this.kinds(rest);
    }
    if (schema.nullable === true) return ANY_KIND;
    if (schema.type === "object") return new Set(["object"]);
    if (schema.type === "array") return new Set(["array"]);
    if (Array.isArray(schema.anyOf)) return schema.anyOf.length === 0 ? ANY_KIND : joinKinds((schema.anyOf as JsonSchema[]).map((option) => this.kinds(option)));
    if (schema.allOf !== undefined || isSimpleDiscriminatedOneOf(schema)) return ANY_KIND;
    if (Array.isArray(schema.oneOf)) return schema.oneOf.length === 0 ? ANY_KIND : joinKinds((schema.oneOf as JsonSchema[]).map((option) => this.kinds(option)));
    if (schema.not !== undefined) return ANY_KIND;
    if (Array.isArray(schema.enum)) return new Set((schema.enum as unknown[]).map(kindOf));
    if (schema.const !== undefined) return new Set([kindOf(schema.const)]);
    if (Array.isArray(schema.type)) return new Set((schema.type as string[]).map(typeKind));
    if (typeof schema.type === "string" && schema.type !== "object" && schema.type !== "array") return new Set([typeKind(schema.type)]);
    return ANY_KIND;
  }

  private literals(values: unknown[], x: string, path: Path): string[] {
    if (values.length === 0) return [failure(path, "enum", true, "{ allowedValues: [] }")];
    if (values.some((value) => value !== null && typeof value === "object")) return [leftToZod(path, "enum")];
    const allowed = JSON.stringify(values);
    const test = values.length <= INLINE_KEYS ? values.map((value) => `${x} === ${JSON.stringify(value)}`).join(" || ") : `${this.constant(`new Set(${allowed})`)}.has(${x})`;
    return [`if (!(${test})) ${failure(path, "enum", true, `{ allowedValues: ${allowed} }`)}`];
  }

  /**
   * A list of types is a union of one schema per type. The types accept disjoint values but for
   * `integer` and `number`, so the value's own type picks the one that decides.
   */
  private types(schema: JsonSchema, types: string[], x: string, path: Path): string[] {
    const numeric = types.filter((type) => type === "integer" || type === "number");
    if (numeric.length > 1) return this.union(types.map((type) => ({ ...schema, type })), "firstOf", x, path);
    const out: string[] = [];
    types.forEach((type, index) => {
      const checks = this.statements({ ...schema, type }, x, path);
      // The branch's own type test is the one just made, but for an integer, a number that must be whole and safe.
      out.push(`${index === 0 ? "" : "} else "}if (${typeTest(type, x)}) {`, ...indent(type === "integer" || type === "number" ? checks : checks.slice(1)));
    });
    return [...out, "} else {", `  ${failure(path, "type", true, `{ type: ${JSON.stringify(types)} }`)}`, "}"];
  }

  private string(schema: JsonSchema, x: string, path: Path): string[] {
    const out = [`if (typeof ${x} !== "string") ${failure(path, "type", true, '{ type: "string" }')}`];
    if (schema.contentEncoding !== undefined || schema.contentMediaType !== undefined) return [...out, leftToZod(path, "contentEncoding")];
    const format = schema.format;
    if (typeof format === "string" && ZOD_FORMATS.has(format)) {
      if (format !== "uri") return [...out, leftToZod(path, "format")];
      const verdict = this.variable("url");
      out.push(`const ${verdict} = urlVerdict(${x});`, `if (${verdict} !== 1) ${failure(path, "format", `${verdict} === 0`, '{ format: "uri" }')}`);
    }
    if (typeof schema.pattern === "string") {
      const pattern = this.constant(`new RegExp(${JSON.stringify(schema.pattern)})`);
      out.push(`if (!${pattern}.test(${x})) ${failure(path, "pattern", true, `{ pattern: ${JSON.stringify(schema.pattern)} }`)}`);
    }
    // zod counts code points; a code point is one or two UTF-16 units.
    const min = schema.minLength;
    if (typeof min === "number" && min > 0) {
      out.push(`if (${x}.length < ${min} || (${x}.length < ${2 * min} && codePoints(${x}) < ${min})) ${failure(path, "minLength", true, `{ limit: ${min} }`)}`);
    }
    const max = schema.maxLength;
    if (typeof max === "number") out.push(`if (${x}.length > ${max} && codePoints(${x}) > ${max}) ${failure(path, "maxLength", true, `{ limit: ${max} }`)}`);
    return out;
  }

  private number(schema: JsonSchema, x: string, path: Path): string[] {
    const integer = schema.type === "integer" || schema.format === "int64" || schema.multipleOf === 1;
    const type = integer ? `!Number.isSafeInteger(${x})` : `typeof ${x} !== "number" || !Number.isFinite(${x})`;
    const out = [`if (${type}) ${failure(path, "type", true, `{ type: ${JSON.stringify(schema.type)} }`)}`];
    if (schema.multipleOf !== undefined && schema.multipleOf !== 1) return [...out, leftToZod(path, "multipleOf")];
    const bound = (test: string, keyword: string, limit: unknown) => out.push(`if (!(${x} ${test} ${limit})) ${failure(path, keyword, true, `{ limit: ${limit} }`)}`);
    if (typeof schema.minimum === "number") bound(schema.exclusiveMinimum === true ? ">" : ">=", "minimum", schema.minimum);
    else if (typeof schema.exclusiveMinimum === "number") bound(">", "exclusiveMinimum", schema.exclusiveMinimum);
    if (typeof schema.maximum === "number") bound(schema.exclusiveMaximum === true ? "<" : "<=", "maximum", schema.maximum);
    else if (typeof schema.exclusiveMaximum === "number") bound("<", "exclusiveMaximum", schema.exclusiveMaximum);
    return out;
  }

  /** What the zod schema written for `schema` does with `undefined`, as json-schema-to-zod builds it. */
  absentOutcome(schema: JsonSchema | boolean): AbsentOutcome {
    if (schema === true) return "absent";
    if (schema === false) return "refuses";
    if (typeof schema.$ref === "string") return this.absentOutcome(this.components[refName(schema.$ref)] ?? false);
    const nullable = nullableOf(schema);
    if (nullable) return this.absentOutcome(nullable);
    if (typeof schema.maxProperties === "number") {
      const { maxProperties: _, ...rest } = schema;
      return this.absentOutcome(rest);
    }
    if (schema.default !== undefined) return "fills";
    if (schema.nullable === true || schema.allOf !== undefined || isSimpleDiscriminatedOneOf(schema)) return "unsure";
    if (schema.type === "object" || schema.type === "array") return "refuses";
    if (Array.isArray(schema.anyOf)) {
      if (schema.anyOf.length === 0) return "absent";
      // zod's union takes the first option that passes; after one that may refuse, a later one that may fill leaves it unsure.
      let uncertain: AbsentOutcome | null = null;
      for (const option of schema.anyOf as JsonSchema[]) {
        const outcome = this.absentOutcome(option);
        if (outcome === "refuses") continue;
        if (uncertain === null && (outcome === "absent" || outcome === "fills")) return outcome;
        if (outcome === "fills" || outcome === "unsure") return "unsure";
        uncertain ??= outcome;
      }
      return uncertain ?? "refuses";
    }
    if (Array.isArray(schema.oneOf)) return schema.oneOf.length === 1 ? this.absentOutcome(schema.oneOf[0] as JsonSchema) : schema.oneOf.length === 0 ? "absent" : "kept-or-refused";
    if (schema.not !== undefined) return "kept-or-refused";
    if (schema.enum !== undefined || schema.const !== undefined || Array.isArray(schema.type)) return "refuses";
    if (["string", "number", "integer", "boolean", "null"].includes(schema.type as string)) return "refuses";
    if ("if" in schema) return "unsure";
    return "absent";
  }
}

/** An optional property (`.optional()`): absent stays absent unless the schema fills a value in (zod runs it only then). */
function optionalAbsent(outcome: AbsentOutcome): AbsentOutcome {
  return outcome === "fills" || outcome === "unsure" ? outcome : "absent";
}

/** The statement that records a failure and returns; `final` is a boolean or an expression. */
function failure(path: Path, keyword: string, final: boolean | string, params?: string): string {
  return `return fail([${path.join(", ")}], ${JSON.stringify(keyword)}, ${final}${params ? `, ${params}` : ""});`;
}

/** A value zod judges alone: the check refuses it without being sure. */
function leftToZod(path: Path, keyword: string): string {
  return failure(path, keyword, false);
}

/** The kinds of JSON value, in the order a union tests them. */
const KINDS = ["null", "boolean", "number", "string", "array", "object"] as const;
type Kind = (typeof KINDS)[number];
const ANY_KIND: ReadonlySet<Kind> = new Set(KINDS);

function joinKinds(sets: ReadonlyArray<ReadonlySet<Kind>>): ReadonlySet<Kind> {
  if (sets.some((set) => set === ANY_KIND)) return ANY_KIND;
  return new Set(sets.flatMap((set) => [...set]));
}

function kindOf(value: unknown): Kind {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value as Kind;
}

/** A JSON Schema type's kind; an unknown type name is no kind at all (zod refuses it). */
function typeKind(type: string): Kind {
  return type === "integer" ? "number" : (type as Kind);
}

function kindTest(kind: Kind, x: string): string {
  return typeTest(kind, x);
}

function typeTest(type: string, x: string): string {
  switch (type) {
    case "object":
      return `isObject(${x})`;
    case "array":
      return `Array.isArray(${x})`;
    case "null":
      return `${x} === null`;
    case "integer":
      return `typeof ${x} === "number"`;
    default:
      return `typeof ${x} === ${JSON.stringify(type)}`;
  }
}

function indent(lines: string[]): string[] {
  return lines.map((line) => `  ${line}`);
}

/** Mirrors `nullableOf` in `zod-schemas.ts`: an `anyOf` alone, of one schema and a bare null, is `X.nullable()`. */
export function nullableOf(schema: JsonSchema): JsonSchema | null {
  const options = schema.anyOf;
  if (!Array.isArray(options) || options.length !== 2 || Object.keys(schema).length !== 1) return null;
  const isNull = (option: unknown) => (option as JsonSchema).type === "null" && Object.keys(option as object).length === 1;
  const other = options.find((option) => !isNull(option));
  return options.some(isNull) && other ? (other as JsonSchema) : null;
}

/** json-schema-to-zod's test for a `oneOf` it turns into `z.discriminatedUnion`. */
function isSimpleDiscriminatedOneOf(schema: JsonSchema): boolean {
  const discriminator = schema.discriminator as { propertyName?: unknown } | undefined;
  return Array.isArray(schema.oneOf) && schema.oneOf.length > 0 && typeof discriminator === "object" && discriminator !== null && typeof discriminator.propertyName === "string";
}

