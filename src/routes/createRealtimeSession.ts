import { createRealtimeSessionRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import { loggedRoute, proxyDeps, targetHeaders } from "./proxy/proxy-route.ts";
import { openRealtimeSession } from "../pipeline/realtime-open.ts";
import { logHeadersHook } from "../middleware/log-requests.ts";

/**
 * A realtime session over WebSocket (`pipeline/realtime-open.ts`). The entry points lend the app the
 * upgrade (the `realtime` binding); a request that is no WebSocket upgrade, or reaches the app
 * without that binding, is answered 426.
 */
export function registerCreateRealtimeSession(app: GatewayApp, deps: GatewayDeps): void {
  const core = proxyDeps(deps);
  app.openapi(
    loggedRoute(createRealtimeSessionRoute, deps),
    async (c) => {
      const runtime = c.env?.realtime;
      if (c.req.header("upgrade")?.toLowerCase() !== "websocket" || !runtime) {
        throw new GatewayError("upgrade_required", "GET /v1/realtime opens a WebSocket: send Connection: Upgrade and Upgrade: websocket.");
      }
      // Checked before the upstream session opens, so a handshake that cannot succeed costs nothing upstream.
      if (!/^[A-Za-z0-9+/]{22}==$/.test(c.req.header("sec-websocket-key") ?? "") || c.req.header("sec-websocket-version") !== "13") {
        throw new GatewayError("invalid_request", "A WebSocket upgrade needs a Sec-WebSocket-Key and Sec-WebSocket-Version: 13.", { param: "Sec-WebSocket-Key" });
      }
      const headers = c.req.valid("header");
      const exchange = c.get("exchange");
      const result = await openRealtimeSession(
        {
          model: c.req.valid("query").model,
          headers: targetHeaders(headers, (name) => c.req.header(name)),
          beta: headers["OpenAI-Beta"],
          protocols: headers["Sec-WebSocket-Protocol"],
          workspaceId: c.get("auth").workspaceId,
          metadata: exchange.facts.metadata,
          logId: exchange.id,
          traceId: exchange.traceId,
        },
        { ...core, runtime, sessions: deps.realtime, upstreamTls: deps.upstreamTls, addressesForConnect: deps.addressesForConnect },
      );
      if (!result.ok) {
        exchange.handOver(result.error.outcome);
        throw result.error.error;
      }
      exchange.handOver(result.value.outcome, result.value.ended);
      // The runtime has upgraded the connection; this answer is not sent.
      return c.body(null, 200) as never;
    },
    logHeadersHook,
  );
}
