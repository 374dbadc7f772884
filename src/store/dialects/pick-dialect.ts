import { isEmbeddedUrl, isPostgresUrl, type StoreDialect } from "./store-dialect.ts";

/** The dialect a store URL names. Rejects on any other URL than postgres://, postgresql://, file: or :memory:. */
export async function pickDialect(url: string): Promise<StoreDialect> {
  // Only the driver in use is loaded: the other would hold its memory for nothing. Under Bun
  // the embedded store must use Bun's SQLite, the engine of the log worker too (bun-sqlite.ts).
  if (isPostgresUrl(url)) return (await import("./postgres.ts")).createPostgresDialect(url);
  if (isEmbeddedUrl(url) && process.versions.bun) return (await import("./bun-sqlite.ts")).createBunSqliteDialect(url);
  if (isEmbeddedUrl(url)) return (await import("./libsql.ts")).createLibsqlDialect(url);
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? url;
  throw new Error(`unsupported store URL "${scheme}…": use postgres://, postgresql://, file: or :memory:`);
}
