import type { KyselyPlugin } from "kysely";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import { createPromptsRepository } from "./prompts-repository.ts";
import { newPrompt, newPromptVersion, scopeId, useStore } from "./store-test-fixtures.ts";
import { down as down0044, up as up0044 } from "./migrations/0044_prompt_labels.ts";

describe.each(TEST_DATABASES)("prompts repository on $name", ({ create }) => {
  const store = useStore(create);

  it("creates a prompt with version 1 as its default and reads it back intact", async () => {
    const input = newPrompt({ workspaceId: scopeId("ws"), ownerId: "key-a", updatedBy: "key-a", createdAt: "2026-02-03T04:05:06.789Z" });
    const created = await store().prompts.create(input);
    expect(created).toEqual({
      id: input.id,
      organisationId: input.organisationId,
      workspaceId: input.workspaceId,
      ownerId: "key-a",
      updatedBy: "key-a",
      name: input.name,
      defaultVersion: 1,
      createdAt: "2026-02-03T04:05:06.789Z",
      updatedAt: "2026-02-03T04:05:06.789Z",
      versions: [{ ...input.version, promptId: input.id, versionNumber: 1, createdAt: "2026-02-03T04:05:06.789Z", createdBy: "key-a" }],
      labels: { production: 1 },
    });
    expect(await store().prompts.get(input.workspaceId, input.id)).toEqual(created);
    expect(await store().prompts.get(input.workspaceId, crypto.randomUUID())).toBeUndefined();
  });

  it("adds versions without publishing, then publishing, newest first", async () => {
    const input = newPrompt({ workspaceId: scopeId("ws") });
    await store().prompts.create(input);
    const second = newPromptVersion({ model: "gpt-4o", provider: null, virtualKey: "vk-team", hyperparameters: {}, variables: [] });

    const drafted = await store().prompts.addVersion(input.workspaceId, input.id, {
      version: second,
      name: "renamed",
      publish: false,
      updatedBy: "key-editor",
      at: "2026-01-02T00:00:00.000Z",
    });
    expect(drafted).toMatchObject({ name: "renamed", defaultVersion: 1, updatedBy: "key-editor", updatedAt: "2026-01-02T00:00:00.000Z", ownerId: input.ownerId });
    expect(drafted?.versions.map((v) => v.versionNumber)).toEqual([2, 1]);
    expect(drafted?.versions[0]).toEqual({ ...second, promptId: input.id, versionNumber: 2, createdAt: "2026-01-02T00:00:00.000Z", createdBy: "key-editor" });

    const published = await store().prompts.addVersion(input.workspaceId, input.id, {
      version: newPromptVersion(),
      publish: true,
      updatedBy: null,
      at: "2026-01-03T00:00:00.000Z",
    });
    expect(published).toMatchObject({ name: "renamed", defaultVersion: 3, updatedBy: null, updatedAt: "2026-01-03T00:00:00.000Z" });
    expect(published?.versions.map((v) => v.versionNumber)).toEqual([3, 2, 1]);
    expect(await store().prompts.get(input.workspaceId, input.id)).toEqual(published);
  });

  it("publishes an existing version and refuses a missing one", async () => {
    const input = newPrompt({ workspaceId: scopeId("ws") });
    await store().prompts.create(input);
    await store().prompts.addVersion(input.workspaceId, input.id, { version: newPromptVersion(), publish: true, updatedBy: null, at: "2026-01-02T00:00:00.000Z" });

    const rolledBack = await store().prompts.publish(input.workspaceId, input.id, 1, "key-editor", "2026-01-03T00:00:00.000Z");
    expect(rolledBack).toMatchObject({ defaultVersion: 1, updatedBy: "key-editor", updatedAt: "2026-01-03T00:00:00.000Z" });
    expect(rolledBack?.versions.map((v) => v.versionNumber)).toEqual([2, 1]);

    expect(await store().prompts.publish(input.workspaceId, input.id, 3, null, "2026-01-04T00:00:00.000Z")).toBeUndefined();
    expect(await store().prompts.publish(input.workspaceId, crypto.randomUUID(), 1, null, "2026-01-04T00:00:00.000Z")).toBeUndefined();
    expect(await store().prompts.get(input.workspaceId, input.id)).toEqual(rolledBack);
  });

  it("lists one workspace's prompts newest first, each with its versions and labels, in three queries", async () => {
    const workspaceId = scopeId("ws");
    const oldest = newPrompt({ workspaceId, createdAt: "2026-01-01T00:00:00.000Z" });
    const newest = newPrompt({ workspaceId, createdAt: "2026-01-03T00:00:00.000Z" });
    const middle = newPrompt({ workspaceId, createdAt: "2026-01-02T00:00:00.000Z" });
    const elsewhere = newPrompt({ workspaceId: scopeId("ws") });
    for (const prompt of [middle, elsewhere, newest, oldest]) await store().prompts.create(prompt);
    for (const at of ["2026-01-04T00:00:00.000Z", "2026-01-05T00:00:00.000Z"]) {
      await store().prompts.addVersion(workspaceId, oldest.id, { version: newPromptVersion(), publish: false, updatedBy: null, at });
    }

    let queries = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        queries += 1;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const listed = await createPromptsRepository(store().db.withPlugin(counting)).list(workspaceId);
    expect(queries).toBe(3);
    expect(listed.map((prompt) => prompt.id)).toEqual([newest.id, middle.id, oldest.id]);
    expect(listed[2]?.versions.map((v) => [v.promptId, v.versionNumber])).toEqual([
      [oldest.id, 3],
      [oldest.id, 2],
      [oldest.id, 1],
    ]);
    expect(listed[0]).toEqual(await store().prompts.get(workspaceId, newest.id));
    expect(listed[2]?.labels).toEqual({ production: 1 });
    expect(await store().prompts.list(scopeId("ws"))).toEqual([]);
  });

  it("treats another workspace's prompt as not found for every operation", async () => {
    const input = newPrompt({ workspaceId: scopeId("ws") });
    const created = await store().prompts.create(input);
    const stranger = scopeId("ws");
    const change = { version: newPromptVersion(), name: "hijacked", publish: true, updatedBy: null, at: "2026-05-01T00:00:00.000Z" };

    expect(await store().prompts.get(stranger, input.id)).toBeUndefined();
    expect(await store().prompts.addVersion(stranger, input.id, change)).toBeUndefined();
    expect(await store().prompts.publish(stranger, input.id, 1, null, "2026-05-01T00:00:00.000Z")).toBeUndefined();
    expect(await store().prompts.list(stranger)).toEqual([]);
    expect(await store().prompts.delete(stranger, input.id)).toBe(false);

    expect(await store().prompts.get(input.workspaceId, input.id)).toEqual(created);
    const versions = await store().db.selectFrom("prompt_versions").select("version_id").where("prompt_id", "=", input.id).execute();
    expect(versions).toHaveLength(1);
  });

  it("deletes a prompt with all its versions", async () => {
    const input = newPrompt({ workspaceId: scopeId("ws") });
    await store().prompts.create(input);
    await store().prompts.addVersion(input.workspaceId, input.id, { version: newPromptVersion(), publish: true, updatedBy: null, at: "2026-01-02T00:00:00.000Z" });

    expect(await store().prompts.delete(input.workspaceId, input.id)).toBe(true);
    expect(await store().prompts.get(input.workspaceId, input.id)).toBeUndefined();
    const leftover = await store().db.selectFrom("prompt_versions").select("version_id").where("prompt_id", "=", input.id).execute();
    expect(leftover).toEqual([]);
    expect(await store().db.selectFrom("prompt_labels").select("label").where("prompt_id", "=", input.id).execute()).toEqual([]);
    expect(await store().prompts.delete(input.workspaceId, input.id)).toBe(false);
  });

  it("moves labels between versions, one version a label, production together with the default version", async () => {
    const input = newPrompt({ workspaceId: scopeId("ws") });
    await store().prompts.create(input);
    for (const at of ["2026-01-02T00:00:00.000Z", "2026-01-03T00:00:00.000Z"]) {
      await store().prompts.addVersion(input.workspaceId, input.id, { version: newPromptVersion(), publish: false, updatedBy: null, at });
    }
    const staged = await store().prompts.moveLabel(input.workspaceId, input.id, "staging", 2, "key-editor", "2026-01-04T00:00:00.000Z");
    expect(staged).toMatchObject({ defaultVersion: 1, labels: { production: 1, staging: 2 }, updatedBy: "key-editor", updatedAt: "2026-01-04T00:00:00.000Z" });
    const moved = await store().prompts.moveLabel(input.workspaceId, input.id, "staging", 3, null, "2026-01-05T00:00:00.000Z");
    expect(moved?.labels).toEqual({ production: 1, staging: 3 });
    const published = await store().prompts.moveLabel(input.workspaceId, input.id, "production", 3, null, "2026-01-06T00:00:00.000Z");
    expect(published).toMatchObject({ defaultVersion: 3, labels: { production: 3, staging: 3 } });
    expect(await store().prompts.get(input.workspaceId, input.id)).toEqual(published);

    // A missing version or another workspace changes nothing.
    expect(await store().prompts.moveLabel(input.workspaceId, input.id, "staging", 9, null, "2026-01-07T00:00:00.000Z")).toBeUndefined();
    expect(await store().prompts.moveLabel(scopeId("ws"), input.id, "staging", 1, null, "2026-01-07T00:00:00.000Z")).toBeUndefined();
    expect(await store().prompts.removeLabel(scopeId("ws"), input.id, "staging", null, "2026-01-07T00:00:00.000Z")).toBeUndefined();
    expect((await store().prompts.get(input.workspaceId, input.id))?.labels).toEqual({ production: 3, staging: 3 });

    const removed = await store().prompts.removeLabel(input.workspaceId, input.id, "staging", "key-editor", "2026-01-08T00:00:00.000Z");
    expect(removed).toMatchObject({ labels: { production: 3 }, updatedAt: "2026-01-08T00:00:00.000Z" });
    expect(await store().prompts.removeLabel(input.workspaceId, input.id, "staging", null, "2026-01-09T00:00:00.000Z")).toBeUndefined();
    // Publishing and adding a published version move production too.
    expect((await store().prompts.publish(input.workspaceId, input.id, 2, null, "2026-01-10T00:00:00.000Z"))?.labels).toEqual({ production: 2 });
    const added = await store().prompts.addVersion(input.workspaceId, input.id, { version: newPromptVersion(), publish: true, updatedBy: null, at: "2026-01-11T00:00:00.000Z" });
    expect(added).toMatchObject({ defaultVersion: 4, labels: { production: 4 } });
  });

  it("0044 labels every existing prompt's published version production", async () => {
    const input = newPrompt({ workspaceId: scopeId("ws") });
    await store().prompts.create(input);
    await store().prompts.addVersion(input.workspaceId, input.id, { version: newPromptVersion(), publish: true, updatedBy: "key-a", at: "2026-01-02T00:00:00.000Z" });
    // The store as 0043 left it: prompts with a default version and no labels table.
    await down0044(store().db as never);
    await up0044(store().db as never);
    const labels = await store().db.selectFrom("prompt_labels").selectAll().where("prompt_id", "=", input.id).execute();
    expect(labels).toEqual([{ prompt_id: input.id, label: "production", version_number: 2, workspace_id: input.workspaceId, updated_by: "key-a", updated_at: "2026-01-02T00:00:00.000Z" }]);
  });
});
