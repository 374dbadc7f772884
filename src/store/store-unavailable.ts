import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from "kysely";

/**
 * Whether an error means the store cannot be used right now (a PostgreSQL server that is down,
 * restarting, refusing connections or out of connections; an SQLite file that is locked, full
 * or unreadable), as opposed to a bug or a refused statement. Such errors are answered 503,
 * never 500 or 401. Classified by what the failure means: a connection the driver could not
 * get (`markStoreUnavailable` at the dialect), the SQLSTATE class, the SQLite result code;
 * messages only for the few driver errors that carry no code.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if ((error as { [UNAVAILABLE]?: boolean })[UNAVAILABLE] === true) return true;
  const code = String((error as { code?: unknown }).code ?? "");
  if (NETWORK_CODES.has(code)) return true;
  if (UNAVAILABLE_SQLSTATE.test(code)) return true;
  if (/^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|PROTOCOL)/.test(code)) return true;
  return CODELESS_DRIVER_ERRORS.test(error.message);
}

/**
 * SQLSTATE classes of a store that is away: 08 connection exceptions, 53 insufficient resources
 * (too many connections, disk full, out of memory), 57P01–57P05 operator intervention (shutdown,
 * crash, starting up, database dropped, idle session killed), 57014 a statement timeout,
 * 55000 (a database not accepting connections) and 55P03 (a lock not available in time).
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|53[0-9A-Z]{3}|57P0[1-5]|57014|55000|55P03)$/;

/** `pg` and `pg-pool` errors without a code: a broken connection, a pool wait that timed out. */
const CODELESS_DRIVER_ERRORS =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection closed|database is locked|disk is full|unable to open database/i;

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE"]);

const UNAVAILABLE = Symbol("store unavailable");

/**
 * Marks an error as the store's absence, whatever it says: a dialect calls it on every failure
 * to get a connection (refused, timed out, a pool with none free, a database refusing
 * connections). Returns the same error.
 */
export function markStoreUnavailable<T>(error: T): T {
  if (error instanceof Error) Object.defineProperty(error, UNAVAILABLE, { value: true });
  return error;
}

/** How long without a failure, once the store answered, ends an outage episode. */
const EPISODE_QUIET_MS = 1_000;

/**
 * One line on stderr per outage episode, not per request. An episode starts at the first
 * failure; it ends once the store answers with no failure for `EPISODE_QUIET_MS` before (so
 * a store that fails and answers by turns stays one episode): at that answer, or, when no
 * query came meanwhile, at the next failure, which then starts the next episode. Module
 * state: every store of a process reports through it.
 */
export const storeOutage = {
  since: null as number | null,
  lastFailureAt: 0,
  lastAnsweredAt: 0,
  /** Reports the error once per episode. Never throws. */
  failed(error: Error, report: (line: string) => void = (line) => console.error(line)): void {
    const now = Date.now();
    const over = this.since !== null && this.lastAnsweredAt >= this.lastFailureAt && now - this.lastFailureAt >= EPISODE_QUIET_MS;
    this.lastFailureAt = now;
    if (this.since !== null && !over) return;
    this.since = now;
    report(`[gateway] the store is unavailable (${error.message}); requests that need it are answered 503 until it answers again`);
  },
  /** The store answered a query. Costs one comparison while no outage is open. */
  answered(report: (line: string) => void = (line) => console.error(line)): void {
    if (this.since === null) return;
    const now = Date.now();
    this.lastAnsweredAt = now;
    if (now - this.lastFailureAt < EPISODE_QUIET_MS) return;
    this.since = null;
    report("[gateway] the store answers again");
  },
};

/** An error about the record itself (SQLSTATE classes 22 and 23, SQLite constraints), not about the store being away. */
export function refusesRecord(error: unknown): boolean {
  if (error instanceof TypeError || error instanceof RangeError) return true;
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  const message = error instanceof Error ? error.message : String(error);
  return /^(22|23)[0-9A-Z]{3}$/.test(code) || /^SQLITE_(CONSTRAINT|MISMATCH|TOOBIG|RANGE)/.test(code) || /constraint failed/i.test(message);
}

/** Ends an outage episode (`storeOutage`) when the store answers a query again; changes nothing. */
export class OutageEpisodePlugin implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    storeOutage.answered();
    return Promise.resolve(args.result);
  }
}
