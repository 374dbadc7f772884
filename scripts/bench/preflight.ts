/**
 * Checks each target answers the bench requests correctly before any timing, so a fast
 * error page can never pass for a fast proxy.
 */
import { chatBody, streamBody } from "./fixtures.ts";
import { createClient, timeRequest } from "./http-driver.ts";
import type { Target } from "./targets.ts";

const excerpt = (text: string): string => (text.length > 600 ? `${text.slice(0, 600)}…` : text);

export async function preflight(target: Target): Promise<void> {
  const client = createClient(target, 1);
  try {
    const plain = await timeRequest(client, chatBody);
    let object: unknown;
    try {
      object = (JSON.parse(plain.body) as { object?: unknown }).object;
    } catch {
      object = undefined;
    }
    if (plain.status !== 200 || object !== "chat.completion") {
      throw new Error(`bench: ${target.name} answered ${plain.status} to a chat request:\n${excerpt(plain.body)}`);
    }
    const stream = await timeRequest(client, streamBody, true);
    const complete = stream.body.includes('"choices":[]') && stream.body.includes("data: [DONE]");
    if (stream.status !== 200 || Number.isNaN(stream.firstTokenMs) || !complete) {
      throw new Error(
        `bench: ${target.name} answered ${stream.status} to a streamed request, ` +
          `content ${Number.isNaN(stream.firstTokenMs) ? "missing" : "seen"}, usage chunk and [DONE] ` +
          `${complete ? "seen" : "missing"}:\n${excerpt(stream.body)}`,
      );
    }
  } finally {
    client.agent.destroy();
  }
}
