import fc from "fast-check";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { openApiDocument } from "../generated/openapi-document.gen.ts";
import * as checks from "../generated/request-checks.gen.ts";
import * as routes from "../generated/routes.gen.ts";
import * as schemas from "../generated/schemas.gen.ts";
import { mutated, mutation, valueOf, type Schema } from "../../test/support/schema-arbitrary.ts";
import type { CheckFailure } from "./check-runtime.ts";

/**
 * The generated body checks against zod, for every JSON body of the document: bodies made from
 * each schema (valid as JSON Schema reads it) and bodies broken in one place (another type, a
 * number out of range, a key added or removed, a string too long, a bad format, a null).
 * Whatever the body: a check that passes means zod passes and returns the body unchanged; a
 * final refusal means zod refuses; and the route's schema (check, then zod on a refusal)
 * answers exactly as zod alone does.
 */

type Operation = { operationId: string; tags?: string[]; requestBody?: { content: Record<string, { schema?: { $ref?: string } }> } };
const document = openApiDocument as unknown as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
const bodies = operations.flatMap((operation) => {
  const ref = operation.requestBody?.content["application/json"]?.schema?.$ref;
  return ref ? [{ operationId: operation.operationId, proxied: operation.tags?.includes("Inference") === true, component: ref.split("/").pop()! }] : [];
});

const ajv = new Ajv2020({ strict: false, validateFormats: true });
addFormats.default(ajv);
ajv.addSchema({ $id: "doc", components: document.components });
/** The document's own verdict on a body (JSON Schema, formats included). */
const documentAccepts = (component: string, value: unknown) => {
  const validate = ajv.getSchema(`doc#/components/schemas/${component}`);
  if (!validate) throw new Error(`no schema ${component}`);
  return validate(value) as boolean;
};

const asJson = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

interface Verdicts {
  failures: CheckFailure[] | null;
  zod: z.ZodSafeParseResult<unknown>;
}

/** Stops a property with a short account of the body (a diff of a large body would take minutes to print). */
function agree(holds: boolean, what: string, context: Record<string, unknown>): void {
  if (!holds) throw new Error(`${what}: ${JSON.stringify(context).slice(0, 3_000)}`);
}

/** Compares the check, the route's schema and zod on one body; returns what each said. */
function compare(operationId: string, component: string, value: unknown): Verdicts {
  const check = (checks as unknown as Record<string, (value: unknown) => CheckFailure[] | null>)[`${operationId}BodyCheck`]!;
  const route = (checks as unknown as Record<string, z.ZodType>)[`${operationId}Body`]!;
  const reference = (schemas as unknown as Record<string, z.ZodType>)[`${component}Schema`]!;
  const zod = reference.safeParse(structuredClone(value));
  const failures = check(value);
  const context = () => ({ operationId, failures, zodIssues: zod.error?.issues.slice(0, 3), value });
  if (failures === null) {
    agree(zod.success, "the check passed a body zod refuses", context());
    agree(isDeepStrictEqual(zod.data, value), "the check passed a body zod changes", { ...context(), zodData: zod.data });
  } else if (failures[failures.length - 1]!.final) {
    agree(!zod.success, "the check refused for sure a body zod passes", context());
  }
  const answer = route.safeParse(structuredClone(value));
  agree(answer.success === zod.success, "the route answered otherwise than zod", { ...context(), route: answer.error?.issues.slice(0, 3) });
  if (answer.success) agree(isDeepStrictEqual(answer.data, zod.data), "the route returned another value than zod", context());
  return { failures, zod };
}

const RUNS = { proxied: { valid: 120, broken: 250 }, other: { valid: 40, broken: 80 } };

describe("generated request body checks", () => {
  it("cover every proxied operation's JSON body", () => {
    expect(bodies.filter((body) => body.proxied).map((body) => body.operationId)).toEqual(
      expect.arrayContaining(["createChatCompletion", "createCompletion", "createEmbedding", "createResponse", "createImage", "createSpeech", "createModeration", "createMessage", "createBatch", "createUpload", "createFineTuningJob", "createVectorStore", "createVideo"]),
    );
  });

  for (const { operationId, component, proxied } of bodies) {
    const runs = proxied ? RUNS.proxied : RUNS.other;
    const valid = valueOf(document.components.schemas[component]!, document.components.schemas).map(asJson);

    it(`${operationId}: agree with zod on bodies the document allows, and take them without zod`, () => {
      let fast = 0;
      let allowed = 0;
      fc.assert(
        fc.property(valid, (value) => {
          const { failures, zod } = compare(operationId, component, value);
          if (!documentAccepts(component, value)) return;
          allowed += 1;
          // Never stricter than the document: zod takes what it allows, and so does the check unless zod must decide.
          agree(zod.success, "zod refused a body the document allows", { operationId, value, issues: zod.error?.issues.slice(0, 3) });
          if (failures === null) fast += 1;
          else agree(!failures[failures.length - 1]!.final, "the check refused for sure a body the document allows", { operationId, value, failures });
        }),
        { numRuns: runs.valid, endOnFailure: true },
      );
      // Bodies of the proxied operations pass on the check alone: zod is not run on the way that passes.
      if (!proxied) return;
      expect(allowed, `${operationId}: valid bodies made`).toBeGreaterThan(runs.valid / 2);
      expect(fast, `${operationId}: ${fast} of ${allowed} valid bodies passed the check alone`).toBe(allowed);
    });

    it(`${operationId}: agree with zod on bodies broken in one place`, () => {
      let refused = 0;
      let final = 0;
      fc.assert(
        fc.property(valid, fc.nat(), mutation, (value, pick, change) => {
          const { failures, zod } = compare(operationId, component, asJson(mutated(value, pick, change)));
          if (!zod.success) refused += 1;
          if (failures && failures[failures.length - 1]!.final) final += 1;
        }),
        { numRuns: runs.broken, endOnFailure: true },
      );
      expect(refused, `${operationId}: bodies zod refused`).toBeGreaterThan(0);
      // A proxied body's refusal is the check's own: zod only words it, on a sample.
      if (proxied) expect(final, `${operationId}: of ${refused} bodies zod refused, ${final} refused for sure by the check`).toBe(refused);
    });
  }
});

/**
 * The generated parameter checks against the routes' zod objects, for every operation: path
 * parameters, query and headers, with values good and bad (URLs with and without spaces, digits
 * in and out of range, words for booleans, long and empty strings). A check that reads a part
 * gives what zod gives; where it returns null, zod decides.
 */
describe("generated parameter checks", () => {
  type Parameter = { name: string; in: string; schema?: Record<string, unknown>; style?: string };
  const components = (openApiDocument as unknown as { components: { parameters: Record<string, Parameter> } }).components.parameters;
  const parametersOf = (operation: Operation & { parameters?: Array<Parameter | { $ref: string }> }) =>
    (operation.parameters ?? []).map((parameter) => ("$ref" in parameter ? components[parameter.$ref.split("/").pop()!]! : parameter));

  const edgeValue = fc.constantFrom("", "openai", "http://127.0.0.1:9/v1", "https://example.com/v1", " https://example.com/v1", "https://exa\tmple.com", "not a url", "ftp://x", "0", "1", "-1", "1.5", "3600000", "3600001", "12x", " 12", "1e3", "true", "false", "TRUE", "asc", "in_progress", "6f1f4a0e-4b7e-4c1a-9a53-0e0b2f6d8c11", "2024-01-02", "2024-01-02T03:04:05Z");
  const latin1 = fc.string({ unit: fc.constantFrom(..."abcXYZ019 -_./:\t\u00e9"), maxLength: 140 });
  const value = fc.oneof(edgeValue, latin1, fc.string({ unit: fc.constantFrom(..."ab1"), minLength: 120, maxLength: 300 }), fc.integer({ min: -5, max: 5_000_000 }).map(String));

  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Array<Operation & { parameters?: Array<Parameter | { $ref: string }> }>) {
      const compiled = checks.parameterChecks[operation.operationId];
      if (!compiled) continue;
      const route = (routes.operations as unknown as Record<string, { request: Record<string, z.ZodType | undefined> }>)[operation.operationId]!;
      const parameters = parametersOf(operation);
      for (const [target, key, location] of [["param", "params", "path"], ["query", "query", "query"], ["header", "headers", "header"]] as const) {
        const check = compiled[target];
        const schema = route.request[key];
        if (!check) continue;
        const names = parameters.filter((parameter) => parameter.in === location && parameter.style !== "deepObject").map((parameter) => parameter.name);
        it(`${operation.operationId}: reads the ${location} parameters as its zod object does`, () => {
          expect(schema, "the route's zod object").toBeDefined();
          const sent = location === "query" ? fc.dictionary(fc.constantFrom(...names), fc.oneof(value, fc.array(value, { minLength: 2, maxLength: 3 }))) : fc.dictionary(fc.constantFrom(...names), value);
          fc.assert(
            fc.property(sent, (values) => {
              let read: Record<string, unknown> | null;
              let input: Record<string, unknown>;
              if (location === "header") {
                let headers: Headers;
                try {
                  headers = new Headers(values as Record<string, string>);
                } catch {
                  return;
                }
                read = (check as (headers: Headers) => Record<string, unknown> | null)(headers);
                input = Object.fromEntries(names.filter((name) => headers.has(name)).map((name) => [name, headers.get(name)]));
              } else {
                read = (check as (source: Record<string, unknown>) => Record<string, unknown> | null)(values);
                input = values;
              }
              const zod = schema!.safeParse(input);
              if (read !== null) agree(zod.success && isDeepStrictEqual(read, zod.data), "the check read parameters otherwise than zod", { operationId: operation.operationId, location, values, read, zod: zod.success ? zod.data : zod.error.issues });
            }),
            { numRuns: 150, endOnFailure: true },
          );
        });
      }
    }
  }

  it("read the gateway headers of a typical request without zod, numbers and flags as zod gives them", () => {
    const header = checks.parameterChecks.createChatCompletion!.header!;
    const read = header(new Headers({ "x-gateway-provider": "openai", authorization: "Bearer sk-x", "x-gateway-custom-host": "http://127.0.0.1:9/v1", "x-gateway-request-timeout": "2500", "x-gateway-cache-force-refresh": "true", "x-unlisted": "dropped" }));
    expect(read).toEqual({ "x-gateway-provider": "openai", Authorization: "Bearer sk-x", "x-gateway-custom-host": "http://127.0.0.1:9/v1", "x-gateway-request-timeout": 2500, "x-gateway-cache-force-refresh": true });
    // zod decides what the check cannot give as zod would: a refusal, a URL zod would trim.
    expect(header(new Headers({ "x-gateway-request-timeout": "0" }))).toBeNull();
    expect(header(new Headers({ "x-gateway-custom-host": "https://exa\tmple.com" }))).toBeNull();
    expect(checks.parameterChecks.listFiles!.query!({ limit: "20", order: "asc", after: "file-1" })).toEqual({ limit: 20, order: "asc", after: "file-1" });
  });
});
