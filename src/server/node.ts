import { startupConfig, startupOpen, startupUpstreamTls } from "./startup-config.ts";
import { createGateway } from "../gateway.ts";
import { startupBanner } from "./banner.ts";
import { serveOnNode } from "./node-server.ts";
import { onShutdownSignal, serveUntilClosed } from "./shutdown.ts";

const config = startupConfig();
const gateway = await startupOpen(() => createGateway(config, { upstreamTls: startupUpstreamTls(config) }));
// Installed before the server exists; no signal is handled before `server` is assigned below.
const shutdown = onShutdownSignal(gateway, () => new Promise<void>((resolve) => server.close(() => resolve())));
const server = serveOnNode(
  (request, env) => serveUntilClosed(shutdown, gateway.deps.inflight, () => gateway.app.fetch(request, env)),
  {
    port: config.PORT,
    hostname: config.HOST,
    timeouts: { headersMs: config.GATEWAY_HEADERS_TIMEOUT_MS, requestMs: config.GATEWAY_BODY_TIMEOUT_MS, keepAliveMs: config.GATEWAY_IDLE_TIMEOUT_S * 1000 },
  },
  (info) => {
    if (!config.GATEWAY_QUIET || gateway.bootstrapKey) console.log(startupBanner(gateway, { host: config.HOST, port: info.port, runtime: `Node ${process.version}` }));
  },
);
