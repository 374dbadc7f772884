import type { KeyRateLimit } from "../records/control-plane.ts";

/** The fixed UTC windows of a rate limit, shortest first. */
export const RATE_WINDOWS = [
  { name: "minute", ms: 60_000, requests: "requestsPerMinute", tokens: "tokensPerMinute" },
  { name: "hour", ms: 3_600_000, requests: "requestsPerHour", tokens: "tokensPerHour" },
  { name: "day", ms: 86_400_000, requests: "requestsPerDay", tokens: "tokensPerDay" },
] as const satisfies readonly { name: string; ms: number; requests: keyof KeyRateLimit; tokens: keyof KeyRateLimit }[];

export type RateWindowName = (typeof RATE_WINDOWS)[number]["name"];

/** One window of one key as metered now: its limits (null: none) and bounds. */
export interface WindowSlot {
  name: RateWindowName;
  requestLimit: number | null;
  tokenLimit: number | null;
  /** Epoch ms of the window's start (a multiple of its length: windows are aligned to UTC). */
  startMs: number;
  endMs: number;
}

/** The windows a rate limit meters at `nowMs`; windows with neither limit are left out. Pure. */
export function windowSlots(limit: KeyRateLimit, nowMs: number): WindowSlot[] {
  const slots: WindowSlot[] = [];
  for (const window of RATE_WINDOWS) {
    const requestLimit = limit[window.requests];
    const tokenLimit = limit[window.tokens];
    if (requestLimit === null && tokenLimit === null) continue;
    const startMs = nowMs - (nowMs % window.ms);
    slots.push({ name: window.name, requestLimit, tokenLimit, startMs, endMs: startMs + window.ms });
  }
  return slots;
}

/** Whole seconds until `endMs`, at least 1: a `Retry-After` of 0 would invite an immediate retry. */
export function secondsUntil(endMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((endMs - nowMs) / 1000));
}
