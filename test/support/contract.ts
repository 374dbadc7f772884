import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { openApiDocument } from "../../src/generated/openapi-document.gen.ts";

type Doc = { paths: Record<string, Record<string, any>>; components: Record<string, any> };

function validatorFor(document: Doc, id: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: id, components: document.components }, id);
  return (schemaRef: string, value: unknown): string[] => {
    const validate = ajv.getSchema(`${id}${schemaRef}`) ?? ajv.compile({ $ref: `${id}${schemaRef}` });
    if (validate(value)) return [];
    return (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message}`);
  };
}

const gatewayDoc = openApiDocument as unknown as Doc;
const validateGateway = validatorFor(gatewayDoc, "gateway.json");

/** Problems of a response body against the gateway's own document (operation + status); empty when it conforms. */
export function gatewayContractProblems(operationId: string, status: number, body: unknown): string[] {
  for (const item of Object.values(gatewayDoc.paths)) {
    for (const operation of Object.values(item)) {
      if (operation.operationId !== operationId) continue;
      let response = operation.responses[String(status)] ?? operation.responses.default;
      if (!response) return [`status ${status} is not documented for ${operationId}`];
      if (response.$ref) response = gatewayDoc.components.responses[response.$ref.split("/").pop()];
      const schema = response.content?.["application/json"]?.schema;
      if (!schema) return [`no JSON schema documented for ${operationId} ${status}`];
      if (schema.$ref) return validateGateway(`#/components/schemas/${schema.$ref.split("/").pop()}`, body);
      const ajv = new Ajv2020({ strict: false });
      return ajv.validate(schema, body) ? [] : (ajv.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
    }
  }
  return [`unknown operation ${operationId}`];
}

/**
 * The official document still carries OpenAPI 3.0 `nullable: true` beside `$ref`/`anyOf`
 * and beside `enum`, which JSON Schema 2020-12 does not know: rewrite it as a null type or branch.
 * Its 3.0 boolean `exclusiveMinimum`/`exclusiveMaximum` (fine-tuning hyperparameters) become
 * the 2020-12 numeric bound.
 */
function liftNullable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(liftNullable);
  if (!value || typeof value !== "object") return value;
  const { nullable, ...rest } = value as Record<string, unknown>;
  const lifted = Object.fromEntries(Object.entries(rest).map(([key, item]) => [key, liftNullable(item)]));
  for (const [exclusive, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
    if (typeof lifted[exclusive] !== "boolean") continue;
    if (lifted[exclusive] === true) lifted[exclusive] = lifted[bound];
    else delete lifted[exclusive];
    if (lifted[exclusive] !== undefined) delete lifted[bound];
  }
  if (nullable !== true) return lifted;
  if (!("type" in lifted)) return { anyOf: [lifted, { type: "null" }] };
  const types = Array.isArray(lifted.type) ? lifted.type : [lifted.type];
  const nullableSchema: Record<string, unknown> = { ...lifted, type: [...types, "null"] };
  if (Array.isArray(lifted.enum)) nullableSchema.enum = [...lifted.enum, null];
  return nullableSchema;
}

let officialValidator: ((schemaRef: string, value: unknown) => string[]) | null = null;

/** Problems of a body against a schema of the official OpenAI document in ../shared/reference. */
export function openaiContractProblems(schemaName: string, body: unknown): string[] {
  if (!officialValidator) {
    const path = new URL("../../../shared/reference/openai-openapi.yaml", import.meta.url);
    const document = parseYaml(readFileSync(path, "utf8"), { maxAliasCount: -1 }) as Doc;
    officialValidator = validatorFor(liftNullable(document) as Doc, "openai.json");
  }
  return officialValidator(`#/components/schemas/${schemaName}`, body);
}
