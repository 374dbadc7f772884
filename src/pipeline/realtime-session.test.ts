import { describe, expect, it } from "vitest";
import type { AnswerEnding } from "../logging/outcome.ts";
import { MAX_WAITING_BYTES, RealtimeSession, RealtimeSessions, type RealtimeLink } from "./realtime-session.ts";

/** A socket whose peer reads nothing while `stalled`: what is sent stays in its buffer. */
function fakeLink() {
  const link = {
    stalled: false,
    sent: 0,
    waiting: 0,
    closed: null as { code: number; reason: string } | null,
    terminated: false,
    send(data: string | Uint8Array) {
      const size = typeof data === "string" ? data.length : data.byteLength;
      link.sent += size;
      if (link.stalled) link.waiting += size;
    },
    buffered: () => link.waiting,
    close(code: number, reason: string) {
      link.closed = { code, reason };
    },
    terminate() {
      link.terminated = true;
    },
  };
  return link satisfies RealtimeLink;
}

function session(endings: AnswerEnding[]): RealtimeSession {
  return new RealtimeSession("gpt-realtime", (ending) => endings.push(ending), new RealtimeSessions(), "realtime", {});
}

const MIB = "x".repeat(1024 * 1024);

describe("a realtime session whose peer stops reading", () => {
  it("relays while the upstream reads, and ends with 1008 once too much waits for it", () => {
    const entries: AnswerEnding[] = [];
    const relay = session(entries);
    const upstream = fakeLink();
    const client = fakeLink();
    relay.upstreamOpened(upstream);
    relay.attachClient(client);
    for (let i = 0; i < 64; i++) relay.fromClient(MIB);
    expect(upstream.sent).toBe(64 * MIB.length);
    expect(relay.isEnded).toBe(false);

    upstream.stalled = true;
    let sent = 0;
    while (!relay.isEnded && sent < 64) {
      relay.fromClient(MIB);
      sent += 1;
    }
    expect(relay.isEnded).toBe(true);
    expect(sent * MIB.length).toBeGreaterThan(MAX_WAITING_BYTES);
    expect(sent * MIB.length).toBeLessThanOrEqual(MAX_WAITING_BYTES + MIB.length);
    expect(upstream.terminated).toBe(true);
    expect(client.closed?.code).toBe(1008);
    expect(entries).toHaveLength(1);
    // Nothing more is relayed once the session is over.
    const before = upstream.sent;
    relay.fromClient(MIB);
    expect(upstream.sent).toBe(before);
  });

  it("drops a client that stops reading the upstream's events", () => {
    const relay = session([]);
    const upstream = fakeLink();
    const client = fakeLink();
    relay.upstreamOpened(upstream);
    relay.attachClient(client);
    client.stalled = true;
    for (let i = 0; i < 32 && !relay.isEnded; i++) relay.upstreamListener.message(MIB);
    expect(relay.isEnded).toBe(true);
    expect(client.terminated).toBe(true);
    expect(upstream.terminated).toBe(true);
  });
});
