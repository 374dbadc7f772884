/**
 * A realtime session (OpenAI Realtime over WebSocket), runtime-neutral: the relay between the
 * client's socket and the upstream's, its close policy and its one log record. The entry points
 * (`server/realtime-bun.ts`, `server/realtime-node.ts`, `server/realtime-deno.ts`) only adapt their sockets to `RealtimeLink`.
 * https://platform.openai.com/docs/guides/realtime-websocket
 */
import type { GatewayError, Result } from "../errors.ts";
import type { AnswerEnding } from "../logging/outcome.ts";
import type { UpstreamTls } from "../net/upstream-tls.ts";

/** A WebSocket message as both runtimes hand it over: text, or binary bytes. */
export type RealtimeMessage = string | Uint8Array;

/** One side of a session: what the session may do to a socket. */
export interface RealtimeLink {
  /** Sends one message as it is; a closed socket drops it. Never throws. */
  send(data: RealtimeMessage): void;
  /** Bytes sent but not yet taken by the peer: what piles up when the peer does not read. */
  buffered(): number;
  /** Closes the socket with a code that may be sent (`sendableCode`). Never throws. */
  close(code: number, reason: string): void;
  /** Drops the socket at once, with whatever it still had to send. Never throws. */
  terminate(): void;
}

/**
 * The most a session lets wait for a side that does not read (in its socket's send buffer, or
 * for a client not yet attached). Past it the session ends with 1008: relaying on would hold
 * whatever the other side sends, without bound.
 */
export const MAX_WAITING_BYTES = 16 * 1024 * 1024;

/** What the session hears from the upstream's socket. */
export interface UpstreamListener {
  message(data: RealtimeMessage): void;
  /** Once, when the upstream's socket closes (also after an error: code 1006). */
  close(code: number, reason: string): void;
}

/**
 * Opens the upstream's WebSocket: resolves once it is open, or with the gateway's error when the
 * upstream refuses the handshake, cannot be reached or does not answer in `timeoutMs`.
 */
export type ConnectUpstream = (
  request: {
    url: string;
    /**
     * The addresses the SSRF guard checked for the URL's host: the socket connects to one of
     * them, never to a fresh resolution (DNS rebinding); null when the host is not pinned.
     */
    addresses: readonly string[] | null;
    headers: Record<string, string>;
    timeoutMs: number;
    providerName: string;
    /** The provider's reading of a refused handshake's answer. */
    refused: (status: number, text: string) => GatewayError;
    /** The client certificate to present (`UPSTREAM_MTLS_*`); null without mutual TLS. */
    tls: UpstreamTls | null;
  },
  listener: UpstreamListener,
) => Promise<Result<RealtimeLink, GatewayError>>;

/** What an entry point lends the app (as the `realtime` binding) so that a route can open a session. */
export interface RealtimeRuntime {
  connect: ConnectUpstream;
  /**
   * Upgrades the request's connection and attaches the client's socket to `session`; the
   * 101 answer carries `session.protocol` and `session.responseHeaders`. False when the
   * connection cannot be upgraded.
   */
  upgrade(session: RealtimeSession): boolean;
}

/** The subprotocol the gateway answers when the client offers it (as OpenAI does). */
export const REALTIME_PROTOCOL = "realtime";
/** The subprotocol form of the gateway key, for browsers, which cannot set headers on a WebSocket. */
export const GATEWAY_KEY_PROTOCOL_PREFIX = "gateway-key.";

/** The subprotocols a client offered, in order. */
export function offeredProtocols(header: string | null | undefined): string[] {
  return (header ?? "").split(",").map((item) => item.trim()).filter((item) => item.length > 0);
}

/** The gateway key offered as the subprotocol `gateway-key.<key>`, if any. */
export function gatewayKeyFromProtocols(header: string | null | undefined): string | undefined {
  const offered = offeredProtocols(header).find((item) => item.startsWith(GATEWAY_KEY_PROTOCOL_PREFIX));
  return offered?.slice(GATEWAY_KEY_PROTOCOL_PREFIX.length) || undefined;
}

/** True for a close code a peer may send in a close frame (RFC 6455 §7.4). */
export function sendableCode(code: number): boolean {
  return code === 1000 || code === 1001 || code === 1002 || code === 1003 || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

/** The code and reason passed on to the other side: reserved codes mapped, the reason cut to the 123 bytes a frame holds. */
export function passedClose(code: number, reason: string, fallback: number): { code: number; reason: string } {
  const passed = sendableCode(code) ? code : code === 1005 ? 1000 : fallback;
  let cut = reason;
  while (Buffer.byteLength(cut) > 123) cut = cut.slice(0, -1);
  return { code: passed, reason: cut };
}

/** Distinct event types counted per side; past this, events count under `other`. */
const MAX_EVENT_TYPES = 64;
/** Where the event `type` is looked for: the start of the message (no audio is parsed). */
const TYPE_WINDOW = 256;

interface SideCounts {
  events: Record<string, number>;
  binary: number;
}

/** Open sessions, so that shutdown can close them (code 1001). */
export class RealtimeSessions {
  private readonly open = new Set<RealtimeSession>();

  add(session: RealtimeSession): void {
    this.open.add(session);
  }

  delete(session: RealtimeSession): void {
    this.open.delete(session);
  }

  get size(): number {
    return this.open.size;
  }

  /** Closes every open session, both sides, with 1001 (going away). Never throws. */
  closeAll(reason = "The gateway is shutting down."): void {
    for (const session of [...this.open]) session.shutdown(reason);
  }
}

/**
 * One session. Created once the upstream's socket is open (messages it sends before the client's
 * socket is attached wait in order); relays each message as it arrives; a close on one side
 * closes the other; finishes its log once, when the first side closes.
 */
export class RealtimeSession {
  private client: RealtimeLink | null = null;
  private upstream: RealtimeLink | null = null;
  private waiting: RealtimeMessage[] = [];
  private waitingBytes = 0;
  private ended = false;
  private upstreamClose: { code: number; reason: string } | null = null;
  private readonly counts = { client: { events: {}, binary: 0 } as SideCounts, upstream: { events: {}, binary: 0 } as SideCounts };
  private readonly usage = { input: 0, output: 0, cached: 0, total: 0, responses: 0 };
  private closedBy: { side: "client" | "upstream" | "gateway"; code: number; reason: string } | null = null;
  private firstMessageAt: number | null = null;

  constructor(
    /** The model the session serves, for its summary. */
    private readonly model: string | null,
    /** Told once how the session ended: status 101, its summary as the body. */
    private readonly onEnd: (ending: AnswerEnding) => void,
    private readonly registry: RealtimeSessions,
    /** The subprotocol answered (`realtime` when offered), or null. */
    readonly protocol: string | null,
    /** Headers of the 101 answer (trace and log ids, the provider). */
    readonly responseHeaders: Record<string, string>,
  ) {
    registry.add(this);
  }

  /** The listener to give `ConnectUpstream`. */
  readonly upstreamListener: UpstreamListener = {
    message: (data) => this.fromUpstream(data),
    close: (code, reason) => this.upstreamClosed(code, reason),
  };

  /** Called once the upstream's socket is open. */
  upstreamOpened(link: RealtimeLink): void {
    this.upstream = link;
  }

  /** True when the upstream's socket closed (or shutdown began) before the client's was attached. */
  get upstreamGone(): boolean {
    return this.client === null && (this.upstreamClose !== null || this.closedBy !== null);
  }

  /** The session is dropped before the upgrade: no log is finished here (the route logs its refusal). */
  abandon(): void {
    this.ended = true;
    this.waiting = [];
    this.registry.delete(this);
    this.upstream?.close(1011, "The session could not be opened.");
  }

  /** Called by the entry point once the client's socket is open: waiting messages go first. */
  attachClient(link: RealtimeLink): void {
    if (this.ended) {
      link.close(1011, "The session could not be opened.");
      return;
    }
    this.client = link;
    for (const data of this.waiting.splice(0)) link.send(data);
    this.waitingBytes = 0;
    if (this.closedBy?.side === "gateway") {
      link.close(1001, this.closedBy.reason);
      this.end();
    } else if (this.upstreamClose) {
      const { code, reason } = passedClose(this.upstreamClose.code, this.upstreamClose.reason, 1011);
      this.closedBy = { side: "upstream", ...this.upstreamClose };
      link.close(code, reason);
      this.end();
    }
  }

  /** A message from the client, passed upstream. */
  fromClient(data: RealtimeMessage): void {
    if (this.ended) return;
    this.count(this.counts.client, data);
    if (!this.upstream) return;
    this.upstream.send(data);
    if (this.upstream.buffered() > MAX_WAITING_BYTES) this.overflow("upstream");
  }

  /** A side stopped reading: both sockets are dropped, the client told why when it can be. */
  private overflow(slow: "client" | "upstream"): void {
    const reason = `The ${slow} is not reading: more than ${MAX_WAITING_BYTES} bytes waiting for it.`;
    this.closedBy = { side: "gateway", code: 1008, reason };
    this.upstream?.terminate();
    if (slow === "client") this.client?.terminate();
    else this.client?.close(1008, reason);
    this.end();
  }

  /** The client's socket closed (or failed: 1006): the upstream's is closed too. */
  clientClosed(code: number, reason: string): void {
    if (this.ended) return;
    // A close the gateway began (shutdown, overflow) may come back here before the session ends.
    this.closedBy ??= { side: "client", code, reason };
    const passed = passedClose(code, reason, 1001);
    this.upstream?.close(passed.code, passed.reason);
    this.end();
  }

  /** Shutdown: both sides closed with 1001. */
  shutdown(reason: string): void {
    if (this.ended || this.closedBy) return;
    this.closedBy = { side: "gateway", code: 1001, reason };
    this.upstream?.close(1001, reason);
    if (!this.client) return;
    this.client.close(1001, reason);
    this.end();
  }

  /** True once the session is over (logged, or abandoned before the upgrade). */
  get isEnded(): boolean {
    return this.ended;
  }

  private fromUpstream(data: RealtimeMessage): void {
    if (this.ended) return;
    this.firstMessageAt ??= performance.now();
    const type = this.count(this.counts.upstream, data);
    if (type === "response.done" && typeof data === "string") this.addUsage(data);
    if (this.client) {
      this.client.send(data);
      if (this.client.buffered() > MAX_WAITING_BYTES) this.overflow("client");
      return;
    }
    this.waiting.push(data);
    this.waitingBytes += typeof data === "string" ? data.length : data.byteLength;
    if (this.waitingBytes > MAX_WAITING_BYTES) this.overflow("client");
  }

  private upstreamClosed(code: number, reason: string): void {
    this.upstreamClose = { code, reason };
    if (this.ended || !this.client) return;
    this.closedBy ??= { side: "upstream", code, reason };
    const passed = passedClose(code, reason, 1011);
    this.client.close(passed.code, passed.reason);
    this.end();
  }

  /** Counts a message by its event type (found without parsing the whole message); returns the type. */
  private count(side: SideCounts, data: RealtimeMessage): string | null {
    if (typeof data !== "string") {
      side.binary += 1;
      return null;
    }
    const type = /"type"\s*:\s*"([^"\\]{1,100})"/.exec(data.slice(0, TYPE_WINDOW))?.[1] ?? "unknown";
    const key = type in side.events || Object.keys(side.events).length < MAX_EVENT_TYPES ? type : "other";
    side.events[key] = (side.events[key] ?? 0) + 1;
    return type;
  }

  private addUsage(text: string): void {
    let usage: unknown;
    try {
      usage = (JSON.parse(text) as { response?: { usage?: unknown } }).response?.usage;
    } catch {
      return;
    }
    if (!usage || typeof usage !== "object") return;
    const read = usage as { input_tokens?: unknown; output_tokens?: unknown; total_tokens?: unknown; input_token_details?: { cached_tokens?: unknown } };
    const input = tokens(read.input_tokens);
    const output = tokens(read.output_tokens);
    this.usage.input += input;
    this.usage.output += output;
    this.usage.total += tokens(read.total_tokens) || input + output;
    this.usage.cached += tokens(read.input_token_details?.cached_tokens);
    this.usage.responses += 1;
  }

  /** Finishes the log: status 101, a summary of the session as the body (never its audio). */
  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.waiting = [];
    this.registry.delete(this);
    const { usage } = this;
    const summary = {
      object: "realtime.session",
      model: this.model,
      events: { client: this.counts.client.events, upstream: this.counts.upstream.events },
      binary_messages: { client: this.counts.client.binary, upstream: this.counts.upstream.binary },
      closed_by: this.closedBy,
      usage:
        usage.responses === 0
          ? null
          : { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.total, prompt_tokens_details: { cached_tokens: usage.cached } },
    };
    const text = JSON.stringify(summary);
    this.onEnd({
      status: 101,
      error: null,
      response: { kind: "json-text", text, totalBytes: Buffer.byteLength(text), truncated: false, tail: null },
      firstTokenAt: this.firstMessageAt,
    });
  }
}

function tokens(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
}
