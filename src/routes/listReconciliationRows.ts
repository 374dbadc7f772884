import { listReconciliationRowsRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import type { GatewayDeps } from "../deps.ts";
import { rowView } from "../reconcile/reconciler.ts";

const DAY_MS = 86_400_000;

export function registerListReconciliationRows(app: GatewayApp, deps: GatewayDeps): void {
  app.openapi(listReconciliationRowsRoute, async (c) => {
    const auth = c.get("auth");
    const query = c.req.valid("query");
    const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const key = query.virtual_key ? await deps.store.virtualKeys.getBySlug(auth.workspaceId, query.virtual_key) : undefined;
    if (query.virtual_key && !key) return c.json({ object: "list" as const, data: [] }, 200);
    const rows = await deps.store.reconciliation.rows(auth.workspaceId, {
      from: query.from ?? day(today - 30 * DAY_MS),
      to: query.to ?? day(today + DAY_MS),
      virtualKeyId: key?.id,
      driftedOnly: query.drifted === true,
      limit: query.limit ?? 200,
    });
    // Each row names its key by slug: the keys of the workspace, read once.
    const slugs = new Map((await deps.store.virtualKeys.list(auth.workspaceId)).map((each) => [each.id, each.slug] as const));
    const data = rows.map((row) => ({ virtual_key: slugs.get(row.virtualKeyId) ?? row.virtualKeyId, ...rowView(row), checked_at: row.checkedAt }));
    return c.json({ object: "list" as const, data }, 200);
  });
}
