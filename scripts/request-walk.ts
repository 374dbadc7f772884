/**
 * The files and folders of `src/` whose code one plain chat completion runs, from its route to the
 * upstream and into the stored log: V8's precise coverage, reset after a warm-up request, read after
 * one more request and its log write. Run: `npx tsx scripts/request-walk.ts` (add `--files` for the list).
 */
import { Session } from "node:inspector/promises";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { LLMock } from "@copilotkit/aimock";
import { configWith } from "../src/config.ts";
import { createGateway } from "../src/gateway.ts";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..", "src");

const upstream = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
await upstream.start();
upstream.onMessage("walk", { content: "walked", usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });
const dataDir = await mkdtemp(join(tmpdir(), "gateway-walk-"));
const adminKey = `walk-${randomBytes(8).toString("hex")}`;
const gateway = await createGateway(
  configWith({
    GATEWAY_DATABASE_URL: `file:${join(dataDir, "walk.db")}`,
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_ADMIN_KEY: adminKey,
    GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    GATEWAY_QUIET: true,
  }),
);

async function chat(): Promise<void> {
  const response = await gateway.app.fetch(
    new Request("http://gateway/v1/chat/completions", {
      method: "POST",
      headers: {
        "x-gateway-api-key": adminKey,
        authorization: "Bearer sk-walk",
        "content-type": "application/json",
        "x-gateway-provider": "openai",
        "x-gateway-custom-host": `${upstream.url}/v1`,
      },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "walk" }] }),
    }),
  );
  if (response.status !== 200) throw new Error(`chat answered ${response.status}: ${await response.text()}`);
  await response.text();
  await gateway.deps.logWriter.flush();
}

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
await chat();
await session.post("Profiler.takePreciseCoverage");
await chat();
const { result } = await session.post("Profiler.takePreciseCoverage");

const files = new Set<string>();
for (const script of result) {
  if (!script.url.startsWith("file:")) continue;
  const path = relative(SRC, fileURLToPath(script.url));
  if (path.startsWith("..")) continue;
  if (script.functions.some((fn) => fn.ranges.some((range) => range.count > 0))) files.add(path);
}
const folders = new Set([...files].map((file) => dirname(file)));
console.log(`a chat request runs code in ${files.size} files in ${folders.size} folders of src/`);
if (process.argv.includes("--files")) for (const file of [...files].sort()) console.log(`  ${file}`);

await gateway.drain();
await upstream.stop();
await rm(dataDir, { recursive: true, force: true });
