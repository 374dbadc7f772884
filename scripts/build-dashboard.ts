/**
 * Builds the browser dashboard (`dashboard/`) into `dist/dashboard/`: one hashed JS bundle, one
 * hashed CSS file and an `index.html` naming them. Runs before `npm start` (and `start:node`) and
 * before the tests; it does nothing when the sources, the lockfile and this script are unchanged
 * since the last build (a fingerprint is kept in `dist/dashboard/.fingerprint`).
 *
 *   tsx scripts/build-dashboard.ts [--force]
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const sourceDir = join(root, "dashboard");
const outDir = join(root, "dist", "dashboard");
const fingerprintFile = join(outDir, ".fingerprint");

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)])));
  return nested.flat().sort();
}

/** A hash of everything the bundle is made from. */
async function fingerprint(): Promise<string> {
  const hash = createHash("sha256");
  const inputs = [...(await filesUnder(sourceDir)), join(root, "package-lock.json"), fileURLToPath(import.meta.url)];
  for (const file of inputs) {
    hash.update(relative(root, file)).update("\0");
    hash.update(await readFile(file).catch(() => Buffer.alloc(0))).update("\0");
  }
  return hash.digest("hex");
}

export interface DashboardBuild {
  built: boolean;
  files: { path: string; bytes: number }[];
}

/** Builds the bundle unless it is up to date; never leaves a half-written `index.html`. */
export async function buildDashboard(options: { force?: boolean } = {}): Promise<DashboardBuild> {
  const print = await fingerprint();
  const previous = await readFile(fingerprintFile, "utf8").catch(() => "");
  if (!options.force && previous === print) return { built: false, files: [] };

  await rm(outDir, { recursive: true, force: true });
  await mkdir(join(outDir, "assets"), { recursive: true });
  const result = await build({
    entryPoints: [join(sourceDir, "main.ts")],
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: "esm",
    target: ["es2022"],
    outdir: join(outDir, "assets"),
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    metafile: true,
    sourcemap: false,
    legalComments: "none",
    logLevel: "warning",
  });
  const outputs = Object.entries(result.metafile.outputs).map(([path, output]) => ({ path: relative(outDir, join(root, path)), bytes: output.bytes }));
  const script = outputs.find((output) => output.path.endsWith(".js"));
  const style = outputs.find((output) => output.path.endsWith(".css"));
  if (!script || !style) throw new Error("dashboard build produced no JS or CSS");
  const template = await readFile(join(sourceDir, "index.html"), "utf8");
  const html = template.replace("%SCRIPT%", `/dashboard/${script.path}`).replace("%STYLE%", `/dashboard/${style.path}`);
  await writeFile(join(outDir, "index.html"), html);
  await writeFile(fingerprintFile, print);
  return { built: true, files: [...outputs, { path: "index.html", bytes: Buffer.byteLength(html) }] };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const result = await buildDashboard({ force: process.argv.includes("--force") });
  if (result.built) {
    const sizes = result.files.map((file) => `${file.path} ${(file.bytes / 1024).toFixed(1)} KiB`).join(", ");
    console.log(`dashboard built in ${Math.round(performance.now() - started)} ms: ${sizes}`);
  }
}
