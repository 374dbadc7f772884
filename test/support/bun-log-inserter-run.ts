/**
 * Runs under Bun for `bun-sqlite-log-inserter.test.ts`: reads log records (JSON) from stdin and
 * stores them through the Bun inserter into the database URL given as the first argument,
 * then the first five again (duplicates), as a retried batch would.
 */
import { openBunSqliteLogInserter } from "../../src/store/dialects/bun-sqlite-log-inserter.ts";

const url = process.argv[2];
if (!url) throw new Error("usage: bun test/support/bun-log-inserter-run.ts <database url> < records.json");
const records = JSON.parse(await Bun.stdin.text());
const inserter = openBunSqliteLogInserter(url);
inserter.insertBatch(records);
inserter.insertBatch(records.slice(0, 5));
inserter.close();
