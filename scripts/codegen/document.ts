/** The parts of an OpenAPI 3.1 document that code generation reads. */
export type JsonSchema = Record<string, unknown> & { $ref?: string };

export interface ParameterObject {
  name: string;
  in: "query" | "path" | "header" | "cookie";
  required?: boolean;
  style?: string;
  schema?: JsonSchema;
  description?: string;
}

export interface MediaType {
  schema?: JsonSchema;
}

export interface ResponseObject {
  description: string;
  content?: Record<string, MediaType>;
}

export interface OperationObject {
  operationId: string;
  summary?: string;
  parameters?: Array<ParameterObject | { $ref: string }>;
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, ResponseObject | { $ref: string }>;
  /** Security requirements: each maps a scheme name to the roles it needs. */
  security?: Array<Record<string, string[]>>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components: {
    schemas: Record<string, JsonSchema>;
    parameters?: Record<string, ParameterObject>;
    responses?: Record<string, ResponseObject>;
  };
}

export const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** Name of a component from a local `$ref`, e.g. `#/components/schemas/Foo` → `Foo`. */
export function refName(ref: string): string {
  const name = ref.split("/").pop();
  if (!name) throw new Error(`Bad $ref: ${ref}`);
  return name;
}

export function schemaConst(name: string): string {
  return `${name}Schema`;
}

/** Resolves a `$ref` to a component of the given section, or returns the object itself. */
export function resolve<T>(document: OpenApiDocument, item: T | { $ref: string }, section: "parameters" | "responses"): T {
  if (item && typeof item === "object" && "$ref" in item && typeof item.$ref === "string") {
    const found = document.components[section]?.[refName(item.$ref)];
    if (!found) throw new Error(`Unresolved ${item.$ref}`);
    return found as T;
  }
  return item as T;
}

/** Operations with a JSON request body, in a stable order, each with its body schema. */
export function jsonBodies(document: OpenApiDocument): Array<{ operationId: string; schema: JsonSchema }> {
  const bodies: Array<{ operationId: string; schema: JsonSchema }> = [];
  for (const path of Object.keys(document.paths).sort()) {
    for (const method of HTTP_METHODS) {
      const operation = document.paths[path]?.[method];
      const schema = operation?.requestBody?.content["application/json"]?.schema;
      if (operation && schema) bodies.push({ operationId: operation.operationId, schema });
    }
  }
  return bodies;
}

/** Name of the generated zod schema that validates an operation's JSON body. */
export function bodySchemaConst(operationId: string): string {
  return `${operationId}Body`;
}
