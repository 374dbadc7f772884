/**
 * The two rules of `src/`'s shape, over an import graph: no import cycles (type-only imports
 * count: they couple modules just the same), and imports that point down the declared layers.
 * Pure: the graph and the layers in, the problems out, each naming the offending file and import.
 */
import type { ImportEdge, ImportGraph } from "./import-graph.ts";
import { DATABASE_PACKAGES, STORE_PATHS, type Layer } from "./layers.ts";

/** Each cycle once, as the files in import order, the first repeated at the end. */
export function findCycles(graph: ImportGraph): string[][] {
  const next = new Map<string, string[]>(graph.files.map((file) => [file, []]));
  for (const edge of graph.edges) next.get(edge.from)?.push(edge.to);

  // Tarjan's strongly connected components; each component of more than one file (or a file
  // importing itself) holds at least one cycle, and one is reported per component.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of next.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (next.get(file) ?? []).includes(file)) components.push(component);
  };
  for (const file of graph.files) if (!index.has(file)) connect(file);

  return components.map((component) => cycleWithin(new Set(component), next));
}

/** A shortest cycle through the component's first file (in sorted order), by breadth-first search. */
function cycleWithin(component: ReadonlySet<string>, next: ReadonlyMap<string, readonly string[]>): string[] {
  const start = [...component].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of next.get(file) ?? []) {
      if (!component.has(target)) continue;
      if (target === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start];
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, file);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/** The layer a file belongs to (the longest matching path, returned as `path`), or null when no layer names it. */
export function layerOf(file: string, layers: readonly Layer[]): { index: number; layer: Layer; path: string } | null {
  let best: { index: number; layer: Layer; path: string } | null = null;
  for (const [index, layer] of layers.entries()) {
    for (const path of layer.paths) {
      const matches = path.endsWith("/") ? file.startsWith(path) : file === path;
      if (matches && (best === null || path.length > best.path.length)) best = { index, layer, path };
    }
  }
  return best;
}

const underStore = (file: string, storePaths: readonly string[]): boolean => storePaths.some((path) => file.startsWith(path));

export interface LayerProblem {
  file: string;
  message: string;
}

/** Tests may import anything; they are the only files outside the layer rules. */
const isTest = (file: string): boolean => file.endsWith(".test.ts");

/**
 * Files no layer names, imports of a layer above the importer's, imports between paths of one
 * layer its `uses` does not allow, and database clients or SQL outside the store paths. `show`
 * writes a file's name in messages.
 */
export function layerProblems(
  graph: ImportGraph,
  layers: readonly Layer[],
  show: (file: string) => string = (file) => file,
  storePaths: readonly string[] = STORE_PATHS,
): LayerProblem[] {
  const problems: LayerProblem[] = [];
  for (const file of graph.files) {
    if (!isTest(file) && layerOf(file, layers) === null) {
      problems.push({ file, message: `${show(file)} is in no layer: add its folder to scripts/layers/layers.ts` });
    }
  }
  for (const edge of graph.edges) {
    if (isTest(edge.from)) continue;
    const from = layerOf(edge.from, layers);
    const to = layerOf(edge.to, layers);
    if (from === null || to === null || to.index > from.index) continue;
    if (to.index < from.index) problems.push({ file: edge.from, message: upwardImport(edge, from.layer, to.layer, show) });
    else if (from.path !== to.path && !(from.layer.uses?.[from.path] ?? []).includes(to.path)) {
      problems.push({ file: edge.from, message: `${show(edge.from)} imports "${edge.specifier}" (${show(edge.to)}): in layer "${from.layer.name}", ${from.path} may not import ${to.path} (its \`uses\` in scripts/layers/layers.ts)` });
    }
  }
  for (const imported of graph.packages ?? []) {
    if (isTest(imported.from) || underStore(imported.from, storePaths) || !DATABASE_PACKAGES.includes(imported.specifier)) continue;
    problems.push({ file: imported.from, message: `${show(imported.from)} imports "${imported.specifier}": database clients belong to the store (${storePaths.join(", ")})` });
  }
  for (const text of graph.sql ?? []) {
    if (isTest(text.from) || underStore(text.from, storePaths)) continue;
    problems.push({ file: text.from, message: `${show(text.from)}:${text.line} writes SQL ("${text.text}"): SQL belongs to the store (${storePaths.join(", ")})` });
  }
  return problems;
}

function upwardImport(edge: ImportEdge, from: Layer, to: Layer, show: (file: string) => string): string {
  return `${show(edge.from)} imports "${edge.specifier}" (${show(edge.to)}): layer "${from.name}" may not import layer "${to.name}", which is above it`;
}
