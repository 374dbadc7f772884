import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import { newConfig, scopeId, useStore } from "./store-test-fixtures.ts";

describe.each(TEST_DATABASES)("configs repository on $name", ({ create }) => {
  const store = useStore(create);

  it("creates a config with version 1 and reads it back intact", async () => {
    const input = newConfig({ workspaceId: scopeId("ws"), ownerId: "key-a", updatedBy: "key-a", createdAt: "2026-02-03T04:05:06.789Z" });
    const created = await store().configs.create(input);
    expect(created).toEqual({
      id: input.id,
      organisationId: input.organisationId,
      workspaceId: input.workspaceId,
      ownerId: "key-a",
      updatedBy: "key-a",
      slug: input.slug,
      name: input.name,
      isDefault: false,
      status: "active",
      createdAt: "2026-02-03T04:05:06.789Z",
      lastUpdatedAt: "2026-02-03T04:05:06.789Z",
      latest: {
        versionId: input.versionId,
        configId: input.id,
        versionNumber: 1,
        name: input.name,
        config: input.config,
        createdAt: "2026-02-03T04:05:06.789Z",
        updatedBy: "key-a",
      },
    });
    expect(await store().configs.getBySlug(input.workspaceId, input.slug)).toEqual(created);
    expect(await store().configs.getBySlug(input.workspaceId, "pc-missing")).toBeUndefined();
  });

  it("keeps at most one default per workspace, on create and on update", async () => {
    const workspaceId = scopeId("ws");
    const otherWorkspace = newConfig({ workspaceId: scopeId("ws"), isDefault: true });
    const first = newConfig({ workspaceId, isDefault: true });
    const second = newConfig({ workspaceId, isDefault: true });
    for (const config of [otherWorkspace, first, second]) await store().configs.create(config);
    const defaults = async (ws: string) => (await store().configs.list(ws)).filter((c) => c.isDefault).map((c) => c.id);

    expect(await defaults(workspaceId)).toEqual([second.id]);
    expect(await defaults(otherWorkspace.workspaceId)).toEqual([otherWorkspace.id]);

    await store().configs.update(workspaceId, first.slug, { isDefault: true, versionId: crypto.randomUUID(), updatedBy: null, at: "2026-01-02T00:00:00.000Z" });
    expect(await defaults(workspaceId)).toEqual([first.id]);
    expect(await defaults(otherWorkspace.workspaceId)).toEqual([otherWorkspace.id]);

    await store().configs.update(workspaceId, first.slug, { isDefault: false, versionId: crypto.randomUUID(), updatedBy: null, at: "2026-01-03T00:00:00.000Z" });
    expect(await defaults(workspaceId)).toEqual([]);
  });

  it("adds the next version on update, defaulting name and body to the latest version's", async () => {
    const input = newConfig({ workspaceId: scopeId("ws"), ownerId: "key-owner" });
    await store().configs.create(input);

    const renamed = await store().configs.update(input.workspaceId, input.slug, {
      name: "renamed",
      versionId: "00000000-0000-4000-8000-000000000002",
      updatedBy: "key-editor",
      at: "2026-01-02T00:00:00.000Z",
    });
    expect(renamed).toMatchObject({
      name: "renamed",
      ownerId: "key-owner",
      updatedBy: "key-editor",
      createdAt: input.createdAt,
      lastUpdatedAt: "2026-01-02T00:00:00.000Z",
      latest: { versionNumber: 2, name: "renamed", config: input.config, updatedBy: "key-editor", createdAt: "2026-01-02T00:00:00.000Z" },
    });
    expect(renamed?.latest.versionId).toBe("00000000-0000-4000-8000-000000000002");

    const rebodied = await store().configs.update(input.workspaceId, input.slug, {
      config: '{"provider":"anthropic"}',
      versionId: crypto.randomUUID(),
      updatedBy: null,
      at: "2026-01-03T00:00:00.000Z",
    });
    expect(rebodied?.latest).toMatchObject({ versionNumber: 3, name: "renamed", config: '{"provider":"anthropic"}', updatedBy: null });
    expect(await store().configs.getBySlug(input.workspaceId, input.slug)).toEqual(rebodied);

    const versions = await store().configs.listVersions(input.workspaceId, input.slug);
    expect(versions?.map((v) => [v.versionNumber, v.name, v.config])).toEqual([
      [3, "renamed", '{"provider":"anthropic"}'],
      [2, "renamed", input.config],
      [1, input.name, input.config],
    ]);
    expect(versions?.[2]).toEqual({
      versionId: input.versionId,
      configId: input.id,
      versionNumber: 1,
      name: input.name,
      config: input.config,
      createdAt: input.createdAt,
      updatedBy: input.ownerId,
    });
  });

  it("lists one workspace's configs newest first, each with its latest version", async () => {
    const workspaceId = scopeId("ws");
    const oldest = newConfig({ workspaceId, createdAt: "2026-01-01T00:00:00.000Z" });
    const newest = newConfig({ workspaceId, createdAt: "2026-01-03T00:00:00.000Z" });
    const middle = newConfig({ workspaceId, createdAt: "2026-01-02T00:00:00.000Z" });
    const elsewhere = newConfig({ workspaceId: scopeId("ws") });
    for (const config of [middle, elsewhere, oldest, newest]) await store().configs.create(config);
    await store().configs.update(workspaceId, oldest.slug, { name: "v2", versionId: crypto.randomUUID(), updatedBy: null, at: "2026-01-04T00:00:00.000Z" });

    const listed = await store().configs.list(workspaceId);
    expect(listed.map((c) => c.id)).toEqual([newest.id, middle.id, oldest.id]);
    expect(listed[2]?.latest).toMatchObject({ versionNumber: 2, name: "v2" });
    expect(listed[0]?.latest.versionNumber).toBe(1);
    expect(listed[0]).toEqual(await store().configs.getBySlug(workspaceId, newest.slug));
    expect(await store().configs.list(scopeId("ws"))).toEqual([]);
  });

  it("treats another workspace's config as not found for every operation", async () => {
    const input = newConfig({ workspaceId: scopeId("ws"), isDefault: true });
    const created = await store().configs.create(input);
    const stranger = scopeId("ws");
    const change = { name: "hijacked", isDefault: true, versionId: crypto.randomUUID(), updatedBy: null, at: "2026-05-01T00:00:00.000Z" };

    expect(await store().configs.getBySlug(stranger, input.slug)).toBeUndefined();
    expect(await store().configs.update(stranger, input.slug, change)).toBeUndefined();
    expect(await store().configs.listVersions(stranger, input.slug)).toBeUndefined();
    expect(await store().configs.list(stranger)).toEqual([]);
    expect(await store().configs.delete(stranger, input.slug)).toBe(false);

    expect(await store().configs.getBySlug(input.workspaceId, input.slug)).toEqual(created);
    expect(await store().configs.listVersions(input.workspaceId, input.slug)).toHaveLength(1);
  });

  it("does not clear another config's default when the update finds nothing", async () => {
    const workspaceId = scopeId("ws");
    const keeper = newConfig({ workspaceId, isDefault: true });
    await store().configs.create(keeper);
    const change = { isDefault: true, versionId: crypto.randomUUID(), updatedBy: null, at: "2026-05-01T00:00:00.000Z" };
    expect(await store().configs.update(workspaceId, "pc-missing", change)).toBeUndefined();
    expect((await store().configs.getBySlug(workspaceId, keeper.slug))?.isDefault).toBe(true);
  });

  it("deletes a config with all its versions", async () => {
    const input = newConfig({ workspaceId: scopeId("ws") });
    await store().configs.create(input);
    await store().configs.update(input.workspaceId, input.slug, { name: "v2", versionId: crypto.randomUUID(), updatedBy: null, at: "2026-01-02T00:00:00.000Z" });

    expect(await store().configs.delete(input.workspaceId, input.slug)).toBe(true);
    expect(await store().configs.getBySlug(input.workspaceId, input.slug)).toBeUndefined();
    expect(await store().configs.listVersions(input.workspaceId, input.slug)).toBeUndefined();
    const leftover = await store().db.selectFrom("config_versions").select("version_id").where("config_id", "=", input.id).execute();
    expect(leftover).toEqual([]);
    expect(await store().configs.delete(input.workspaceId, input.slug)).toBe(false);
  });

  it("rejects a second config with the same slug, leaving the first intact", async () => {
    const first = newConfig({ workspaceId: scopeId("ws") });
    const created = await store().configs.create(first);
    await expect(store().configs.create(newConfig({ slug: first.slug, workspaceId: scopeId("ws"), isDefault: true }))).rejects.toThrow();
    expect(await store().configs.getBySlug(first.workspaceId, first.slug)).toEqual(created);
  });
});
