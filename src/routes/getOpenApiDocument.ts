import { getOpenApiDocumentRoute } from "../generated/routes.gen.ts";
import { openApiDocument } from "../generated/openapi-document.gen.ts";
import type { GatewayApp } from "../app-env.ts";

/** Serves the committed OpenAPI document itself: the source of truth, not a re-derivation. */
export function registerGetOpenApiDocument(app: GatewayApp): void {
  app.openapi(getOpenApiDocumentRoute, (c) => c.json(openApiDocument as unknown as Record<string, unknown>, 200));
}
