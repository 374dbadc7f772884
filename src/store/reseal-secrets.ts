import type { Kysely } from "kysely";
import { mapSealedConfigSecrets, type StoredConfig } from "../records/config-secrets.ts";
import { mapSealedCheckSecrets } from "../records/guardrail-secrets.ts";
import type { GuardrailCheckSpec } from "../records/control-plane.ts";
import { isSealedSecret, resealBoxOutput, type SealedSecret } from "../crypto/sealed-secret.ts";
import type { SecretBox } from "../crypto/secret-box.ts";
import type { Database } from "./schema.ts";

/**
 * Re-sealing after a master-key rotation. With `GATEWAY_ENCRYPTION_KEY=new,old` every stored
 * secret is opened under whichever key sealed it and sealed again under `new`, in place, so
 * that `old` can then be dropped. The sealed columns:
 * - `virtual_keys.encrypted_key` (box output) and `virtual_keys.credential_fields` (JSON, `{"$sealed"}` values);
 * - `config_versions.config` (every version: `api_key` at the root and in targets);
 * - `guardrails.checks` (webhook header values);
 * - `mcp_servers.authorization` and `mcp_servers.headers` (`{"$sealed"}` values);
 * - `webhooks.secret` and `reconciliation_settings.admin_key` (`{"$sealed"}` values).
 * Rows are read in pages of `batchSize` by primary key and each changed row is written with a
 * compare-and-set on the column it read: a row saved meanwhile was sealed under the new key by
 * its writer, so losing that race loses nothing. Requests keep working throughout, since every
 * key of the ring opens. A value no key of the ring opens is left as it is and counted.
 */

/** What one run did. */
export interface ResealReport {
  /** Rows rewritten under the sealing key. */
  resealed: number;
  /** Secrets no key of the ring opens (altered, or sealed under a key no longer given). */
  unopened: number;
}

export interface ResealOptions {
  /** Rows read per query; default 100. */
  batchSize?: number;
  /** Pause between pages, leaving the store to requests; default 0. */
  pauseMs?: number;
  /** Checked between pages: true ends the run there (at shutdown); the next start goes on. */
  stopped?: () => boolean;
}

type Tally = { unopened: number };

/** Never throws for a value that does not open; throws only what the store throws. */
export async function resealStoredSecrets(db: Kysely<Database>, box: SecretBox, options: ResealOptions = {}): Promise<ResealReport> {
  const batchSize = options.batchSize ?? 100;
  const tally: Tally = { unopened: 0 };
  const between = async (): Promise<boolean> => {
    if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
    return options.stopped?.() ?? false;
  };
  let resealed = 0;

  for (let after = ""; ; ) {
    const rows = await db
      .selectFrom("virtual_keys")
      .select(["id", "encrypted_key", "credential_fields"])
      .where("id", ">", after)
      .orderBy("id")
      .limit(batchSize)
      .execute();
    for (const row of rows) {
      const key = resealBoxOutput(row.encrypted_key, box);
      if (key && "unopened" in key) tally.unopened += 1;
      const fields = row.credential_fields === null ? null : resealJson(row.credential_fields, (value) => resealFields(value, box, tally));
      const change = { ...(key && "resealed" in key && { encrypted_key: key.resealed }), ...(fields !== null && { credential_fields: fields }) };
      if (Object.keys(change).length === 0) continue;
      let update = db.updateTable("virtual_keys").set(change).where("id", "=", row.id).where("encrypted_key", "=", row.encrypted_key);
      update = row.credential_fields === null ? update.where("credential_fields", "is", null) : update.where("credential_fields", "=", row.credential_fields);
      resealed += Number((await update.executeTakeFirst()).numUpdatedRows);
    }
    if (rows.length < batchSize) break;
    if (await between()) return { resealed, unopened: tally.unopened };
    after = (rows.at(-1) as { id: string }).id;
  }

  for (let after = ""; ; ) {
    const rows = await db
      .selectFrom("config_versions")
      .select(["version_id", "config"])
      .where("version_id", ">", after)
      .where("config", "like", "%$sealed%")
      .orderBy("version_id")
      .limit(batchSize)
      .execute();
    for (const row of rows) {
      const config = resealJson(row.config, (value) => mapSealedConfigSecrets(value as StoredConfig, (secret) => resealOne(secret, box, tally)));
      if (config === null) continue;
      const result = await db.updateTable("config_versions").set({ config }).where("version_id", "=", row.version_id).where("config", "=", row.config).executeTakeFirst();
      resealed += Number(result.numUpdatedRows);
    }
    if (rows.length < batchSize) break;
    if (await between()) return { resealed, unopened: tally.unopened };
    after = (rows.at(-1) as { version_id: string }).version_id;
  }

  for (let after = ""; ; ) {
    const rows = await db
      .selectFrom("guardrails")
      .select(["id", "checks"])
      .where("id", ">", after)
      .where("checks", "like", "%$sealed%")
      .orderBy("id")
      .limit(batchSize)
      .execute();
    for (const row of rows) {
      const checks = resealJson(row.checks, (value) => (Array.isArray(value) ? mapSealedCheckSecrets(value as GuardrailCheckSpec[], (secret) => resealOne(secret, box, tally)) : value));
      if (checks === null) continue;
      const result = await db.updateTable("guardrails").set({ checks }).where("id", "=", row.id).where("checks", "=", row.checks).executeTakeFirst();
      resealed += Number(result.numUpdatedRows);
    }
    if (rows.length < batchSize) break;
    if (await between()) return { resealed, unopened: tally.unopened };
    after = (rows.at(-1) as { id: string }).id;
  }

  for (let after = ""; ; ) {
    const rows = await db.selectFrom("mcp_servers").select(["id", "authorization", "headers"]).where("id", ">", after).orderBy("id").limit(batchSize).execute();
    for (const row of rows) {
      const authorization = row.authorization === null ? null : resealJson(row.authorization, (value) => (isSealedSecret(value) ? resealOne(value, box, tally) : value));
      const headers = resealJson(row.headers, (value) => resealFields(value, box, tally));
      const change = { ...(authorization !== null && { authorization }), ...(headers !== null && { headers }) };
      if (Object.keys(change).length === 0) continue;
      let update = db.updateTable("mcp_servers").set(change).where("id", "=", row.id).where("headers", "=", row.headers);
      update = row.authorization === null ? update.where("authorization", "is", null) : update.where("authorization", "=", row.authorization);
      resealed += Number((await update.executeTakeFirst()).numUpdatedRows);
    }
    if (rows.length < batchSize) break;
    if (await between()) return { resealed, unopened: tally.unopened };
    after = (rows.at(-1) as { id: string }).id;
  }

  for (let after = ""; ; ) {
    const rows = await db.selectFrom("webhooks").select(["id", "secret"]).where("id", ">", after).orderBy("id").limit(batchSize).execute();
    for (const row of rows) {
      const secret = resealJson(row.secret, (value) => (isSealedSecret(value) ? resealOne(value, box, tally) : value));
      if (secret === null) continue;
      const result = await db.updateTable("webhooks").set({ secret }).where("id", "=", row.id).where("secret", "=", row.secret).executeTakeFirst();
      resealed += Number(result.numUpdatedRows);
    }
    if (rows.length < batchSize) break;
    if (await between()) return { resealed, unopened: tally.unopened };
    after = (rows.at(-1) as { id: string }).id;
  }

  for (let after = ""; ; ) {
    const rows = await db
      .selectFrom("reconciliation_settings")
      .select(["virtual_key_id", "admin_key"])
      .where("virtual_key_id", ">", after)
      .orderBy("virtual_key_id")
      .limit(batchSize)
      .execute();
    for (const row of rows) {
      const adminKey = resealJson(row.admin_key, (value) => (isSealedSecret(value) ? resealOne(value, box, tally) : value));
      if (adminKey === null) continue;
      const result = await db
        .updateTable("reconciliation_settings")
        .set({ admin_key: adminKey })
        .where("virtual_key_id", "=", row.virtual_key_id)
        .where("admin_key", "=", row.admin_key)
        .executeTakeFirst();
      resealed += Number(result.numUpdatedRows);
    }
    if (rows.length < batchSize) break;
    if (await between()) return { resealed, unopened: tally.unopened };
    after = (rows.at(-1) as { virtual_key_id: string }).virtual_key_id;
  }

  return { resealed, unopened: tally.unopened };
}

/** The JSON text with `map` applied; null when it does not parse or nothing changes. */
function resealJson(text: string, map: (value: unknown) => unknown): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!value || typeof value !== "object") return null;
  const next = JSON.stringify(map(value));
  return next === JSON.stringify(value) ? null : next;
}

function resealOne(secret: SealedSecret, box: SecretBox, tally: Tally): SealedSecret {
  const result = resealBoxOutput(secret.$sealed, box);
  if (result === null) return secret;
  if ("unopened" in result) {
    tally.unopened += 1;
    return secret;
  }
  return { $sealed: result.resealed };
}

function resealFields(value: unknown, box: SecretBox, tally: Tally): unknown {
  if (Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([name, field]) => {
      return [name, isSealedSecret(field) ? resealOne(field, box, tally) : field];
    }),
  );
}

/**
 * Runs `resealStoredSecrets` in the background after start, in small pages with pauses so
 * requests keep the store. `done` settles with the report (null when the run failed: the
 * error goes to `onError`, and the next start tries again); `stop` ends it after the current
 * page and waits for that.
 */
export function startSecretResealing(
  db: Kysely<Database>,
  box: SecretBox,
  options: { batchSize?: number; pauseMs?: number; onError: (error: unknown) => void },
): { done: Promise<ResealReport | null>; stop(): Promise<void> } {
  let stopped = false;
  const done = resealStoredSecrets(db, box, { batchSize: options.batchSize, pauseMs: options.pauseMs ?? 10, stopped: () => stopped }).catch((error: unknown) => {
    if (!stopped) options.onError(error);
    return null;
  });
  return {
    done,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}
