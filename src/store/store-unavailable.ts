/**
 * Whether an error means the store cannot be used right now (a PostgreSQL server that is down,
 * restarting or unreachable; an SQLite file that is locked, full or unreadable), as opposed to
 * a bug or a refused statement. Such errors are answered 503, never 500 or 401.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = String((error as { code?: unknown }).code ?? "");
  if (NETWORK_CODES.has(code)) return true;
  // SQLSTATE classes 08 (connection exception), 53 (insufficient resources), 57P (operator intervention).
  if (/^(08|53)[0-9A-Z]{3}$/.test(code) || /^57P0[1-4]$/.test(code)) return true;
  if (/^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|PROTOCOL)/.test(code)) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|database is locked|disk is full|unable to open database/i.test(error.message);
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE"]);
