import type { KyselyPlugin } from "kysely";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import { createPromptsRepository } from "./prompts-repository.ts";
import { newPrompt, newPromptVersion, scopeId, useStore } from "./store-test-fixtures.ts";

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

  it("lists one workspace's prompts newest first, each with its versions, in two queries", async () => {
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
    expect(queries).toBe(2);
    expect(listed.map((prompt) => prompt.id)).toEqual([newest.id, middle.id, oldest.id]);
    expect(listed[2]?.versions.map((v) => [v.promptId, v.versionNumber])).toEqual([
      [oldest.id, 3],
      [oldest.id, 2],
      [oldest.id, 1],
    ]);
    expect(listed[0]).toEqual(await store().prompts.get(workspaceId, newest.id));
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
    expect(await store().prompts.delete(input.workspaceId, input.id)).toBe(false);
  });
});
