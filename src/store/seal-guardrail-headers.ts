import type { Kysely } from "kysely";
import type { GuardrailCheckSpec } from "../records/control-plane.ts";
import { hasClearSecrets, sealClearSecrets } from "../records/guardrail-secrets.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { Database } from "./schema.ts";

/**
 * Seals the webhook header values that guardrails saved before headers were sealed still hold
 * in clear; run once per start, after the migrations (sealing needs the master key, which
 * migrations do not have). A row changed meanwhile is left as it is: whoever changed it sealed
 * it. Returns how many guardrails were sealed.
 */
export async function sealStoredGuardrailHeaders(db: Kysely<Database>, box: SecretBox): Promise<number> {
  const rows = await db.selectFrom("guardrails").select(["id", "checks"]).where("checks", "like", '%"headers"%').execute();
  let sealed = 0;
  for (const row of rows) {
    const checks = JSON.parse(row.checks) as GuardrailCheckSpec[];
    if (!Array.isArray(checks) || !hasClearSecrets(checks)) continue;
    const result = await db
      .updateTable("guardrails")
      .set({ checks: JSON.stringify(sealClearSecrets(checks, box)) })
      .where("id", "=", row.id)
      .where("checks", "=", row.checks)
      .executeTakeFirst();
    sealed += Number(result.numUpdatedRows);
  }
  return sealed;
}
