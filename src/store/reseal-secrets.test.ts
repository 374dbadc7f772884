import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import { legacySeal } from "../crypto/secret-box-fixtures.ts";
import { createSecretBox } from "../crypto/secret-box.ts";
import { resealStoredSecrets } from "./reseal-secrets.ts";
import { newConfig, newGuardrail, newVirtualKey, scopeId, useStore } from "./store-test-fixtures.ts";

const KEY_A = randomBytes(32);
const KEY_B = randomBytes(32);
const STRANGER = randomBytes(32);

describe.each(TEST_DATABASES)("re-sealing stored secrets on $name", ({ create }) => {
  const store = useStore(create);
  const onlyA = createSecretBox(KEY_A);
  const onlyB = createSecretBox(KEY_B);
  const ring = createSecretBox([KEY_B, KEY_A]);

  it("moves every sealed column to the new key page by page, and leaves what no key opens", async () => {
    const workspaceId = scopeId("ws");
    const legacyKey = newVirtualKey({ workspaceId, encryptedKey: legacySeal(KEY_A, "sk-legacy"), fields: { aws_region: "eu-west-1", aws_secret_access_key: { $sealed: onlyA.seal("aws-secret") } } });
    const currentKey = newVirtualKey({ workspaceId, encryptedKey: onlyB.seal("sk-current"), fields: {} });
    const strangerKey = newVirtualKey({ workspaceId, encryptedKey: createSecretBox(STRANGER).seal("sk-stranger"), fields: {} });
    for (const key of [legacyKey, currentKey, strangerKey]) await store().virtualKeys.create(key);
    const sealedConfig = newConfig({
      workspaceId,
      config: JSON.stringify({ api_key: { $sealed: onlyA.seal("sk-root") }, targets: [{ provider: "openai", api_key: { $sealed: legacySeal(KEY_A, "sk-target") } }, { provider: "anthropic" }] }),
    });
    const plainConfig = newConfig({ workspaceId });
    for (const config of [sealedConfig, plainConfig]) await store().configs.create(config);
    const guardrail = newGuardrail({
      workspaceId,
      checks: [{ type: "webhook", params: { url: "https://hook.example/check", headers: { authorization: { $sealed: onlyA.seal("Bearer hook") }, "x-plain": "left-clear" } } }],
    });
    await store().guardrails.create(guardrail);
    const before = await rows();

    // Pages of one row: every page boundary is crossed.
    expect(await resealStoredSecrets(store().db, ring, { batchSize: 1 })).toEqual({ resealed: 3, unopened: 1 });
    const after = await rows();

    const legacy = after.keys.find((row) => row.id === legacyKey.id)!;
    expect(onlyB.open(legacy.encrypted_key)).toBe("sk-legacy");
    expect(() => onlyA.open(legacy.encrypted_key)).toThrow();
    const fields = JSON.parse(legacy.credential_fields!);
    expect(fields.aws_region).toBe("eu-west-1");
    expect(onlyB.open(fields.aws_secret_access_key.$sealed)).toBe("aws-secret");
    // Already current, or sealed under a key the ring lacks: byte for byte as before.
    for (const id of [currentKey.id, strangerKey.id]) expect(after.keys.find((row) => row.id === id)).toEqual(before.keys.find((row) => row.id === id));

    const config = JSON.parse(after.configs.find((row) => row.version_id === sealedConfig.versionId)!.config);
    expect(onlyB.open(config.api_key.$sealed)).toBe("sk-root");
    expect(onlyB.open(config.targets[0].api_key.$sealed)).toBe("sk-target");
    expect(config.targets[1]).toEqual({ provider: "anthropic" });
    expect(after.configs.find((row) => row.version_id === plainConfig.versionId)!.config).toBe(plainConfig.config);

    const headers = JSON.parse(after.guardrails.find((row) => row.id === guardrail.id)!.checks)[0].params.headers;
    expect(onlyB.open(headers.authorization.$sealed)).toBe("Bearer hook");
    expect(headers["x-plain"]).toBe("left-clear");

    // Nothing is left to do; the stranger's value is still counted.
    expect(await resealStoredSecrets(store().db, ring, { batchSize: 1 })).toEqual({ resealed: 0, unopened: 1 });
  });

  it("moves a webhook's signing secret and a usage-reading key to the new key", async () => {
    const workspaceId = scopeId("ws");
    const id = crypto.randomUUID();
    await store().webhooks.create({
      id,
      url: "http://127.0.0.1:9/hook",
      description: null,
      secret: { $sealed: onlyA.seal("whsec_rotated") },
      events: ["run.halted"],
      enabled: true,
      organisationId: "org-default",
      workspaceId,
      ownerId: null,
      updatedBy: null,
      createdAt: "2026-03-01T00:00:00.000Z",
    });
    const virtualKeyId = crypto.randomUUID();
    await store().reconciliation.put(
      {
        virtualKeyId,
        organisationId: "org-default",
        workspaceId,
        provider: "anthropic",
        adminKey: { $sealed: onlyA.seal("sk-ant-admin-rotated") },
        baseUrl: null,
        projectId: null,
        apiKeyId: null,
        providerWorkspaceId: null,
        driftThresholdUsd: 1,
        driftThresholdRatio: 0.05,
        updatedBy: null,
        createdAt: "2026-03-01T00:00:00.000Z",
      },
      "2026-03-01T00:00:00.000Z",
    );
    expect((await resealStoredSecrets(store().db, ring)).resealed).toBeGreaterThanOrEqual(2);
    const stored = await store().webhooks.get(workspaceId, id);
    expect(onlyB.open(stored!.secret.$sealed)).toBe("whsec_rotated");
    expect(() => onlyA.open(stored!.secret.$sealed)).toThrow();
    const settings = await store().reconciliation.get(workspaceId, virtualKeyId);
    expect(onlyB.open(settings!.adminKey.$sealed)).toBe("sk-ant-admin-rotated");
  });

  it("stops between pages when told to", async () => {
    const workspaceId = scopeId("ws");
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const key = newVirtualKey({ workspaceId, encryptedKey: onlyA.seal(`sk-${index}`), fields: {} });
      ids.push(key.id);
      await store().virtualKeys.create(key);
    }
    const underA = async () => (await rows()).keys.filter((row) => ids.includes(row.id) && onlyA.isCurrent(row.encrypted_key)).length;
    // One page of two rows is read, then the run ends: at least one of the three is left.
    const first = await resealStoredSecrets(store().db, ring, { batchSize: 2, stopped: () => true });
    expect(first.resealed).toBeLessThanOrEqual(2);
    expect(await underA()).toBeGreaterThan(0);
    await resealStoredSecrets(store().db, ring, { batchSize: 2 });
    expect(await underA()).toBe(0);
  });

  async function rows() {
    const db = store().db;
    return {
      keys: await db.selectFrom("virtual_keys").select(["id", "encrypted_key", "credential_fields"]).execute(),
      configs: await db.selectFrom("config_versions").select(["version_id", "config"]).execute(),
      guardrails: await db.selectFrom("guardrails").select(["id", "checks"]).execute(),
    };
  }
});
