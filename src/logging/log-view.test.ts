import { describe, expect, it } from "vitest";
import { openApiDocument } from "../generated/openapi-document.gen.ts";
import { fromLogRow, toLogRow } from "../store/log-rows.ts";
import { logRecord } from "../store/store-test-fixtures.ts";
import { packLogEntry, unpackLogEntry, type LogEntry } from "./log-entry.ts";
import { toLogRecord } from "./log-record-builder.ts";
import type { AttemptRecord } from "../records/log-record.ts";
import { logRecordView, logSummaryView } from "./log-view.ts";

const { schemas } = openApiDocument.components;
const propertiesOf = (schema: { properties: object }) => Object.keys(schema.properties).sort();

const ATTEMPTS: AttemptRecord[] = [
  { target: 0, path: "0", retry: 1, provider: "openai", model: "gpt-4o", status: null, latencyMs: 30_000.5, errorCode: "upstream_timeout", errorMessage: "no answer within 30 s" },
  { target: 1, path: "1.0", retry: 0, provider: "azure-openai", model: null, status: 200, latencyMs: 812.25, errorCode: null, errorMessage: null, note: "Upstream answer headers dropped: x-debug (20000 characters, a header never passed on)." },
];

describe("the log view", () => {
  it("has exactly the properties the document declares, in the listing and in the full record", () => {
    const record = logRecord(Date.parse("2026-06-01T00:00:00.000Z"), { errorCode: "c", errorMessage: "m", attempts: ATTEMPTS });
    const summary = logSummaryView(record);
    expect(Object.keys(summary).sort()).toEqual(propertiesOf(schemas.LogSummary));
    expect(Object.keys(summary.usage).sort()).toEqual(propertiesOf(schemas.LogUsage));
    expect(Object.keys(summary.error ?? {}).sort()).toEqual(propertiesOf(schemas.LogSummary.properties.error));
    expect(Object.keys(summary.attempts[0]!).sort()).toEqual(propertiesOf(schemas.LogAttempt));

    const full = logRecordView(record);
    const detail = schemas.LogRecord.allOf[1];
    expect(Object.keys(full).sort()).toEqual([...propertiesOf(schemas.LogSummary), ...propertiesOf(detail)].sort());
    expect(Object.keys(full.request).sort()).toEqual(propertiesOf(detail.properties.request));
    expect(Object.keys(full.response).sort()).toEqual(propertiesOf(detail.properties.response));
  });

  it("shows no error when the record has none, and bodies parsed back into JSON", () => {
    const full = logRecordView(logRecord(0, { errorCode: null, errorMessage: null }));
    expect(full.error).toBeNull();
    expect(full.request.body).toEqual({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(full.guardrail_results).toEqual([{ check: "regex", verdict: true, latencyMs: 1 }]);
  });
});

describe("attempts", () => {
  it("travel from the entry through the worker hop, the record and the row to the view", () => {
    const record = logRecord(Date.parse("2026-06-01T00:00:00.000Z"));
    const entry: LogEntry = { ...record, response: null, guardrailResults: null, attempts: ATTEMPTS, format: "json", genAiOperation: null };
    const built = toLogRecord(unpackLogEntry(structuredClone(packLogEntry(entry))));
    expect(built.attempts).toEqual(ATTEMPTS);

    const row = toLogRow(built);
    expect(JSON.parse(row.attempts)).toEqual(ATTEMPTS);
    expect(fromLogRow(row)).toEqual(built);
    expect(logSummaryView(fromLogRow(row)).attempts).toEqual([
      { target: 0, path: "0", retry: 1, provider: "openai", model: "gpt-4o", status: null, latency_ms: 30_000.5, error_code: "upstream_timeout", error_message: "no answer within 30 s", note: null },
      { target: 1, path: "1.0", retry: 0, provider: "azure-openai", model: null, status: 200, latency_ms: 812.25, error_code: null, error_message: null, note: ATTEMPTS[1]!.note },
    ]);
  });

  it("read back as none from a row written before the column, or from unreadable text", () => {
    const row = toLogRow(logRecord(0));
    expect(fromLogRow({ ...row, attempts: "[]" }).attempts).toEqual([]);
    expect(fromLogRow({ ...row, attempts: "not json" }).attempts).toEqual([]);
    expect(fromLogRow({ ...row, attempts: '[{"target":"x"}]' }).attempts).toEqual([]);
  });
});
