/**
 * `npm run bench:log-worker`: what one log record costs from the request thread's hand-off to the
 * embedded store, stage by stage, in CPU time. Bun's profiler sees the main thread only, so the
 * log worker's share of `npm run bench`'s thread table is split here instead, on the bench's own
 * chat request and answer: the entry built (`logEntryOf`), packed for the worker, the structured
 * clone `postMessage` makes of a batch, the record built (answer read, priced), and the store
 * write (row, metadata and rollups in one transaction, `insertBatch`). Run under Bun, as the
 * gateway's worker runs: `bun scripts/bench/log-worker-stages.ts` (`LOG_STAGES_BATCH`, 200, and
 * `LOG_STAGES_BATCHES`, 100).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isoNow, uuidv7 } from "../../src/lib/ids.ts";
import { packLogEntry, unpackLogEntry, type LogEntry } from "../../src/logging/log-entry.ts";
import { buildLogRecord } from "../../src/logging/log-record-builder.ts";
import { emptyOutcome, logEntryOf } from "../../src/logging/outcome.ts";
import { openLogsStore } from "../../src/store/open-logs-store.ts";
import { openStore } from "../../src/store/open-store.ts";
import { chatBody, completionJson } from "./fixtures.ts";

const BATCH = Number(process.env.LOG_STAGES_BATCH ?? 200);
const BATCHES = Number(process.env.LOG_STAGES_BATCHES ?? 100);
/** Batches run first and not counted: the JIT and the store's pages warm up. */
const WARM_UP_BATCHES = 10;

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** One finished chat request as the gateway's log writer receives it. */
function chatEntry(): LogEntry {
  const outcome = { ...emptyOutcome("chat", "chat"), provider: "openai", model: "gpt-4o-mini" };
  outcome.request = { body: chatBody, model: "gpt-4o-mini", user: null, params: null };
  const id = uuidv7();
  const facts = {
    organisationId: "org-bench",
    workspaceId: "ws-bench",
    apiKeyId: "key-bench",
    route: "createChatCompletion",
    method: "POST",
    path: "/v1/chat/completions",
    traceId: null,
    spanId: null,
    parentSpanId: null,
    spanName: null,
    metadata: {},
  };
  const response = { kind: "json-text" as const, text: completionJson, totalBytes: completionJson.length, truncated: false, tail: null };
  return logEntryOf({ id, createdAt: isoNow(), startedAt: performance.now(), traceId: id, facts }, outcome, { status: 200, error: null, response, firstTokenAt: null }, 1024 * 1024);
}

const dir = mkdtempSync(join(tmpdir(), "log-worker-stages-"));
const url = `file:${join(dir, "logs.db")}`;
const migrated = await openStore(url);
const logs = await openLogsStore(url);
const stages = { "log entry (request thread)": 0, "pack (request thread)": 0, "structured clone of the batch": 0, "build the record": 0, "store write": 0 };
type Stage = keyof typeof stages;

for (let batch = 0; batch < WARM_UP_BATCHES + BATCHES; batch += 1) {
  const spent: Record<Stage, number> = { "log entry (request thread)": 0, "pack (request thread)": 0, "structured clone of the batch": 0, "build the record": 0, "store write": 0 };
  let at = cpuMs();
  const lap = (stage: Stage): void => {
    const now = cpuMs();
    spent[stage] += now - at;
    at = now;
  };
  const entries = Array.from({ length: BATCH }, chatEntry);
  lap("log entry (request thread)");
  const packed = entries.map(packLogEntry);
  lap("pack (request thread)");
  const received = structuredClone(packed);
  lap("structured clone of the batch");
  const built = received.map((entry) => buildLogRecord(unpackLogEntry(entry)).record);
  lap("build the record");
  await logs.logs.insertBatch(built);
  lap("store write");
  if (batch >= WARM_UP_BATCHES) for (const stage of Object.keys(stages) as Stage[]) stages[stage] += spent[stage];
}

const records = BATCH * BATCHES;
const rows = Object.entries(stages).map(([stage, ms]) => [stage, ((ms * 1000) / records).toFixed(2)] as const);
const total = Object.values(stages).reduce((sum, ms) => sum + ms, 0);
console.log(`log record stages, CPU µs per record (${records} records in batches of ${BATCH}, Bun ${Bun.version}):`);
for (const [stage, us] of rows) console.log(`  ${stage.padEnd(32)} ${us.padStart(7)}`);
console.log(`  ${"total".padEnd(32)} ${((total * 1000) / records).toFixed(2).padStart(7)}`);

await logs.close();
await migrated.close();
rmSync(dir, { recursive: true, force: true });
