import { describe, expect, it } from "vitest";
import { csvObjects, parseCsv } from "../../test/support/csv.ts";
import { logRecord } from "../store/store-test-fixtures.ts";
import { csvCell, csvColumns, exportWriter } from "./log-export-formats.ts";
import { logRecordView, logSummaryView } from "./log-view.ts";

describe("CSV cells", () => {
  it.each([
    ["plain", "plain"],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ["two\r\nlines", '"two\r\nlines"'],
    ["=SUM(A1:A2)", "'=SUM(A1:A2)"],
    ["+1", "'+1"],
    ["-1+2", "'-1+2"],
    ["@cmd", "'@cmd"],
    ["\tTAB", "'\tTAB"],
    ["\r=x", "\"'\r=x\""],
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ["", ""],
  ])("writes %j as %j", (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it("writes null as an empty cell and numbers and booleans as they are", () => {
    expect([csvCell(null), csvCell(0.000123), csvCell(-5), csvCell(true)]).toEqual(["", "0.000123", "-5", "true"]);
  });
});

describe("export writers", () => {
  const record = logRecord(Date.parse("2026-01-01T00:00:00.000Z"), {
    user: "=cmd|' /C calc'!A0",
    metadata: { team: "a,b", note: 'quote "x"' },
    errorMessage: "line one\nline two",
  });

  it("writes JSONL lines that are the listing's summary, or with bodies the whole record", () => {
    expect(exportWriter("jsonl", false).header).toBe("");
    expect(JSON.parse(exportWriter("jsonl", false).line(record))).toEqual(logSummaryView(record));
    expect(JSON.parse(exportWriter("jsonl", true).line(record))).toEqual(logRecordView(record));
  });

  it("writes a CSV header and rows that read back cell for cell", () => {
    const writer = exportWriter("csv", false);
    const text = writer.header + writer.line(record) + writer.line({ ...record, costUsd: null });
    const [first, second] = csvObjects(text);
    expect(parseCsv(writer.header)[0]).toEqual(csvColumns(false));
    expect(first).toMatchObject({
      id: record.id,
      user: "'=cmd|' /C calc'!A0",
      metadata: JSON.stringify(record.metadata),
      error_message: "line one\nline two",
      cost_usd: "0.000123",
      total_tokens: "33",
      config_id: "config-1",
      success: "true",
    });
    expect(first).not.toHaveProperty("request_body");
    expect(second!.cost_usd).toBe("");
  });

  it("adds the bodies as the last two CSV columns when asked", () => {
    const writer = exportWriter("csv", true);
    const [row] = csvObjects(writer.header + writer.line(record));
    expect(csvColumns(true).slice(-2)).toEqual(["request_body", "response_body"]);
    expect(row!.request_body).toBe(record.requestBody);
    expect(row!.response_body).toBe(record.responseBody);
  });
});
