import { startupConfig, startupOpen, startupUpstreamTls } from "./startup-config.ts";
import { createGateway } from "../gateway.ts";
import { startupBanner } from "./banner.ts";
import { onShutdownSignal, serveUntilClosed } from "./shutdown.ts";
import { denoRealtime, type DenoUpgrade } from "./realtime-deno.ts";
import type { WorkerLike } from "../logging/worker-log-sink.ts";

/** The part of Deno's API this entry point uses (the project type-checks with Node's and Bun's types). */
declare const Deno: {
  version: { deno: string };
  serve(
    options: { port: number; hostname: string; onListen?: (address: { port: number }) => void },
    handler: (request: Request) => Response | Promise<Response>,
  ): { shutdown(): Promise<void> };
};

/**
 * What Deno's server does not offer, told at start: it has neither a deadline for a request's
 * headers nor an idle timeout between requests, so those two settings have no effect here.
 */
export const DENO_LIMITS_NOTE =
  "Under Deno, GATEWAY_HEADERS_TIMEOUT_MS and GATEWAY_IDLE_TIMEOUT_S have no effect (Deno.serve has no headers deadline and no keep-alive idle timeout): " +
  "a client may hold a connection open without sending. Where clients are not trusted, put a proxy that enforces both in front, or run under Bun (npm start) or Node (npm run start:node).";

const config = startupConfig();
const gateway = await startupOpen(() =>
  createGateway(config, {
    upstreamTls: startupUpstreamTls(config),
    // Deno's workers are modules.
    startLogWorker: () => new Worker(new URL("../logging/log-store-worker.ts", import.meta.url), { type: "module" }) as unknown as WorkerLike,
  }),
);
// Installed before the server exists; no signal is handled before `server` is assigned below.
const shutdown = onShutdownSignal(gateway, () => server.shutdown());
const server = Deno.serve(
  {
    port: config.PORT,
    hostname: config.HOST,
    onListen: ({ port }) => {
      if (!config.GATEWAY_QUIET || gateway.bootstrapKey) console.log(startupBanner(gateway, { host: config.HOST, port, runtime: `Deno ${Deno.version.deno}` }));
      if (!config.GATEWAY_QUIET) console.log(DENO_LIMITS_NOTE);
    },
  },
  (request) =>
    serveUntilClosed(shutdown, gateway.deps.inflight, async () => {
      // A realtime session's route upgrades the request; Deno then sends its 101, not the app's answer.
      const upgraded: DenoUpgrade = { response: null };
      const answer = await gateway.app.fetch(request, { realtime: denoRealtime(request, upgraded) });
      return upgraded.response ?? answer;
    }),
);
