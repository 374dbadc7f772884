import { describe, expect, it } from "vitest";
import { openApiDocument } from "../generated/openapi-document.gen.ts";
import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES, resourceTypeOf } from "./audit-event.ts";

describe("audit actions", () => {
  it("are the document's, each about one of its resource types", () => {
    const { AuditAction, AuditResourceType } = openApiDocument.components.schemas;
    expect([...AUDIT_ACTIONS]).toEqual([...AuditAction.enum]);
    expect([...AUDIT_RESOURCE_TYPES]).toEqual([...AuditResourceType.enum]);
    for (const action of AUDIT_ACTIONS) expect(AUDIT_RESOURCE_TYPES).toContain(resourceTypeOf(action));
    expect(resourceTypeOf("virtual_key.deleted")).toBe("virtual_key");
  });
});
