import type { OpenApiDocument, OperationObject } from "./document.ts";
import { HTTP_METHODS } from "./document.ts";
import { registerFunctionName } from "./route-modules.ts";

/** The document's proxied operations (tagged `Inference`), by operationId. */
export function proxiedOperations(document: OpenApiDocument): Map<string, OperationObject> {
  const found = new Map<string, OperationObject>();
  for (const item of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as (OperationObject & { tags?: string[] }) | undefined;
      if (operation?.tags?.includes("Inference")) found.set(operation.operationId, operation);
    }
  }
  return found;
}

/**
 * The first version of a proxied operation's route file, written by `npm run codegen` when the
 * document gains an operation without one: the operation proxied as the document declares it, its
 * answer read as plain JSON and priced by the tokens its `usage` reports. Its author then names
 * what it means (its family's reader, cache rule, guardrail text…): `docs/development.md`.
 */
export function renderRouteFile(operation: OperationObject): string {
  const id = operation.operationId;
  const json = operation.requestBody?.content["application/json"] !== undefined;
  const summary = (operation.summary ?? id).replace(/\*\//g, "* /");
  return [
    `import { ${id}Route } from "../generated/routes.gen.ts";`,
    ...(json ? ['import { jsonFieldOverrides } from "../operation/field-overrides.ts";'] : []),
    'import { proxiedOperation, proxiedRoute } from "./proxy/proxied-route.ts";',
    "",
    "/**",
    ` * ${summary}.`,
    " * Proxied as the document declares it; the log reads its answer as plain JSON.",
    " */",
    `export const ${id}Operation = proxiedOperation(${id}Route, {${json ? "\n  overrides: jsonFieldOverrides,\n" : ""}});`,
    "",
    `export const ${registerFunctionName(id)} = proxiedRoute(${id}Route, ${id}Operation);`,
    "",
  ].join("\n");
}
