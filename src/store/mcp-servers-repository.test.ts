import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { TEST_DATABASES } from "../../test/support/databases.ts";
import { createSecretBox } from "../crypto/secret-box.ts";
import { sealSecret } from "../crypto/sealed-secret.ts";
import { resealStoredSecrets } from "./reseal-secrets.ts";
import type { NewMcpServer } from "./control-plane-repositories.ts";
import { scopeId, useStore } from "./store-test-fixtures.ts";

const KEY_A = randomBytes(32);
const KEY_B = randomBytes(32);

describe.each(TEST_DATABASES)("MCP servers on $name", ({ create }) => {
  const store = useStore(create);
  const onlyA = createSecretBox(KEY_A);
  const onlyB = createSecretBox(KEY_B);

  function newServer(workspaceId: string, label: string, overrides: Partial<NewMcpServer> = {}): NewMcpServer {
    return {
      id: crypto.randomUUID(),
      label,
      url: "https://tools.example/mcp",
      description: null,
      authorization: sealSecret("tok-1", onlyA),
      headers: { "x-api-key": sealSecret("hdr-1", onlyA) },
      allowedTools: ["add"],
      requireApproval: { always: { tool_names: ["rm"] } },
      callPriceUsd: 0.002,
      toolPrices: { add: 0.01 },
      inputGuardrails: null,
      outputGuardrails: ["pg-pii-1"],
      organisationId: "org",
      workspaceId,
      ownerId: null,
      updatedBy: null,
      createdAt: new Date().toISOString(),
      ...overrides,
    };
  }

  it("keeps one label per workspace, reads back what it stored, changes and deletes by label, and sees no other workspace", async () => {
    const workspace = scopeId("ws");
    const other = scopeId("ws");
    const created = await store().mcpServers.create(newServer(workspace, "calc"));
    expect(created).toMatchObject({ label: "calc", allowedTools: ["add"], requireApproval: { always: { tool_names: ["rm"] } } });
    expect(await store().mcpServers.create(newServer(workspace, "calc"))).toBeUndefined();
    expect(await store().mcpServers.create(newServer(other, "calc", { authorization: null, headers: {}, allowedTools: null, requireApproval: "never" }))).toMatchObject({ authorization: null, allowedTools: null });

    const read = await store().mcpServers.getByLabel(workspace, "calc");
    expect(onlyA.open(read!.authorization!.$sealed)).toBe("tok-1");
    expect(onlyA.open(read!.headers["x-api-key"]!.$sealed)).toBe("hdr-1");
    expect((await store().mcpServers.list(workspace)).map((server) => server.label)).toEqual(["calc"]);

    const changed = await store().mcpServers.update(workspace, "calc", { url: "https://tools.example/v2", authorization: null, allowedTools: null, requireApproval: "always", updatedBy: null, at: new Date().toISOString() });
    expect(changed).toMatchObject({ url: "https://tools.example/v2", authorization: null, allowedTools: null, requireApproval: "always" });
    expect(onlyA.open(changed!.headers["x-api-key"]!.$sealed)).toBe("hdr-1");
    expect(await store().mcpServers.update(other, "nope", { updatedBy: null, at: new Date().toISOString() })).toBeUndefined();

    expect(await store().mcpServers.delete(workspace, "calc")).toBe(true);
    expect(await store().mcpServers.getByLabel(workspace, "calc")).toBeUndefined();
    expect(await store().mcpServers.getByLabel(other, "calc")).toBeDefined();
  });

  it("re-seals its token and header values under the new master key", async () => {
    const workspace = scopeId("ws");
    await store().mcpServers.create(newServer(workspace, "sealed"));
    await resealStoredSecrets(store().db, createSecretBox([KEY_B, KEY_A]));
    const read = await store().mcpServers.getByLabel(workspace, "sealed");
    expect(onlyB.open(read!.authorization!.$sealed)).toBe("tok-1");
    expect(onlyB.open(read!.headers["x-api-key"]!.$sealed)).toBe("hdr-1");
  });
});
