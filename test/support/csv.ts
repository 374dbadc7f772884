/**
 * A strict RFC 4180 reader for tests: quoted fields with doubled quotes, CRLF line ends.
 * Throws on anything else, so a malformed export fails the test that reads it.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    let cell = "";
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error("unterminated quoted field");
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            cell += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        cell += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== "," && text[i] !== "\r") {
        if (text[i] === '"' || text[i] === "\n") throw new Error(`bare ${JSON.stringify(text[i])} in an unquoted field at ${i}`);
        cell += text[i++];
      }
    }
    row.push(cell);
    if (text[i] === ",") {
      i++;
      continue;
    }
    if (text.slice(i, i + 2) !== "\r\n") throw new Error(`expected CRLF at ${i}`);
    i += 2;
    rows.push(row);
    row = [];
  }
  return rows;
}

/** CSV rows as objects keyed by the header line. */
export function csvObjects(text: string): Array<Record<string, string>> {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new Error("no header line");
  return rows.map((row) => {
    if (row.length !== header.length) throw new Error(`row of ${row.length} cells under a header of ${header.length}`);
    return Object.fromEntries(header.map((name, i) => [name, row[i]!]));
  });
}
