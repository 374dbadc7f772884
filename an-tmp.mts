import { openStore } from "./src/store/open-store.ts";
import { sql } from "kysely";
const t0 = performance.now();
const store = await openStore(process.argv[2]);
const t1 = performance.now();
console.log("rows", (await sql`select count(*) c from logs`.execute(store.db)).rows, "open+migrate+analyze ms", (t1 - t0).toFixed(1));
for (let i = 0; i < 3; i++) { const a = performance.now(); await sql`ANALYZE`.execute(store.db); console.log("analyze ms", (performance.now() - a).toFixed(1)); }
console.log((await sql`select * from sqlite_stat1 where tbl='logs'`.execute(store.db)).rows);
await store.close();
