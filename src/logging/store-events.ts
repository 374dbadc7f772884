import type { StoreEvent } from "./log-sink.ts";

/** The log writer's store events, as the gateway's own log (stderr) states them. */
export function reportStoreEvent(event: StoreEvent): void {
  if (event.kind === "down") {
    const where = event.spool ? `spooling log records to ${event.spool}` : "log records wait in memory";
    console.error(`[gateway] the log store is unavailable (${event.reason}); ${where} until it is back`);
  } else if (event.kind === "back") {
    console.error(`[gateway] the log store is back; ${event.replayed} waiting log record(s) stored`);
  } else if (event.kind === "behind") {
    console.error(`[gateway] log records arrive faster than the log store takes them; past ${event.waiting} waiting, the oldest go to ${event.spool} until it catches up`);
  } else if (event.kind === "rejected") {
    console.error(`[gateway] the log store refused ${event.count} log record(s) (${event.reason}); kept in the spool directory's rejected.jsonl`);
  } else {
    console.error(`[gateway] the log spool failed (${event.reason}); log records wait in memory`);
  }
}
