import { sql, type Kysely } from "kysely";

/**
 * Config keys were stored sealed as the text `"sealed:<box output>"`, so a key a user typed
 * with that prefix was taken for a sealed one. They are now `{"$sealed": "<box output>"}`, a
 * form no request can send. This rewrites every stored version from the old form to the new;
 * a `sealed:` string that is not box output was a user's own key, kept in place (the reader
 * uses a plain string as it stands, and the next save seals it). Needs no master key: the
 * sealed text itself is unchanged. Frozen: add `0007_…` for changes.
 */
const BOX_OUTPUT = /^sealed:(v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/;

type Part = Record<string, unknown>;

function structural(part: Part): Part {
  const match = typeof part.api_key === "string" ? BOX_OUTPUT.exec(part.api_key) : null;
  return match ? { ...part, api_key: { $sealed: match[1] } } : part;
}

/** The config text with old-form keys rewritten; null when nothing changes. */
export function rewriteConfig(text: string): string | null {
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch {
    return null;
  }
  if (!config || typeof config !== "object" || Array.isArray(config)) return null;
  let rewritten = structural(config as Part);
  if (Array.isArray(rewritten.targets)) {
    rewritten = { ...rewritten, targets: rewritten.targets.map((target: unknown) => (target && typeof target === "object" ? structural(target as Part) : target)) };
  }
  const next = JSON.stringify(rewritten);
  return next === JSON.stringify(config) ? null : next;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const rows = await sql<{ version_id: string; config: string }>`select version_id, config from config_versions where config like ${'%"sealed:%'}`.execute(db);
  for (const row of rows.rows) {
    const next = rewriteConfig(row.config);
    if (next !== null) await sql`update config_versions set config = ${next} where version_id = ${row.version_id}`.execute(db);
  }
}

export async function down(): Promise<void> {
  // The new form cannot be taken back to one the old reader could tell from a typed key.
}
