import { serve } from "@hono/node-server";
import { startupConfig } from "./startup-config.ts";
import { createGateway } from "../gateway.ts";
import { startupBanner } from "./banner.ts";
import { onShutdownSignal } from "./shutdown.ts";

const config = startupConfig();
const gateway = await createGateway(config);
const server = serve({ fetch: gateway.app.fetch, port: config.PORT, hostname: config.HOST }, (info) => {
  const url = `http://${config.HOST === "0.0.0.0" ? "localhost" : config.HOST}:${info.port}`;
  if (!config.GATEWAY_QUIET || gateway.bootstrapKey) console.log(startupBanner(gateway, url, `Node ${process.version}`));
});

onShutdownSignal(gateway, () => new Promise<void>((resolve) => server.close(() => resolve())));
