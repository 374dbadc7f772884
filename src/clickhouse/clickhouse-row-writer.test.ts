import { describe, expect, it } from "vitest";
import { bucketOf } from "../analytics/latency-histogram.ts";
import { LOG_FIELDS } from "../records/log-fields.ts";
import type { LogRecord } from "../records/log-record.ts";
import { logRecord } from "../store/store-test-fixtures.ts";
import { INSERTED_COLUMNS, PLAIN_FIELDS } from "./clickhouse-columns.ts";
import { writeTabSeparated } from "./clickhouse-log-rows.ts";
import { toTabSeparatedRow } from "./clickhouse-row-writer.ts";

/** The line field by field, read off `LOG_FIELDS` at every call: what the compiled writer must equal. */
function referenceRow(record: LogRecord): string {
  const escape = (text: string, chars: RegExp) => text.replace(chars, (c) => (c === "\t" ? "\\t" : c === "\n" ? "\\n" : c === "\r" ? "\\r" : `\\${c}`));
  const fields = PLAIN_FIELDS.map((name) => {
    const { kind } = LOG_FIELDS[name];
    const value = record[name];
    if (kind === "boolean") return value ? "1" : "0";
    if (kind === "json") return escape(JSON.stringify(value), /[\\\t\n\r]/g);
    if (value === null || value === undefined) return "\\N";
    return kind === "text" ? escape(value as string, /[\\\t\n\r]/g) : String(value);
  });
  const array = (values: string[]) => `[${values.map((value) => `'${escape(value, /[\\\t\n\r']/g)}'`).join(",")}]`;
  const ttft = record.timeToFirstTokenMs === null ? "\\N" : String(bucketOf(record.timeToFirstTokenMs));
  const meta = [array(Object.keys(record.metadata)), array(Object.values(record.metadata))];
  return `${[...fields, String(Date.parse(record.createdAt)), ...meta, String(bucketOf(record.latencyMs)), ttft].join("\t")}\n`;
}

const awkward = logRecord(Date.UTC(2026, 5, 1, 10), {
  model: "gpt\t4\\o",
  user: "line\nbreak\r",
  costUsd: null,
  timeToFirstTokenMs: null,
  stream: true,
  errorMessage: "said \"no\" \\ twice",
  metadata: { "team's": "a\tb", env: "prod\\1", empty: "" },
  attempts: [{ provider: "openai", status: 500, error: "tab\there" }] as unknown as LogRecord["attempts"],
});

describe("toTabSeparatedRow", () => {
  it("writes every inserted column of a record, escaped, as the field table says", () => {
    for (const record of [logRecord(Date.UTC(2026, 5, 1)), awkward, logRecord(0, { metadata: {}, provider: null, model: null })]) {
      const line = toTabSeparatedRow(record);
      expect(line).toBe(referenceRow(record));
      expect(line.slice(0, -1).split("\t")).toHaveLength(INSERTED_COLUMNS.length);
    }
  });
});

describe("writeTabSeparated", () => {
  it("cuts the lines into chunks only between lines, whole UTF-8 included", () => {
    const long = "é€😀".repeat(200_000);
    const records = [awkward, logRecord(1, { requestBody: long }), ...Array.from({ length: 3_000 }, (_, i) => logRecord(2 + i, { user: `ü-${i}` }, i))];
    const chunks = writeTabSeparated(records);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.toString("utf8").endsWith("\n")).toBe(true);
    expect(Buffer.concat(chunks).toString("utf8")).toBe(records.map(toTabSeparatedRow).join(""));
  });
});
