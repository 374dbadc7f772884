import { OpenAPIHono } from "@hono/zod-openapi";
import type { GatewayApp, GatewayEnv } from "./app-env.ts";
import { handleError, handleNotFound, validationHook } from "./app-errors.ts";
import type { GatewayDeps } from "./deps.ts";
import { authenticate } from "./middleware/authenticate.ts";
import { limitBodySize } from "./middleware/limit-body-size.ts";
import { logRequests } from "./middleware/log-requests.ts";
import { registerRoutes } from "./routes/index.ts";

/** Builds the gateway's HTTP app from its services. Runs on Bun and Node alike. */
export function createApp(deps: GatewayDeps): GatewayApp {
  const app = new OpenAPIHono<GatewayEnv>({ defaultHook: validationHook });
  app.onError(handleError);
  app.notFound(handleNotFound);

  app.use("/v1/*", limitBodySize(deps.config.GATEWAY_MAX_BODY_BYTES));
  // Every /v1 request needs a key; each operation's scope (admin or any key) is checked on its
  // generated route, from the operation's `security` in the document.
  app.use("/v1/*", authenticate(deps.keys));
  app.use("/v1/chat/completions", logRequests({ writer: deps.logWriter, inflight: deps.inflight, route: "createChatCompletion", maxBodyBytes: deps.config.GATEWAY_MAX_LOGGED_BODY_BYTES }));
  app.use("/v1/prompts/:id/completions", logRequests({ writer: deps.logWriter, inflight: deps.inflight, route: "createPromptCompletion", maxBodyBytes: deps.config.GATEWAY_MAX_LOGGED_BODY_BYTES }));

  registerRoutes(app, deps);
  return app;
}
