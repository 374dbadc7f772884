import {
  bodySchemaConst,
  HTTP_METHODS,
  jsonBodies,
  refName,
  resolve,
  schemaConst,
  type JsonSchema,
  type OpenApiDocument,
  type OperationObject,
  type ParameterObject,
  type ResponseObject,
} from "./document.ts";
import { zodSource } from "./zod-schemas.ts";

/** Query strings arrive as text: numbers and booleans are coerced, everything else is converted as is. */
function queryValueSource(schema: JsonSchema): string {
  const type = schema.type;
  if (type === "integer" || type === "number") {
    let source = type === "integer" ? "z.coerce.number().int()" : "z.coerce.number()";
    if (typeof schema.minimum === "number") source += `.min(${schema.minimum})`;
    if (typeof schema.maximum === "number") source += `.max(${schema.maximum})`;
    return source;
  }
  if (type === "boolean") return 'z.enum(["true", "false"]).transform((value) => value === "true")';
  return zodSource(schema);
}

/**
 * Headers arrive as text. A boolean header is `true` or `false`, as in a query. An integer header is read strictly: the document's pattern (decimal
 * digits when it gives none), then the number within its bounds; one message states the whole rule.
 */
function headerValueSource(schema: JsonSchema): string {
  if (schema.type === "boolean") return queryValueSource(schema);
  if (schema.type !== "integer") return zodSource(schema);
  const pattern = typeof schema.pattern === "string" ? schema.pattern : "^[0-9]+$";
  const min = typeof schema.minimum === "number" ? schema.minimum : null;
  const max = typeof schema.maximum === "number" ? schema.maximum : null;
  const range = min !== null && max !== null ? ` from ${min} to ${max}` : min !== null ? ` of at least ${min}` : max !== null ? ` of at most ${max}` : "";
  const message = JSON.stringify(`must be a whole number${range}, in decimal digits`);
  let number = `z.number()`;
  if (min !== null) number += `.min(${min}, ${message})`;
  if (max !== null) number += `.max(${max}, ${message})`;
  return `z.string().regex(new RegExp(${JSON.stringify(pattern)}), ${message}).transform(Number).pipe(${number})`;
}

/** Path segments arrive as text: an integer is read strictly, as a header's is; everything else as is. */
function pathValueSource(schema: JsonSchema): string {
  return schema.type === "integer" ? headerValueSource(schema) : zodSource(schema);
}

const valueSource = { query: queryValueSource, path: pathValueSource, header: headerValueSource };

/** The parameters of one location that its zod object holds. */
export function locatedParameters(parameters: ParameterObject[], location: ParameterLocation): ParameterObject[] {
  // deepObject parameters (e.g. `metadata[key]=value`) have no single query key; the route reads them.
  return parameters.filter((p) => p.in === location && p.style !== "deepObject");
}

export type ParameterLocation = keyof typeof valueSource;

/**
 * The zod object of one parameter location. Header objects keep zod's default of ignoring
 * unknown keys (requests carry many other headers); the validator matches names case-insensitively.
 */
function parametersObject(parameters: ParameterObject[], location: ParameterLocation): string | null {
  const selected = locatedParameters(parameters, location);
  if (selected.length === 0) return null;
  const fields = selected.map((parameter) => {
    let source = valueSource[location](parameter.schema ?? { type: "string" });
    if (!parameter.required && location !== "path") source += ".optional()";
    return `    ${JSON.stringify(parameter.name)}: ${source},`;
  });
  return `z.object({\n${fields.join("\n")}\n  })`;
}

function schemaSource(schema: JsonSchema | undefined): string {
  if (!schema) return "z.unknown()";
  if (typeof schema.$ref === "string") return schemaConst(refName(schema.$ref));
  return zodSource(schema);
}

function contentSource(content: Record<string, { schema?: JsonSchema }>, jsonBody?: string): string {
  const entries = Object.entries(content).map(
    ([mediaType, media]) =>
      `${JSON.stringify(mediaType)}: { schema: ${jsonBody && mediaType === "application/json" && media.schema ? jsonBody : schemaSource(media.schema)} }`,
  );
  return `{ ${entries.join(", ")} }`;
}

/**
 * The gateway scope an operation needs, from its own `security` (never the document-wide
 * default, so a new operation cannot get one by accident): `[]` needs no key,
 * `[{ gatewayApiKey: [] }]` any gateway key, `[{ gatewayApiKey: [admin] }]` an admin key.
 */
export function operationScope(operation: OperationObject): "none" | "service" | "admin" {
  const { security, operationId } = operation;
  if (!security) throw new Error(`${operationId}: state its security (none, any gateway key, or admin).`);
  if (security.length === 0) return "none";
  // Alternatives name the same key sent two ways (`x-gateway-api-key`, or a bearer token for MCP clients) with the same roles.
  const roles = security.map((requirement) => {
    const schemes = Object.keys(requirement);
    return schemes.length === 1 && GATEWAY_KEY_SCHEMES.has(schemes[0]!) ? requirement[schemes[0]!]!.join(",") : null;
  });
  if (roles.every((role) => role === "")) return "service";
  if (roles.every((role) => role === "admin")) return "admin";
  throw new Error(`${operationId}: security must be [], [{ gatewayApiKey: [] }] or [{ gatewayApiKey: [admin] }] (with gatewayBearer as an alternative).`);
}

/** The security schemes that carry a gateway key. */
const GATEWAY_KEY_SCHEMES: ReadonlySet<string> = new Set(["gatewayApiKey", "gatewayBearer"]);

/**
 * A JSON body declared without a schema: its route reads and checks it itself (an MCP message,
 * answered in JSON-RPC's own errors), so it gets no body validator, only the `Content-Type` check.
 */
export function unvalidatedMediaTypes(operation: OperationObject): string[] | null {
  const content = operation.requestBody?.content ?? {};
  const types = Object.keys(content);
  return types.length > 0 && types.every(isJsonMediaType) && types.every((type) => content[type]?.schema === undefined) ? types : null;
}

/**
 * The media types of a body that streams upstream unread: an operation's request body when
 * none of its media types is JSON (a multipart upload). Its route gets no body validator,
 * which would parse the form whole, but a check of the `Content-Type` header
 * (`requireMediaType`); the document still describes the form to clients. Null otherwise.
 */
export function streamedMediaTypes(operation: OperationObject): string[] | null {
  const types = Object.keys(operation.requestBody?.content ?? {});
  if (types.length === 0 || types.some(isJsonMediaType)) return null;
  return types;
}

/**
 * The media types of a body the client may send as JSON or as a form (a video job with or
 * without a reference image), or null. Its route validates a JSON body and checks a form's
 * `Content-Type` alone: the form is declared without a zod schema, so it is never parsed, and
 * the JSON validator is optional, so it runs only when the body is JSON.
 */
export function eitherMediaTypes(operation: OperationObject): string[] | null {
  const types = Object.keys(operation.requestBody?.content ?? {});
  return types.some(isJsonMediaType) && !types.every(isJsonMediaType) ? types : null;
}

function isJsonMediaType(type: string): boolean {
  return /^application\/([a-z.-]+\+)?json$/i.test(type);
}

/** A mixed body's content: the JSON validator, and the other media types declared schema-less. */
function eitherContentSource(content: Record<string, unknown>, jsonBody: string): string {
  const entries = Object.keys(content).map((mediaType) => `${JSON.stringify(mediaType)}: { schema: ${isJsonMediaType(mediaType) ? jsonBody : "{}"} }`);
  return `{ ${entries.join(", ")} }`;
}

/** Each parameter location: the key of the route's `request`, and the name of its shared objects. */
export const PARAMETER_LOCATIONS = [
  ["params", "path", "sharedPathParameters"],
  ["query", "query", "sharedQueryParameters"],
  ["headers", "header", "sharedHeaderParameters"],
] as const;

/** An operation's parameter objects, by the key its route's `request` gives them. */
function parameterObjects(document: OpenApiDocument, operation: OperationObject): Array<{ key: string; sharedName: string; source: string }> {
  const parameters = (operation.parameters ?? []).map((p) => resolve<ParameterObject>(document, p, "parameters"));
  const objects: Array<{ key: string; sharedName: string; source: string }> = [];
  for (const [key, location, sharedName] of PARAMETER_LOCATIONS) {
    const source = parametersObject(parameters, location);
    if (source) objects.push({ key, sharedName, source });
  }
  return objects;
}

/** A parameter object several operations have alike (the gateway headers of every proxied operation). */
interface SharedParameters {
  name: string;
  source: string;
  operations: string[];
}

/**
 * The parameter objects two or more operations have alike, each built once: zod schemas are
 * immutable, and each instance costs the process memory for as long as it runs, so sixty
 * routes' identical header objects are one object, not sixty.
 */
function sharedParameters(document: OpenApiDocument, operations: OperationObject[]): Map<string, SharedParameters> {
  const users = new Map<string, { sharedName: string; operations: string[] }>();
  for (const operation of operations) {
    for (const { sharedName, source } of parameterObjects(document, operation)) {
      const entry = users.get(source) ?? { sharedName, operations: [] };
      entry.operations.push(operation.operationId);
      users.set(source, entry);
    }
  }
  const shared = new Map<string, SharedParameters>();
  const counts = new Map<string, number>();
  for (const [source, { sharedName, operations: sharing }] of users) {
    if (sharing.length < 2) continue;
    const n = (counts.get(sharedName) ?? 0) + 1;
    counts.set(sharedName, n);
    shared.set(source, { name: `${sharedName}${n}`, source, operations: sharing });
  }
  return shared;
}

function renderRoute(document: OpenApiDocument, method: string, path: string, operation: OperationObject, shared: ReadonlyMap<string, SharedParameters>): string {
  const request: string[] = [];
  for (const { key, source } of parameterObjects(document, operation)) request.push(`  ${key}: ${shared.get(source)?.name ?? source},`);
  const streamed = streamedMediaTypes(operation) ?? unvalidatedMediaTypes(operation);
  const either = eitherMediaTypes(operation);
  const checkedTypes = streamed ?? either;
  if (operation.requestBody && either) {
    request.push(`  body: { required: false, content: ${eitherContentSource(operation.requestBody.content, bodySchemaConst(operation.operationId))} },`);
  } else if (operation.requestBody && !streamed) {
    request.push(
      `  body: { required: ${operation.requestBody.required === true}, content: ${contentSource(operation.requestBody.content, bodySchemaConst(operation.operationId))} },`,
    );
  }
  const responses = Object.entries(operation.responses).map(([status, item]) => {
    const response = resolve<ResponseObject>(document, item, "responses");
    const content = response.content ? `, content: ${contentSource(response.content)}` : "";
    const key = /^\d+$/.test(status) ? status : JSON.stringify(status);
    return `    ${key}: { description: ${JSON.stringify(response.description)}${content} },`;
  });
  return [
    `export const ${operation.operationId}Route = createRoute({`,
    `  operationId: ${JSON.stringify(operation.operationId)},`,
    `  method: ${JSON.stringify(method)},`,
    `  path: ${JSON.stringify(path)},`,
    checkedTypes
      ? `  middleware: [requireScope(${JSON.stringify(operationScope(operation))}), requireMediaType(${JSON.stringify(checkedTypes)})],`
      : `  middleware: requireScope(${JSON.stringify(operationScope(operation))}),`,
    ...(request.length > 0 ? [`  request: {`, ...request.map((line) => `  ${line}`), `  },`] : []),
    `  responses: {`,
    ...responses,
    `  },`,
    `});`,
  ].join("\n");
}

/** Renders `src/generated/routes.gen.ts`: one `createRoute` per operation, plus the list of all of them. */
export function renderRoutes(document: OpenApiDocument): string {
  const operations: string[] = [];
  const blocks: string[] = [];
  const usedSchemas = new Set<string>();
  const routes: Array<[string, string, OperationObject]> = [];
  for (const path of Object.keys(document.paths).sort()) {
    const item = document.paths[path] ?? {};
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation) routes.push([method, path, operation]);
    }
  }
  const shared = sharedParameters(
    document,
    routes.map(([, , operation]) => operation),
  );
  for (const [method, path, operation] of routes) {
    const block = renderRoute(document, method, path, operation, shared);
    for (const match of block.matchAll(/\b([A-Z][A-Za-z0-9]*)Schema\b/g)) usedSchemas.add(`${match[1]}Schema`);
    blocks.push(block);
    operations.push(operation.operationId);
  }
  const sharedBlocks = [...shared.values()].map(({ name, source, operations: sharing }) => `/** Shared by ${sharing.join(", ")}. */\nconst ${name} = ${source.replace(/\n  \}\)$/, "\n})")};`);
  const imports = [...usedSchemas].sort().join(", ");
  const bodies = jsonBodies(document).map(({ operationId }) => bodySchemaConst(operationId)).sort();
  return [
    'import { createRoute, z } from "@hono/zod-openapi";',
    `import { ${bodies.join(", ")} } from "./request-checks.gen.ts";`,
    ...(blocks.some((block) => block.includes("requireMediaType(")) ? ['import { requireMediaType } from "../middleware/require-media-type.ts";'] : []),
    'import { requireScope } from "../middleware/authenticate.ts";',
    `import { ${imports} } from "./schemas.gen.ts";`,
    "",
    ...sharedBlocks.flatMap((block) => [block, ""]),
    ...blocks.flatMap((block) => [block, ""]),
    "/** Every operation of the document, by operationId. */",
    `export const operations = { ${operations.map((id) => `${id}: ${id}Route`).join(", ")} } as const;`,
    "",
  ].join("\n");
}
