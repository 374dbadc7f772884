import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { registerCreateApiKey } from "./createApiKey.ts";
import { registerCreateChatCompletion } from "./createChatCompletion.ts";
import { registerDeleteApiKey } from "./deleteApiKey.ts";
import { registerGetApiReference } from "./getApiReference.ts";
import { registerGetHealth } from "./getHealth.ts";
import { registerGetLog } from "./getLog.ts";
import { registerGetOpenApiDocument } from "./getOpenApiDocument.ts";
import { registerListApiKeys } from "./listApiKeys.ts";
import { registerListLogs } from "./listLogs.ts";

/** Every operation of openapi/gateway.yaml; a test checks this set against the document. */
export function registerRoutes(app: GatewayApp, deps: GatewayDeps): void {
  registerGetHealth(app, deps);
  registerGetOpenApiDocument(app);
  registerGetApiReference(app);
  registerCreateChatCompletion(app, deps);
  registerCreateApiKey(app, deps);
  registerListApiKeys(app, deps);
  registerDeleteApiKey(app, deps);
  registerListLogs(app, deps);
  registerGetLog(app, deps);
}
