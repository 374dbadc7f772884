/// <reference types="bun" />
import { startupConfig, startupOpen, startupUpstreamTls } from "./startup-config.ts";
import { createGateway } from "../gateway.ts";
import { startupBanner } from "./banner.ts";
import { onShutdownSignal, serveUntilClosed } from "./shutdown.ts";
import { bunRealtime, realtimeWebSocket } from "./realtime-bun.ts";
import { idleTimeoutKeeper } from "./bun-idle.ts";
import { startIdleCollector } from "../lib/idle-collector.ts";
import type { RealtimeSession } from "../pipeline/realtime-session.ts";

/** How long without a new request before the request thread collects its garbage. */
const IDLE_COLLECT_AFTER_MS = 2_000;

const config = startupConfig();
const gateway = await startupOpen(() =>
  createGateway(config, {
    upstreamTls: startupUpstreamTls(config),
    startLogWorker: () => new Worker(new URL("../logging/log-store-worker.ts", import.meta.url)),
  }),
);
// Installed before the server exists; no signal is handled before `server` is assigned below.
const shutdown = onShutdownSignal(gateway, () => server.stop());
const server = Bun.serve<RealtimeSession>({
  port: config.PORT,
  hostname: config.HOST,
  // Between requests: a keep-alive connection idle this long is closed (at most 255 s). During a
  // request it is off (below): streams and slow upstreams may be silent for long, and the
  // gateway's own timeouts (upstream, JSON body, stalled stream) govern instead.
  idleTimeout: config.GATEWAY_IDLE_TIMEOUT_S,
  // Bun refuses bodies past 128 MiB by default, itself and without the envelope: the gateway's
  // own limits (JSON and upload) govern instead, one byte past the larger so the app answers.
  maxRequestBodySize: Math.max(config.GATEWAY_MAX_BODY_BYTES, config.GATEWAY_MAX_UPLOAD_BYTES) + 1,
  fetch(request, bunServer) {
    bunServer.timeout(request, 0);
    // A realtime session's upgrade is done by its route; Bun ignores the answer after it.
    const idle = idleTimeoutKeeper(bunServer, request, config.GATEWAY_IDLE_TIMEOUT_S);
    return serveUntilClosed(shutdown, gateway.deps.inflight, () => {
      const answer = gateway.app.fetch(request, { realtime: bunRealtime(bunServer, request), answerEnd: idle.answerEnd });
      return answer instanceof Response ? idle.answered(answer) : answer.then(idle.answered);
    });
  },
  websocket: realtimeWebSocket,
});
// After a burst, give its garbage back instead of holding it until the next request.
startIdleCollector({ workDone: () => gateway.deps.inflight.total, collect: () => Bun.gc(true), quietMs: IDLE_COLLECT_AFTER_MS });

if (!config.GATEWAY_QUIET || gateway.bootstrapKey) console.log(startupBanner(gateway, { host: config.HOST, port: Number(server.port), runtime: `Bun ${Bun.version}` }));
