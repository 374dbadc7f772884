import {
  HTTP_METHODS,
  refName,
  resolve,
  schemaConst,
  type JsonSchema,
  type OpenApiDocument,
  type OperationObject,
  type ParameterObject,
  type ResponseObject,
} from "./document.ts";
import { bodySchemaConst, jsonBodies } from "./validators.ts";
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

function parametersObject(parameters: ParameterObject[], location: "query" | "path"): string | null {
  // deepObject parameters (e.g. `metadata[key]=value`) have no single query key; the route reads them.
  const selected = parameters.filter((p) => p.in === location && p.style !== "deepObject");
  if (selected.length === 0) return null;
  const fields = selected.map((parameter) => {
    const schema = parameter.schema ?? { type: "string" };
    let source = location === "query" ? queryValueSource(schema) : zodSource(schema);
    if (!parameter.required && location === "query") source += ".optional()";
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

function renderRoute(document: OpenApiDocument, method: string, path: string, operation: OperationObject): string {
  const parameters = (operation.parameters ?? []).map((p) => resolve<ParameterObject>(document, p, "parameters"));
  const request: string[] = [];
  const params = parametersObject(parameters, "path");
  if (params) request.push(`  params: ${params},`);
  const query = parametersObject(parameters, "query");
  if (query) request.push(`  query: ${query},`);
  if (operation.requestBody) {
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
  for (const path of Object.keys(document.paths).sort()) {
    const item = document.paths[path] ?? {};
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const block = renderRoute(document, method, path, operation);
      for (const match of block.matchAll(/\b([A-Z][A-Za-z0-9]*)Schema\b/g)) usedSchemas.add(`${match[1]}Schema`);
      blocks.push(block);
      operations.push(operation.operationId);
    }
  }
  const imports = [...usedSchemas].sort().join(", ");
  const bodies = jsonBodies(document).map(({ operationId }) => bodySchemaConst(operationId)).sort();
  return [
    'import { createRoute, z } from "@hono/zod-openapi";',
    `import { ${bodies.join(", ")} } from "./body-validators.gen.ts";`,
    `import { ${imports} } from "./schemas.gen.ts";`,
    "",
    ...blocks.flatMap((block) => [block, ""]),
    "/** Every operation of the document, by operationId. */",
    `export const operations = { ${operations.map((id) => `${id}: ${id}Route`).join(", ")} } as const;`,
    "",
  ].join("\n");
}
