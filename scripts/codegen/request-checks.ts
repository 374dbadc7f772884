/**
 * Renders `src/generated/request-checks.gen.ts`: every request check the document implies, as
 * plain code written by `check-code.ts`. For each operation with a JSON body, `<operationId>Body`,
 * the zod schema its route declares, which runs the body's check and lets zod word a refusal
 * (`compiledBody` in `src/validation/check-runtime.ts`); for each operation with parameters, the
 * checks of its path parameters, query and headers (`parameterChecks`), which the proxied routes'
 * request reader runs in place of the same zod objects, running zod only when a check refuses.
 */
import { bodySchemaConst, jsonBodies, refName, resolve, schemaConst, HTTP_METHODS, type JsonSchema, type OpenApiDocument, type ParameterObject } from "./document.ts";
import { CheckWriter } from "./check-code.ts";
import { locatedParameters, PARAMETER_LOCATIONS, type ParameterLocation } from "./routes.ts";
import { zodSource } from "./zod-schemas.ts";

/** The request-reader's name of each parameter location (Hono's validation targets). */
const TARGETS: Record<ParameterLocation, string> = { path: "param", query: "query", header: "header" };

/**
 * Statements that read one parameter into `out`, as the route's zod object would give it (see
 * `queryValueSource` and `headerValueSource` in `routes.ts`), or `return null` where zod must
 * decide (a refusal, or a value zod would fill in or change).
 */
function parameterStatements(writer: CheckWriter, parameter: ParameterObject, location: ParameterLocation, value: string): string[] {
  const schema = parameter.schema ?? { type: "string" };
  const name = JSON.stringify(parameter.name);
  const optional = !parameter.required && location !== "path";
  const absent = location === "header" ? `${value} === null` : `${value} === undefined`;
  const given = location === "header" ? `${value} !== null` : `${value} !== undefined`;
  // A header's value was read with the others (`headerReads`).
  const lines = location === "header" ? [] : [`const ${value} = source[${name}];`];
  const type = schema.type;
  /** `read` is what goes into `out` once the value is there; absent, it is skipped or refused. */
  const present = (checks: string[], read: string): string[] =>
    absentKept
      ? [`if (${given}) {`, ...[...checks, `out[${name}] = ${read};`].map((line) => `  ${line}`), "}"]
      : [`if (${absent}) return null;`, ...checks, `out[${name}] = ${read};`];
  let absentKept = optional;
  if ((location === "query" || location === "header") && type === "boolean") {
    return [...lines, ...present([`if (${value} !== "true" && ${value} !== "false") return null;`], `${value} === "true"`)];
  }
  const numeric = (location === "query" && (type === "integer" || type === "number")) || (location === "header" && type === "integer");
  if (numeric) {
    const number = `${value}n`;
    const text = location === "header" ? `${writer.constant(headerPattern(schema))}.test(${value})` : `typeof ${value} === "string"`;
    const bounds = [location === "query" && type === "integer" ? `Number.isSafeInteger(${number})` : `Number.isFinite(${number})`];
    if (typeof schema.minimum === "number") bounds.push(`${number} >= ${schema.minimum}`);
    if (typeof schema.maximum === "number") bounds.push(`${number} <= ${schema.maximum}`);
    return [...lines, ...present([`if (!${text}) return null;`, `const ${number} = Number(${value});`, `if (!(${bounds.join(" && ")})) return null;`], number)];
  }
  // Any other parameter is the zod schema of its own schema (`zodSource`), `.optional()` unless required.
  const outcome = writer.absentOutcome(schema);
  absentKept = optional ? outcome !== "fills" && outcome !== "unsure" : outcome === "absent";
  // A header or path value is a string already: a plain string schema needs no check.
  const plainString = location !== "query" && writer.statements(schema, value, []).length === 1 && schema.type === "string" && Object.keys(schema).every((key) => key === "type" || key === "description");
  return [...lines, ...present(plainString ? [] : [`if (!passes(${writer.functionFor(schema)}, ${value})) return null;`], value)];
}

/** A header integer's pattern (decimal digits when the document gives none), as `headerValueSource` reads it. */
function headerPattern(schema: JsonSchema): string {
  const pattern = typeof schema.pattern === "string" ? schema.pattern : "^[0-9]+$";
  return `new RegExp(${JSON.stringify(pattern)})`;
}

/** The source of one location's check, or null when the operation has no parameter there. */
function parameterCheckSource(writer: CheckWriter, parameters: ParameterObject[], location: ParameterLocation): string | null {
  const selected = locatedParameters(parameters, location);
  if (selected.length === 0) return null;
  const input = location === "header" ? "Headers" : "Record<string, string | string[] | undefined>";
  const reads = location === "header" ? headerReads(selected) : [];
  const body = selected.flatMap((parameter, index) => parameterStatements(writer, parameter, location, `p${index}`));
  return [`(source: ${input}): Record<string, unknown> | null => {`, ...[...reads, "const out: Record<string, unknown> = {};", ...body].map((line) => `  ${line}`), "  return out;", "}"].join("\n");
}

/**
 * Reads the parameter headers in one pass over the request's headers (by their lower-case
 * names, as `Headers` gives them, repeated ones joined): on Node one `get` per name costs ten
 * times as much, on Bun the same.
 */
function headerReads(selected: ParameterObject[]): string[] {
  const cases = selected.map((parameter, index) => `    case ${JSON.stringify(parameter.name.toLowerCase())}: p${index} = value; break;`);
  return [`let ${selected.map((_, index) => `p${index}: string | null = null`).join(", ")};`, "source.forEach((value, name) => {", "  switch (name) {", ...cases, "  }", "});"];
}

/** Renders the generated checks: constants, value checks, body checks and schemas, parameter checks. */
export function renderRequestChecks(document: OpenApiDocument): string {
  const writer = new CheckWriter(document.components.schemas);
  const bodies = jsonBodies(document).map(({ operationId, schema }) => {
    const check = writer.functionFor(schema);
    const zod = typeof schema.$ref === "string" ? schemaConst(refName(schema.$ref)) : zodSource(schema);
    return { operationId, check, zod };
  });

  // Parameter checks, one per distinct source (sixty proxied operations share their headers' check).
  const parameterFunctions = new Map<string, string>();
  const byOperation: string[] = [];
  for (const path of Object.keys(document.paths).sort()) {
    for (const method of HTTP_METHODS) {
      const operation = document.paths[path]?.[method];
      if (!operation) continue;
      const parameters = (operation.parameters ?? []).map((parameter) => resolve<ParameterObject>(document, parameter, "parameters"));
      const entries: string[] = [];
      for (const [, location] of PARAMETER_LOCATIONS) {
        const source = parameterCheckSource(writer, parameters, location);
        if (!source) continue;
        let name = parameterFunctions.get(source);
        if (!name) {
          name = `${location}Parameters${parameterFunctions.size + 1}`;
          parameterFunctions.set(source, name);
        }
        entries.push(`${TARGETS[location]}: ${name}`);
      }
      if (entries.length > 0) byOperation.push(`  ${operation.operationId}: { ${entries.join(", ")} },`);
    }
  }

  const zodImports = new Set<string>();
  for (const { zod } of bodies) for (const match of zod.matchAll(/\b([A-Z][A-Za-z0-9]*Schema)\b/g)) zodImports.add(match[1] as string);
  const parameterSource = [...parameterFunctions].map(([source, name]) => `const ${name} = ${source};`).join("\n\n");
  return [
    "// @ts-nocheck: the checks take any JSON value and narrow it by hand; the exports are typed.",
    'import { z } from "@hono/zod-openapi";',
    'import { codePoints, compiledBody, exactlyOne, fail, firstOf, isObject, keysAbove, nest, passes, runCheck, urlVerdict, type CheckFailure, type ParameterChecks } from "../validation/check-runtime.ts";',
    `import { ${[...zodImports].sort().join(", ")} } from "./schemas.gen.ts";`,
    "",
    writer.source(),
    "",
    ...bodies.flatMap(({ operationId, check, zod }) => [
      `/** The check of ${operationId}'s JSON body: null when it passes, else where it stopped. */`,
      `export function ${operationId}BodyCheck(value: unknown): CheckFailure[] | null {`,
      `  return runCheck(${check}, value);`,
      "}",
      `export const ${bodySchemaConst(operationId)} = compiledBody(${zod}, ${operationId}BodyCheck);`,
      "",
    ]),
    parameterSource,
    "",
    "/** Each operation's parameter checks, by the part of the request they read. */",
    "export const parameterChecks: Readonly<Record<string, ParameterChecks>> = {",
    ...byOperation,
    "};",
    "",
  ].join("\n");
}
