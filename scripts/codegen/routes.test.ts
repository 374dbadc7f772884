import { describe, expect, it } from "vitest";
import type { OpenApiDocument, OperationObject } from "./document.ts";
import { eitherMediaTypes, operationScope, renderRoutes, streamedMediaTypes } from "./routes.ts";

const ok = { "200": { description: "OK" } };

function documentWith(operation: Partial<OperationObject>): OpenApiDocument {
  return {
    paths: { "/v1/things": { post: { operationId: "createThing", responses: ok, security: [{ gatewayApiKey: [] }], ...operation } } },
    components: {
      schemas: {},
      parameters: {
        Trace: { name: "x-trace", in: "header", schema: { type: "string", maxLength: 128 } },
        Timeout: { name: "x-timeout", in: "header", schema: { type: "integer", minimum: 1, maximum: 60, pattern: "^[0-9]+$" } },
      },
    },
  };
}

describe("renderRoutes", () => {
  it("emits header parameters, inline and $ref'd, as an optional-field zod object that keeps zod's non-strict default", () => {
    const source = renderRoutes(
      documentWith({
        parameters: [
          { $ref: "#/components/parameters/Trace" },
          { $ref: "#/components/parameters/Timeout" },
          { name: "Authorization", in: "header", required: true, schema: { type: "string" } },
        ],
      }),
    );
    const headers = /headers: (z\.object\(\{[\s\S]*?\n {2}\}\))/.exec(source)?.[1];
    expect(headers).toBeDefined();
    expect(headers).toContain('"x-trace": z.string().max(128).optional(),');
    expect(headers).toContain('"Authorization": z.string(),');
    expect(headers).toContain('"x-timeout": z.string().regex(new RegExp("^[0-9]+$"), "must be a whole number from 1 to 60, in decimal digits")');
    expect(headers).toContain(".pipe(z.number().min(1, ");
    expect(headers).not.toContain(".strict()");
  });

  it("builds a parameter object that several operations have alike once, and the others inline", () => {
    const trace = { $ref: "#/components/parameters/Trace" };
    const document = documentWith({ parameters: [trace] });
    document.paths["/v1/things/{id}"] = {
      get: { operationId: "getThing", responses: ok, security: [{ gatewayApiKey: [] }], parameters: [trace, { name: "id", in: "path", required: true, schema: { type: "string" } }] },
    };
    const source = renderRoutes(document);
    expect(source).toContain("/** Shared by createThing, getThing. */\nconst sharedHeaderParameters1 = z.object({");
    expect(source.match(/headers: sharedHeaderParameters1,/g)).toHaveLength(2);
    expect(source).toMatch(/params: z\.object\(\{\n {4}"id": z\.string\(\),/);
  });

  it("emits each operation's scope with its route", () => {
    expect(renderRoutes(documentWith({ security: [{ gatewayApiKey: ["admin"] }] }))).toContain('middleware: requireScope("admin"),');
    expect(renderRoutes(documentWith({}))).toContain('middleware: requireScope("service"),');
    expect(renderRoutes(documentWith({ security: [] }))).toContain('middleware: requireScope("none"),');
  });
});

describe("bodies that stream upstream unread", () => {
  const form = { required: true, content: { "multipart/form-data": { schema: { type: "object" } } } };

  it("a multipart-only body gets no body validator (which would parse it whole) but a content-type check", () => {
    const source = renderRoutes(documentWith({ requestBody: form }));
    expect(source).toContain('middleware: [requireScope("service"), requireMediaType(["multipart/form-data"])],');
    expect(source).toContain('import { requireMediaType } from "../middleware/require-media-type.ts";');
    expect(source).not.toContain("body: {");
  });

  it("a body sent as JSON or as a form validates JSON only, optionally, and checks the form's content type", () => {
    const either = { required: true, content: { "multipart/form-data": { schema: { type: "object" } }, "application/json": { schema: { type: "object" } } } };
    const source = renderRoutes(documentWith({ requestBody: either }));
    expect(source).toContain('requireMediaType(["multipart/form-data","application/json"])');
    expect(source).toMatch(/body: \{ required: false, content: \{ "multipart\/form-data": \{ schema: \{\} \}, "application\/json": \{ schema: \w+Body \} \} \}/);
    expect(eitherMediaTypes({ operationId: "x", responses: ok, requestBody: either })).toEqual(["multipart/form-data", "application/json"]);
    expect(eitherMediaTypes({ operationId: "x", responses: ok, requestBody: form })).toBeNull();
  });

  it("a JSON body keeps its validator, and no content-type check is imported", () => {
    const source = renderRoutes(documentWith({ requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } } }));
    expect(source).toContain("body: { required: true");
    expect(source).not.toContain("requireMediaType");
    expect(streamedMediaTypes({ operationId: "x", responses: ok, requestBody: { content: { "application/json": {}, "multipart/form-data": {} } } })).toBeNull();
    expect(streamedMediaTypes({ operationId: "x", responses: ok })).toBeNull();
  });
});

describe("operationScope", () => {
  const operation = (security: OperationObject["security"]): OperationObject => ({ operationId: "op", responses: ok, security });

  it("reads the operation's own security", () => {
    expect(operationScope(operation([]))).toBe("none");
    expect(operationScope(operation([{ gatewayApiKey: [] }]))).toBe("service");
    expect(operationScope(operation([{ gatewayApiKey: ["admin"] }]))).toBe("admin");
  });

  it("refuses an operation that states no security, or one the gateway cannot enforce", () => {
    expect(() => operationScope(operation(undefined))).toThrow("op: state its security");
    expect(() => operationScope(operation([{ gatewayApiKey: ["owner"] }]))).toThrow("op: security must be");
    expect(() => operationScope(operation([{ gatewayApiKey: [] }, { other: [] }]))).toThrow("op: security must be");
  });
});
