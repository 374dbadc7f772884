import type { Redis } from "ioredis";
import { RUN_ADMIT_SCRIPT, RUN_SETTLE_SCRIPT } from "../shared-state/run-scripts.ts";
import { RUN_RULES, VELOCITY_SCOPES, type RunRule, type VelocityScope } from "../records/run-limits.ts";
import { repeatsKey, runKey, runVelocityKey, velocityBucket, VELOCITY_TTL_MS, type RunCounters, type RunHaltState, type RunId, type RunPlan, type RunState, type RunVerdict } from "./run-counters.ts";

interface RunScripts {
  gatewayRunAdmit(numberOfKeys: number, ...keysAndArgs: string[]): Promise<string>;
  gatewayRunSettle(numberOfKeys: number, ...keysAndArgs: string[]): Promise<number>;
}

/** The keys a request without a run passes for the run's two (never written). */
const NO_RUN = ["gw:run:-", "gw:run:-:rep"];

/** Runs counted in Redis, shared by every replica connected to it. Rejects when Redis does. */
export class RedisRunCounters implements RunCounters {
  private readonly scripts: RunScripts;

  constructor(private readonly client: Redis) {
    client.defineCommand("gatewayRunAdmit", { lua: RUN_ADMIT_SCRIPT });
    client.defineCommand("gatewayRunSettle", { lua: RUN_SETTLE_SCRIPT });
    this.scripts = client as unknown as RunScripts;
  }

  async admit(plan: RunPlan): Promise<RunVerdict> {
    const keys = [...(plan.run ? [runKey(plan.run), repeatsKey(plan.run)] : NO_RUN), ...plan.velocity.map((check) => check.key)];
    const { limits } = plan;
    const argument = {
      now: plan.nowMs,
      run: plan.run !== null,
      kind: plan.kind,
      // Absent, not null: cjson decodes null as a userdata value, which Lua counts as true.
      fp: plan.fingerprint ?? undefined,
      lim: {
        req: limits.requests ?? undefined,
        tools: limits.tools ?? undefined,
        cost: limits.costUnits ?? undefined,
        dur: limits.durationMs ?? undefined,
        rep: limits.repeats ?? undefined,
      },
      vel: plan.velocity.map((check) => ({ cap: check.capUnits, cut: check.cutMs, scope: check.scope })),
      ttl: plan.ttlMs,
    };
    const reply = JSON.parse(await this.scripts.gatewayRunAdmit(keys.length, ...keys, JSON.stringify(argument))) as { ok?: true; halted?: unknown; tripped?: unknown };
    if (reply.halted) return { halt: haltOf(reply.halted), fresh: false };
    if (reply.tripped) return { halt: haltOf(reply.tripped), fresh: true };
    return { admitted: true };
  }

  async settle(run: RunId | null, velocityKeys: readonly string[], units: number, nowMs: number): Promise<void> {
    if (units <= 0) return;
    const keys = [run ? runKey(run) : NO_RUN[0]!, ...velocityKeys];
    await this.scripts.gatewayRunSettle(keys.length, ...keys, JSON.stringify({ run: run !== null, units, bucket: velocityBucket(nowMs), vttl: VELOCITY_TTL_MS }));
  }

  async state(run: RunId): Promise<RunState | null> {
    const fields = await this.client.hgetall(runKey(run));
    if (Object.keys(fields).length === 0) return null;
    return {
      requests: Number(fields.req ?? 0),
      tools: Number(fields.tools ?? 0),
      costUnits: Number(fields.cost ?? 0),
      startMs: fields.start ? Number(fields.start) : null,
      halt: fields.halt ? haltOf(JSON.parse(fields.halt)) : null,
    };
  }

  async resume(run: RunId): Promise<RunState | null> {
    const before = await this.state(run);
    await this.client.del(runKey(run), repeatsKey(run), runVelocityKey(run));
    return before;
  }
}

function haltOf(value: unknown): RunHaltState {
  const halt = value as { rule?: unknown; value?: unknown; limit?: unknown; scope?: unknown; at?: unknown };
  return {
    rule: (RUN_RULES as readonly unknown[]).includes(halt.rule) ? (halt.rule as RunRule) : "max_requests",
    value: Number(halt.value ?? 0),
    limit: Number(halt.limit ?? 0),
    scope: (VELOCITY_SCOPES as readonly unknown[]).includes(halt.scope) ? (halt.scope as VelocityScope) : "run",
    atMs: Number(halt.at ?? 0),
  };
}
