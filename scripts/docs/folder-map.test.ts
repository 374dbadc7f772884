import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LAYERS } from "../layers/layers.ts";
import { folderMapProblems } from "./folder-map.ts";

const architecture = readFileSync("docs/architecture.md", "utf8");
const folders = readdirSync("src", { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);

describe("docs/architecture.md against the tree", () => {
  it("names every folder of src/ and the layers of scripts/layers/layers.ts", () => {
    expect(folderMapProblems(architecture, folders, LAYERS)).toEqual([]);
  });

  it("names a folder the map lacks, and one the tree lacks", () => {
    expect(folderMapProblems(architecture, [...folders, "brand-new"], LAYERS)).toEqual(["src/brand-new/ is missing from the folder map of docs/architecture.md"]);
    expect(folderMapProblems(architecture, folders.filter((folder) => folder !== "spend"), LAYERS)).toEqual([
      "the folder map of docs/architecture.md names src/spend/, which does not exist",
    ]);
  });

  it("names a layer whose paths or order differ", () => {
    const moved = LAYERS.map((layer) => (layer.name === "pipeline" ? { ...layer, paths: [...layer.paths, "brand-new/"] } : layer));
    expect(folderMapProblems(architecture, folders, moved)).toEqual([expect.stringMatching(/^layer pipeline: docs\/architecture\.md lists .*; scripts\/layers\/layers\.ts has .*brand-new\//)]);
    expect(folderMapProblems(architecture, folders, [...LAYERS].reverse())[0]).toMatch(/^the layer table of docs\/architecture\.md lists entry, http/);
  });
});
