import type { Client } from "@libsql/client";
import { CompiledQuery, type DatabaseConnection, type Driver } from "kysely";
import { LibsqlConnection, LibsqlDialect } from "kysely-libsql";

/**
 * kysely-libsql's dialect with a driver that keeps ONE SQLite connection and hands it to
 * one user at a time.
 *
 * Why: the stock driver runs each transaction through `client.transaction()`, which takes
 * the client's connection away and lets the client open a new one. For `:memory:` that new
 * connection is an empty database (the migrated tables vanish), and for files a write
 * outside a running transaction fails at once with SQLITE_BUSY, because per-connection
 * pragmas such as `busy_timeout` are lost. SQLite serialises writers anyway, so one queued
 * connection costs little. Contract: inside `db.transaction()` use only the `trx` handle;
 * touching `db` there would wait for the transaction and never finish.
 */
export class SerialLibsqlDialect extends LibsqlDialect {
  readonly #client: Client;

  constructor(client: Client) {
    super({ client });
    this.#client = client;
  }

  override createDriver(): Driver {
    return new SerialLibsqlDriver(this.#client);
  }
}

class SerialLibsqlDriver implements Driver {
  readonly #client: Client;
  readonly #connection: LibsqlConnection;
  #tail: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(client: Client) {
    this.#client = client;
    this.#connection = new LibsqlConnection(client);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#tail;
    let release: () => void = () => {};
    this.#tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    this.#release = release;
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // IMMEDIATE takes the write lock up front, so another process cannot make us fail mid-way.
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    await this.#tail;
    this.#client.close();
  }
}
