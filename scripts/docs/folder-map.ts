/**
 * `docs/architecture.md` against the tree: its folder map must name every folder of `src/` and
 * no other, and its layer table must list the layers of `scripts/layers/layers.ts`, in order,
 * with their paths. Run by `npm run codegen` (and so `--check` in CI).
 */
import type { Layer } from "../layers/layers.ts";

/** The body rows of the first table under `heading` (header and separator left out), as cell texts. */
function tableRows(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start === -1) return [];
  const rows: string[][] = [];
  for (const line of markdown.slice(start + heading.length + 2).split("\n")) {
    if (line.startsWith("#")) break;
    if (!line.startsWith("|")) {
      if (rows.length > 0) break;
      continue;
    }
    rows.push(line.split("|").slice(1, -1).map((cell) => cell.trim()));
  }
  return rows.slice(2);
}

const quoted = (cell: string | undefined): string[] => [...(cell ?? "").matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

export function folderMapProblems(markdown: string, srcFolders: readonly string[], layers: readonly Layer[]): string[] {
  const problems: string[] = [];
  const mapped = tableRows(markdown, "## Folder map")
    .flatMap((row) => quoted(row[0]))
    .filter((name) => name.startsWith("src/"))
    .map((name) => name.slice("src/".length).replace(/\/$/, ""));
  if (mapped.length === 0) problems.push('docs/architecture.md has no "## Folder map" table naming src/ folders');
  for (const folder of srcFolders) if (!mapped.includes(folder)) problems.push(`src/${folder}/ is missing from the folder map of docs/architecture.md`);
  for (const folder of mapped) if (!srcFolders.includes(folder)) problems.push(`the folder map of docs/architecture.md names src/${folder}/, which does not exist`);

  const layerRows = tableRows(markdown, "# Layers of `src/`").map((row) => ({ name: row[1] ?? "", paths: quoted(row[2]) }));
  const shown = layerRows.map((row) => row.name);
  const declared = layers.map((layer) => layer.name);
  if (shown.join(",") !== declared.join(",")) {
    problems.push(`the layer table of docs/architecture.md lists ${shown.join(", ")}; scripts/layers/layers.ts declares ${declared.join(", ")}`);
  } else {
    layers.forEach((layer, index) => {
      const paths = [...layerRows[index]!.paths].sort();
      const expected = [...layer.paths].sort();
      if (paths.join(",") !== expected.join(",")) problems.push(`layer ${layer.name}: docs/architecture.md lists ${paths.join(", ")}; scripts/layers/layers.ts has ${expected.join(", ")}`);
    });
  }
  return problems;
}
