import { createHash } from "node:crypto";
import type { SharedRedis } from "../shared-state/redis.ts";
import type { BreakerPolicy } from "./routing-plan.ts";
import type { Target } from "../operation/target.ts";

/**
 * Circuit breaking (`cb_config`): a target that fails `failureThreshold` times within `windowMs`
 * is skipped for `cooldownMs`; then requests try it again, and one more failure before a success
 * opens it at once (half-open). State is per upstream target (provider, base URL, model and key),
 * in process, or in Redis when the gateway has one, so replicas skip a failing target together.
 */
export interface CircuitBreakers {
  /** Whether the target may be tried now. Never throws. */
  allows(key: string, policy: BreakerPolicy): Promise<boolean>;
  /** Counts one try's outcome. Never throws. */
  record(key: string, policy: BreakerPolicy, failed: boolean): Promise<void>;
}

/** The state's key for a target: its key hashed, so no credential sits in memory maps or Redis. */
export function breakerKey(target: Target): string {
  const { apiKey, fields } = target.credentials;
  const fieldText = JSON.stringify(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : 1)));
  const hash = createHash("sha256").update(`${target.provider.id}\n${target.baseUrl}\n${target.model ?? ""}\n${apiKey ?? ""}\n${fieldText}`).digest("base64url");
  return hash.slice(0, 22);
}

interface LocalState {
  failures: number[];
  openUntil: number;
  /** Until when a single failure reopens it (after a cool-down, before a success). */
  halfOpenUntil: number;
}

/** In-process breakers, and the fallback of the shared ones while Redis is away. */
export class LocalCircuitBreakers implements CircuitBreakers {
  private readonly states = new Map<string, LocalState>();

  constructor(private readonly now: () => number = Date.now) {}

  async allows(key: string): Promise<boolean> {
    const state = this.states.get(key);
    return !state || state.openUntil <= this.now();
  }

  async record(key: string, policy: BreakerPolicy, failed: boolean): Promise<void> {
    const now = this.now();
    let state = this.states.get(key);
    if (!failed) {
      if (state) state.halfOpenUntil = 0;
      return;
    }
    if (!state) {
      // Bounded: a map of every target ever tried would grow with each new key or model.
      if (this.states.size >= 10_000) this.states.delete(this.states.keys().next().value!);
      state = { failures: [], openUntil: 0, halfOpenUntil: 0 };
      this.states.set(key, state);
    }
    state.failures = state.failures.filter((at) => at > now - policy.windowMs);
    state.failures.push(now);
    const reopen = state.halfOpenUntil > now && state.openUntil <= now;
    if (reopen || state.failures.length >= policy.failureThreshold) this.open(state, policy, now);
  }

  private open(state: LocalState, policy: BreakerPolicy, now: number): void {
    state.openUntil = now + policy.cooldownMs;
    state.halfOpenUntil = state.openUntil + policy.windowMs;
    state.failures = [];
  }
}

/**
 * KEYS: failures, open, half-open. ARGV: windowMs, threshold, cooldownMs, failed (1|0).
 * Returns 1 when this call opened the circuit.
 */
const RECORD_SCRIPT = `
if ARGV[4] == "0" then redis.call("DEL", KEYS[3]) return 0 end
local reopen = redis.call("EXISTS", KEYS[3]) == 1 and redis.call("EXISTS", KEYS[2]) == 0
local count = redis.call("INCR", KEYS[1])
if count == 1 then redis.call("PEXPIRE", KEYS[1], ARGV[1]) end
if reopen or count >= tonumber(ARGV[2]) then
  redis.call("SET", KEYS[2], "1", "PX", ARGV[3])
  redis.call("SET", KEYS[3], "1", "PX", tonumber(ARGV[3]) + tonumber(ARGV[1]))
  redis.call("DEL", KEYS[1])
  return 1
end
return 0`;

/** Breakers shared through Redis; while it is away, the in-process ones decide. */
export function sharedCircuitBreakers(redis: SharedRedis, local = new LocalCircuitBreakers()): CircuitBreakers {
  const keys = (key: string): [string, string, string] => [`gw:cb:${key}:failures`, `gw:cb:${key}:open`, `gw:cb:${key}:half`];
  return {
    async allows(key) {
      if (!redis.available) return local.allows(key);
      try {
        return (await redis.client.exists(keys(key)[1])) === 0;
      } catch {
        return local.allows(key);
      }
    },
    async record(key, policy, failed) {
      if (!redis.available) return local.record(key, policy, failed);
      try {
        await redis.client.eval(RECORD_SCRIPT, 3, ...keys(key), policy.windowMs, policy.failureThreshold, policy.cooldownMs, failed ? 1 : 0);
      } catch {
        await local.record(key, policy, failed);
      }
    },
  };
}
