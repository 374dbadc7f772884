import type { ClickHouseClientConfigOptions } from "@clickhouse/client";

/** An engine the official client talks to in place of HTTP (ClickHouse in process, through chdb). */
export type ClickHouseTransport = NonNullable<ClickHouseClientConfigOptions["connection"]>;

/** Where the ClickHouse log store is: its HTTP endpoint, credentials and database. */
export interface ClickHouseTarget {
  /** `http(s)://host:port`, with no credentials and no path. */
  endpoint: string;
  username: string;
  password: string;
  database: string;
  /** Opens an in-process engine to use instead of the endpoint; the tests run current ClickHouse this way. */
  transport?: () => ClickHouseTransport;
}

const DATABASE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads `http(s)://user:password@host:port/database` (user `default`, no password and database
 * `default` when absent). Throws a `RangeError` on anything else; its message never repeats
 * the URL, which may hold the password.
 */
export function parseClickHouseUrl(raw: string): ClickHouseTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RangeError("the ClickHouse log store URL is not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new RangeError("the ClickHouse log store URL must start with http:// or https://");
  const database = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, "")) || "default";
  if (!DATABASE_NAME.test(database)) throw new RangeError("the ClickHouse log store URL names a database that is not a plain identifier");
  return {
    endpoint: `${url.protocol}//${url.host}`,
    username: decodeURIComponent(url.username) || "default",
    password: decodeURIComponent(url.password),
    database,
  };
}

/** The URL with its password replaced, for messages. */
export function describeClickHouseTarget(target: ClickHouseTarget): string {
  return `${target.endpoint}/${target.database} as ${target.username}`;
}
