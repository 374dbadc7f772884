import { reconcileVirtualKeyRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { matchedBy } from "../control-plane/reconciliation-fields.ts";
import { GatewayError } from "../errors.ts";
import { rowView } from "../reconcile/reconciler.ts";

const DAY_MS = 86_400_000;
/** The longest range one reconciliation reads: a month of daily buckets, as both providers' reports give in one page. */
const MAX_DAYS = 31;

export function registerReconcileVirtualKey(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(reconcileVirtualKeyRoute, async (c) => {
    const auth = c.get("auth");
    const { slug } = c.req.valid("param");
    const body = c.req.valid("json");
    const key = await deps.store.virtualKeys.getBySlug(auth.workspaceId, slug);
    if (!key) throw new GatewayError("not_found", `No virtual key ${slug} in this workspace.`, { param: "slug" });
    const settings = await deps.store.reconciliation.get(auth.workspaceId, key.id);
    if (!settings) throw new GatewayError("invalid_request", `Virtual key ${slug} has no reconciliation settings: PUT /v1/virtual-keys/${slug}/reconciliation first.`, { param: "slug" });
    const start = Date.parse(`${body.start}T00:00:00.000Z`);
    const end = Date.parse(`${body.end}T00:00:00.000Z`);
    if (!(end > start)) throw new GatewayError("invalid_request", "end must be a later day than start.", { param: "end" });
    if (end - start > MAX_DAYS * DAY_MS) throw new GatewayError("invalid_request", `A reconciliation reads at most ${MAX_DAYS} days.`, { param: "end" });
    if (end > Date.now() + 2 * DAY_MS) throw new GatewayError("invalid_request", "end is at most tomorrow: no report covers the future.", { param: "end" });
    const result = await deps.reconciler.reconcile(settings, key, start, end);
    if (!result.ok) throw result.error;
    const rows = result.value.rows.map(rowView);
    const total = (pick: (row: (typeof rows)[number]) => number | null) => Math.round(rows.reduce((sum, row) => sum + (pick(row) ?? 0), 0) * 1e10) / 1e10;
    return c.json(
      {
        object: "reconciliation" as const,
        virtual_key: key.slug,
        provider: settings.provider,
        start: body.start,
        end: body.end,
        matched_by: matchedBy(settings),
        rows,
        totals: { gateway_cost_usd: total((row) => row.gateway_cost_usd), provider_cost_usd: total((row) => row.provider_cost_usd), drift_usd: total((row) => row.drift_usd) },
      },
      200,
    );
  });
}
