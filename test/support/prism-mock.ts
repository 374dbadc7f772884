import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { freePort } from "./harness.ts";

export interface PrismMock {
  /** The mock's base URL, as OpenAI's `https://api.openai.com/v1` (its paths have no `/v1`). */
  url: string;
  stop(): Promise<void>;
}

/**
 * Prism (`@stoplight/prism-cli`) mocking an OpenAPI document on loopback: it checks each request
 * against the document (422 naming the violations when one breaks it) and answers the
 * document's examples. Loading OpenAI's 3 MB document takes about a minute on two cores.
 */
export async function startPrismMock(documentPath: string, timeoutMs = 240_000): Promise<PrismMock> {
  const port = await freePort();
  const cli = createRequire(import.meta.url).resolve("@stoplight/prism-cli/dist/index.js");
  const child: ChildProcess = spawn(process.execPath, [cli, "mock", "--host", "127.0.0.1", "--port", String(port), documentPath], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
    if (child.exitCode === null) child.kill("SIGKILL");
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Prism exited (${child.exitCode}): ${stderr}`);
    const answered = await fetch(`${url}/models`, { headers: { authorization: "Bearer sk-mock" } }).then(
      (response) => response.status,
      () => null,
    );
    if (answered !== null) return { url, stop };
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  await stop();
  throw new Error(`Prism did not start within ${timeoutMs} ms: ${stderr}`);
}
