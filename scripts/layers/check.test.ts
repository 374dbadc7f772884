import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { findCycles, layerOf, layerProblems } from "./check.ts";
import { readImportGraph, specifiersOf, sqlTextsOf, type ImportGraph } from "./import-graph.ts";
import { LAYERS, type Layer } from "./layers.ts";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A source tree on disk: path → text. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "layers-"));
  folders.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const TWO_LAYERS: Layer[] = [
  { name: "top", role: "", paths: ["top/"] },
  { name: "bottom", role: "", paths: ["bottom/", "floor.ts"] },
];

describe("reading imports", () => {
  it("sees type-only imports, re-exports, import() calls and import types", () => {
    const text = [
      'import type { A } from "./a.ts";',
      'import { b } from "./b.ts";',
      'export type { C } from "./c.ts";',
      'export * from "./d.ts";',
      'const e = await import("./e.ts");',
      'let f: import("./f.ts").F;',
      'import "node:fs";',
    ].join("\n");
    expect(specifiersOf("x.ts", text)).toEqual(["./a.ts", "./b.ts", "./c.ts", "./d.ts", "./e.ts", "./f.ts", "node:fs"]);
  });

  it("resolves relative imports to files of the tree and leaves packages and outside files out", () => {
    const root = tree({
      "top/a.ts": 'import { b } from "../bottom/b.ts";\nimport { c } from "../bottom/c";\nimport "hono";\nimport "../../outside.ts";\n',
      "bottom/b.ts": "export const b = 1;\n",
      "bottom/c.ts": "export const c = 1;\n",
    });
    const graph = readImportGraph(root);
    expect(graph.files).toEqual(["bottom/b.ts", "bottom/c.ts", "top/a.ts"]);
    expect(graph.edges).toEqual([
      { from: "top/a.ts", specifier: "../bottom/b.ts", to: "bottom/b.ts" },
      { from: "top/a.ts", specifier: "../bottom/c", to: "bottom/c.ts" },
    ]);
  });
});

describe("cycles", () => {
  it("finds a cycle made only of type imports, named in import order", () => {
    const root = tree({
      "a.ts": 'import type { B } from "./b.ts";\nexport interface A { b: B }\n',
      "b.ts": 'import type { C } from "./c.ts";\nexport interface B { c: C }\n',
      "c.ts": 'import type { A } from "./a.ts";\nexport interface C { a?: A }\n',
      "d.ts": 'import type { A } from "./a.ts";\nexport type D = A;\n',
    });
    expect(findCycles(readImportGraph(root))).toEqual([["a.ts", "b.ts", "c.ts", "a.ts"]]);
  });

  it("reports one cycle per tangle and none in a tree that only points down", () => {
    const graph: ImportGraph = {
      files: ["a.ts", "b.ts", "c.ts", "d.ts", "e.ts"],
      edges: [
        { from: "a.ts", specifier: "./b.ts", to: "b.ts" },
        { from: "b.ts", specifier: "./a.ts", to: "a.ts" },
        { from: "c.ts", specifier: "./c.ts", to: "c.ts" },
        { from: "d.ts", specifier: "./e.ts", to: "e.ts" },
      ],
    };
    expect(findCycles(graph)).toEqual([
      ["a.ts", "b.ts", "a.ts"],
      ["c.ts", "c.ts"],
    ]);
    expect(findCycles({ files: graph.files, edges: graph.edges.slice(3) })).toEqual([]);
  });
});

describe("layers", () => {
  const graph = (edges: Array<[string, string]>, files: string[] = [...new Set(edges.flat())]): ImportGraph => ({
    files,
    edges: edges.map(([from, to]) => ({ from, specifier: `./${to}`, to })),
  });

  it("names an import that points up: the file, the specifier and both layers", () => {
    const problems = layerProblems(graph([["bottom/b.ts", "top/a.ts"]]), TWO_LAYERS, (file) => `src/${file}`);
    expect(problems).toEqual([
      {
        file: "bottom/b.ts",
        message: 'src/bottom/b.ts imports "./top/a.ts" (src/top/a.ts): layer "bottom" may not import layer "top", which is above it',
      },
    ]);
  });

  it("lets a path import itself, any layer below it, and the paths of its layer its `uses` names", () => {
    const layers: Layer[] = [TWO_LAYERS[0]!, { ...TWO_LAYERS[1]!, uses: { "bottom/": ["floor.ts"] } }];
    expect(layerProblems(graph([["top/a.ts", "bottom/b.ts"], ["top/a.ts", "top/c.ts"], ["bottom/b.ts", "floor.ts"]]), layers)).toEqual([]);
  });

  it("names an import between two paths of one layer that its `uses` does not allow", () => {
    const layers: Layer[] = [{ name: "services", role: "", paths: ["guardrails/", "logging/", "store/"], uses: { "logging/": ["store/"] } }];
    const problems = layerProblems(graph([["logging/w.ts", "store/s.ts"], ["guardrails/g.ts", "store/s.ts"]]), layers);
    expect(problems.map((problem) => problem.file)).toEqual(["guardrails/g.ts"]);
    expect(problems[0]!.message).toContain('in layer "services", guardrails/ may not import store/');
  });

  it("keeps database clients and SQL in the store paths", () => {
    const files = ["guardrails/g.ts", "store/s.ts", "guardrails/g.test.ts"];
    const problems = layerProblems(
      {
        files,
        edges: [],
        packages: files.map((from) => ({ from, specifier: "kysely" })),
        sql: files.map((from) => ({ from, line: 3, text: "SELECT id FROM logs" })),
      },
      [{ name: "all", role: "", paths: ["guardrails/", "store/"] }],
      (file) => file,
      ["store/"],
    );
    expect(problems.map((problem) => problem.message)).toEqual([
      'guardrails/g.ts imports "kysely": database clients belong to the store (store/)',
      'guardrails/g.ts:3 writes SQL ("SELECT id FROM logs"): SQL belongs to the store (store/)',
    ]);
  });

  it("finds SQL statements in strings and templates, not English", () => {
    const text = ["const a = `SELECT id FROM ${table} WHERE x`;", 'const b = "INSERT INTO logs (id) VALUES (?)";', 'const c = "Select a provider from the list";', 'const d = "UPDATE: fixed";'].join("\n");
    expect(sqlTextsOf("x.ts", text).map((found) => found.line)).toEqual([1, 2]);
  });

  it("fails a file no layer names, and leaves tests out of the rules", () => {
    const problems = layerProblems(graph([["bottom/x.test.ts", "top/a.ts"]], ["bottom/x.test.ts", "top/a.ts", "stray/s.ts"]), TWO_LAYERS);
    expect(problems.map((problem) => problem.file)).toEqual(["stray/s.ts"]);
  });

  it("places a file by the longest path that names it", () => {
    const layers: Layer[] = [
      { name: "high", role: "", paths: ["generated/top.gen.ts"] },
      { name: "low", role: "", paths: ["generated/"] },
    ];
    expect(layerOf("generated/top.gen.ts", layers)?.layer.name).toBe("high");
    expect(layerOf("generated/types.gen.ts", layers)?.layer.name).toBe("low");
    expect(layerOf("generated.ts", layers)).toBeNull();
  });
});

describe("the gateway's src/", () => {
  const src = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src");

  it("has no import cycle and no import that points up its layers", () => {
    const graph = readImportGraph(src);
    expect(graph.files.length).toBeGreaterThan(400);
    expect(findCycles(graph)).toEqual([]);
    expect(layerProblems(graph, LAYERS)).toEqual([]);
  });

  it("keeps the floor free of imports from above it", () => {
    const graph = readImportGraph(src);
    const floor = LAYERS.length - 1;
    const upward = graph.edges.filter((edge) => !edge.from.endsWith(".test.ts") && layerOf(edge.from, LAYERS)?.index === floor && layerOf(edge.to, LAYERS)!.index !== floor);
    expect(upward).toEqual([]);
  });

  it("keeps the Responses family domain but its tool loop and kept answers pipeline, out of the log worker's reach", () => {
    expect(layerOf("families/responses/index.ts", LAYERS)?.layer.name).toBe("domain");
    expect(layerOf("families/responses/via-chat/index.ts", LAYERS)?.layer.name).toBe("domain");
    expect(layerOf("families/responses/tool-run/tool-run.ts", LAYERS)?.layer.name).toBe("pipeline");
    expect(layerOf("families/responses/kept/keep-answer.ts", LAYERS)?.layer.name).toBe("pipeline");

    const graph = readImportGraph(src);
    const reached = new Set(["logging/log-store-worker.ts"]);
    for (const file of reached) for (const edge of graph.edges) if (edge.from === file) reached.add(edge.to);
    expect(reached.has("families/responses/index.ts")).toBe(true);
    expect([...reached].filter((file) => layerOf(file, LAYERS)!.index < LAYERS.findIndex((layer) => layer.name === "services"))).toEqual([]);
  });
});
