import { createHash } from "node:crypto";
import type { BudgetRecord } from "../records/budget.ts";

/** What of a request decides which budgets hold it. */
export interface BudgetFacts {
  apiKeyId: string | null;
  /** Each candidate target's virtual key and model. */
  candidates: readonly { virtualKeyId: string | null; model: string | null }[];
  /** The end user: the body's `user`, else `x-gateway-metadata`'s `_user`. */
  user: string | null;
  metadata: Readonly<Record<string, string>>;
}

/** One budget a request falls in. */
export interface BudgetMatch {
  budget: BudgetRecord;
  /** The value a budget held per value is held for here (the end user, the metadata value, the model); null for one held as a whole. */
  member: string | null;
  /** The candidates it holds: all (null), or those served through one virtual key or one model. Only the one that answers settles. */
  servedBy: { virtualKeyId: string } | { model: string } | null;
}

/** A workspace's budgets, indexed by what selects them: a request's budgets are found with a few map lookups. */
export interface BudgetIndex {
  readonly size: number;
  readonly budgets: readonly BudgetRecord[];
  match(facts: BudgetFacts): BudgetMatch[];
  /** The budget a key's own `budget` and `rate_limit` fields set, if any. */
  keyBudget(kind: "api_key" | "virtual_key", id: string): BudgetRecord | undefined;
}

/** Builds the index of a workspace's budgets. Pure. */
export function buildBudgetIndex(budgets: readonly BudgetRecord[]): BudgetIndex {
  const workspace: BudgetRecord[] = [];
  const byApiKey = new Map<string, BudgetRecord[]>();
  const byVirtualKey = new Map<string, BudgetRecord[]>();
  const byUser = new Map<string, BudgetRecord[]>();
  const eachUser: BudgetRecord[] = [];
  const byMetadata = new Map<string, BudgetRecord[]>();
  const eachMetadata = new Map<string, BudgetRecord[]>();
  const byModel = new Map<string, BudgetRecord[]>();
  const eachModel: BudgetRecord[] = [];
  const keyBudgets = new Map<string, BudgetRecord>();
  const add = (map: Map<string, BudgetRecord[]>, key: string, budget: BudgetRecord) => {
    const list = map.get(key);
    if (list) list.push(budget);
    else map.set(key, [budget]);
  };
  for (const budget of budgets) {
    const scope = budget.scope;
    switch (scope.type) {
      case "workspace":
        workspace.push(budget);
        break;
      case "api_key":
        add(byApiKey, scope.apiKeyId, budget);
        if (budget.source === "key") keyBudgets.set(`api_key\u0000${scope.apiKeyId}`, budget);
        break;
      case "virtual_key":
        add(byVirtualKey, scope.virtualKeyId, budget);
        if (budget.source === "key") keyBudgets.set(`virtual_key\u0000${scope.virtualKeyId}`, budget);
        break;
      case "user":
        if (scope.user === null) eachUser.push(budget);
        else add(byUser, scope.user, budget);
        break;
      case "metadata":
        if (scope.value === null) add(eachMetadata, scope.key, budget);
        else add(byMetadata, `${scope.key}\u0000${scope.value}`, budget);
        break;
      case "model":
        if (scope.model === null) eachModel.push(budget);
        else add(byModel, scope.model, budget);
        break;
    }
  }
  return {
    size: budgets.length,
    budgets,
    keyBudget: (kind, id) => keyBudgets.get(`${kind}\u0000${id}`),
    match(facts) {
      const matches: BudgetMatch[] = [];
      for (const budget of workspace) matches.push({ budget, member: null, servedBy: null });
      if (facts.apiKeyId !== null) for (const budget of byApiKey.get(facts.apiKeyId) ?? []) matches.push({ budget, member: null, servedBy: null });
      if (byVirtualKey.size > 0 || byModel.size > 0 || eachModel.length > 0) {
        const virtualKeys = new Set<string>();
        const models = new Set<string>();
        for (const candidate of facts.candidates) {
          if (candidate.virtualKeyId !== null) virtualKeys.add(candidate.virtualKeyId);
          if (candidate.model !== null) models.add(candidate.model);
        }
        for (const id of virtualKeys) for (const budget of byVirtualKey.get(id) ?? []) matches.push({ budget, member: null, servedBy: { virtualKeyId: id } });
        for (const model of models) {
          for (const budget of byModel.get(model) ?? []) matches.push({ budget, member: null, servedBy: { model } });
          for (const budget of eachModel) matches.push({ budget, member: model, servedBy: { model } });
        }
      }
      if (facts.user !== null) {
        for (const budget of byUser.get(facts.user) ?? []) matches.push({ budget, member: null, servedBy: null });
        for (const budget of eachUser) matches.push({ budget, member: facts.user, servedBy: null });
      }
      if (byMetadata.size > 0 || eachMetadata.size > 0) {
        for (const key in facts.metadata) {
          const value = facts.metadata[key]!;
          for (const budget of byMetadata.get(`${key}\u0000${value}`) ?? []) matches.push({ budget, member: null, servedBy: null });
          for (const budget of eachMetadata.get(key) ?? []) matches.push({ budget, member: value, servedBy: null });
        }
      }
      return matches;
    },
  };
}

export const EMPTY_BUDGET_INDEX: BudgetIndex = buildBudgetIndex([]);

/** The longest member value kept as it is in a counter's id; longer ones are named by their SHA-256. */
const MAX_MEMBER_CHARS = 128;

/** The counters' id of a budget, or of one member of a budget held per value: `<budget id>/<value>`. */
export function budgetCounterId(budgetId: string, member: string | null): string {
  if (member === null) return budgetId;
  const named = member.length <= MAX_MEMBER_CHARS ? member : `#${createHash("sha256").update(member).digest("hex").slice(0, 32)}`;
  return `${budgetId}/${named}`;
}

/** The member a counter id names (as kept: a long value by its digest); null for a budget held as a whole. */
export function memberOfCounterId(counterId: string): string | null {
  const slash = counterId.indexOf("/");
  return slash < 0 ? null : counterId.slice(slash + 1);
}

/** How errors and alerts name a budget (a key's own by the key, as the key's limits always were). */
export function budgetLabel(budget: BudgetRecord, member: string | null): string {
  const scope = budget.scope;
  if (budget.source === "key" && scope.type === "virtual_key") return `virtual key "${scope.virtualKeySlug}"`;
  if (budget.source === "key" && scope.type === "api_key") return `gateway key ${scope.apiKeyId}`;
  const name = `budget "${budget.name.replace(/"/g, "")}"`;
  if (member === null) return name;
  const what = scope.type === "user" ? "end user" : scope.type === "model" ? "model" : scope.type === "metadata" ? `${scope.key}` : "value";
  return `${name} (${what} "${member.slice(0, 200).replace(/"/g, "")}")`;
}
