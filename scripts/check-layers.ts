/**
 * Fails (exit 1) when `src/` has an import cycle or an import that points up the layers of
 * `scripts/layers/layers.ts`, printing each offending import. `npm run typecheck` runs it.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findCycles, layerProblems } from "./layers/check.ts";
import { readImportGraph } from "./layers/import-graph.ts";
import { LAYERS } from "./layers/layers.ts";

const src = join(dirname(fileURLToPath(import.meta.url)), "..", "src");
const graph = readImportGraph(src);
const cycles = findCycles(graph);
const show = (file: string): string => `src/${file}`;
const problems = layerProblems(graph, LAYERS, show);

for (const cycle of cycles) console.error(`import cycle: ${cycle.map(show).join(" → ")}`);
for (const problem of problems) console.error(`layers: ${problem.message}`);
if (cycles.length > 0 || problems.length > 0) {
  console.error(`${cycles.length} import cycle(s), ${problems.length} layer problem(s); the layer order is in scripts/layers/layers.ts, explained in docs/architecture.md`);
  process.exit(1);
}
console.log(`layers: ${graph.files.length} files of src/, no import cycle, every import points down ${LAYERS.length} layers`);
