import { OpenAPIHono } from "@hono/zod-openapi";
import type { GatewayApp, GatewayEnv } from "./app-env.ts";
import { handleError, handleNotFound, validationHook } from "./app-errors.ts";
import type { GatewayDeps } from "./deps.ts";
import { authenticate, authenticateMcp } from "./middleware/authenticate.ts";
import { limitBodySize, limitBodyTime, limitJsonShape } from "./middleware/read-body.ts";
import { googleErrors } from "./middleware/google-errors.ts";
import { registerRoutes } from "./routes/index.ts";

/** Builds the gateway's HTTP app from its services. Runs on Bun and Node alike. */
export function createApp(deps: GatewayDeps): GatewayApp {
  const app = new OpenAPIHono<GatewayEnv>({ defaultHook: validationHook });
  app.onError(handleError);
  app.notFound(handleNotFound);

  // Google's format (`/v1beta/models/…`, `/v1/models/{model}:<method>`) answers every error in
  // Google's shape, those before its routes included.
  app.use("/v1beta/*", googleErrors({ onlyGooglePaths: true }));
  app.use("/v1/models/*", googleErrors({ onlyGooglePaths: true }));
  for (const prefix of ["/v1/*", "/v1beta/*"]) {
    app.use(prefix, limitBodySize({ maxJsonBytes: deps.config.GATEWAY_MAX_BODY_BYTES, maxUploadBytes: deps.config.GATEWAY_MAX_UPLOAD_BYTES }));
    // Every /v1 and /v1beta request needs a key; each operation's scope (admin or any key) is checked on its
    // generated route, from the operation's `security` in the document.
    app.use(prefix, authenticate(deps.keys));
    // After the key check, so an unauthenticated client never makes the gateway read its body.
    app.use(prefix, limitBodyTime(deps.config.GATEWAY_BODY_TIMEOUT_MS));
    // A JSON body whose shape would stall the parse and the checks is refused from its text.
    app.use(prefix, limitJsonShape());
  }

  // The MCP gateway (`/mcp/*` matches `/mcp` too): the same limits on a body, its key as MCP clients send it.
  app.use("/mcp/*", limitBodySize({ maxJsonBytes: deps.config.GATEWAY_MAX_BODY_BYTES, maxUploadBytes: deps.config.GATEWAY_MAX_BODY_BYTES }));
  app.use("/mcp/*", authenticateMcp(deps.keys));
  app.use("/mcp/*", limitBodyTime(deps.config.GATEWAY_BODY_TIMEOUT_MS));
  app.use("/mcp/*", limitJsonShape());

  registerRoutes(app, deps);
  return app;
}
