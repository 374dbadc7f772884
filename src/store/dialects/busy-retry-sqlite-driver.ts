import {
  CompiledQuery,
  SelectQueryNode,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDatabase,
} from "kysely";

/** How long a statement keeps trying against another connection's lock before it fails (SQLITE_BUSY, a 503). */
export const BUSY_DEADLINE_MS = 5_000;
const FIRST_WAIT_MS = 2;
const LONGEST_WAIT_MS = 50;

/**
 * Kysely's SQLite driver (one connection, one user at a time) for a connection on the request
 * thread whose busy timeout is 0: a statement that meets another connection's write lock fails
 * at once with SQLITE_BUSY instead of stalling the event loop, and is tried again after an
 * asynchronous wait (2 ms, doubling to 50 ms) until `BUSY_DEADLINE_MS`, then fails for good.
 * While it waits, the connection is lent to other users (a read, which WAL lets through a write
 * lock): only a statement outside a transaction, or a transaction's `BEGIN IMMEDIATE`, is ever
 * retried, so nothing of the waiting user is open on the connection meanwhile. Transactions
 * take the write lock up front (IMMEDIATE), so no statement inside one meets it.
 */
export class BusyRetrySqliteDriver implements Driver {
  readonly #lock = new ConnectionLock();
  readonly #connection: BusyRetryConnection;

  constructor(
    private readonly database: SqliteDatabase,
    now: () => number = () => performance.now(),
  ) {
    this.#connection = new BusyRetryConnection(database, this.#lock, now);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#lock.acquire();
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
    this.#connection.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"));
    this.#connection.inTransaction = false;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await connection.executeQuery(CompiledQuery.raw("rollback"));
    } finally {
      this.#connection.inTransaction = false;
    }
  }

  async releaseConnection(): Promise<void> {
    this.#lock.release();
  }

  async destroy(): Promise<void> {
    this.database.close();
  }
}

class BusyRetryConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly lock: ConnectionLock,
    private readonly now: () => number,
  ) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const deadline = this.now() + BUSY_DEADLINE_MS;
    for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
      try {
        return this.run<R>(compiledQuery);
      } catch (error) {
        if (this.inTransaction || !isBusy(error) || this.now() + wait > deadline) throw error;
      }
      // Lent to others while this user waits: it holds nothing open on the connection.
      this.lock.release();
      await new Promise((resolve) => setTimeout(resolve, wait));
      await this.lock.acquire();
    }
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(compiledQuery.query)) throw new Error("SQLite streams only select queries");
    const statement = this.database.prepare(compiledQuery.sql);
    for (const row of statement.iterate(compiledQuery.parameters)) yield { rows: [row as R] };
  }

  private run<R>({ sql, parameters }: CompiledQuery): QueryResult<R> {
    const statement = this.database.prepare(sql);
    if (statement.reader) return { rows: statement.all(parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return {
      numAffectedRows: changes === undefined || changes === null ? undefined : BigInt(changes),
      insertId: lastInsertRowid === undefined || lastInsertRowid === null ? undefined : BigInt(lastInsertRowid),
      rows: [],
    };
  }
}

function isBusy(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  return code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED");
}

/** One user of the connection at a time, the others queued in order. */
class ConnectionLock {
  #held = false;
  readonly #waiting: (() => void)[] = [];

  acquire(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }
}
