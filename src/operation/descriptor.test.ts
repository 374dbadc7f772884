import { describe, expect, it } from "vitest";
import { GatewayError } from "../errors.ts";
import { fixedUpstream, isFixedUpstream, pathAfterV1, resolveUpstream, type OperationDescriptor } from "./descriptor.ts";

type Routed = Pick<OperationDescriptor, "id" | "method" | "upstreamPath">;

const request = (path: string, params: Record<string, string> = {}, method = "POST") => ({ method, url: new URL(`http://gateway.test${path}`), params });

/** The 400 a refused path throws, or null when it resolves. */
function refusal(operation: Routed, path: string, params: Record<string, string> = {}): GatewayError | null {
  try {
    resolveUpstream(operation, request(path, params));
    return null;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}

describe("resolveUpstream", () => {
  const fixed: Routed = { id: "createEmbedding", method: "POST", upstreamPath: { fixed: "/embeddings" } };
  const afterV1: Routed = { id: "retrieveFile", method: "GET", upstreamPath: { afterV1: true } };
  const template: Routed = { id: "retrieveFile", method: "GET", upstreamPath: { template: "/files/{file_id}/content" } };

  it("sends a fixed path whatever the request's, with the descriptor's method", () => {
    expect(resolveUpstream(fixed, request("/v1/embeddings?x=1", {}, "GET"))).toEqual({ method: "POST", path: "/embeddings" });
    expect(isFixedUpstream(fixed)).toBe(true);
    expect(fixedUpstream(fixed)).toEqual({ method: "POST", path: "/embeddings" });
  });

  it("sends the client's path after /v1 with its query", () => {
    expect(resolveUpstream(afterV1, request("/v1/files/file-1?limit=2&after=x"))).toEqual({ method: "GET", path: "/files/file-1?limit=2&after=x" });
    expect(resolveUpstream(afterV1, request("/v1/models/ft:gpt-4o:org:custom:id"))).toEqual({ method: "GET", path: "/models/ft:gpt-4o:org:custom:id" });
  });

  it("refuses a client path that could leave the provider's base URL", () => {
    // Plain and percent-encoded dot segments are already gone from a parsed URL; these survive it.
    for (const path of ["/v1/files/a%2fb", "/v1/files/%2e%2e%2fadmin", "/v1/files/a%2F..%2Fx", "/v1/files/a%5Cb", "/v1/files/x/..%5c..", "/v1/files//x", "/v1//files"]) {
      const error = refusal(afterV1, path);
      expect(error, path).not.toBeNull();
      expect(error).toMatchObject({ status: 400, code: "invalid_request", param: "path" });
    }
  });

  it("refuses dot segments in a path that reaches it unparsed", () => {
    for (const pathname of ["/v1/files/..", "/v1/files/../admin", "/v1/./files", "/v1/files/.%2E/x"]) {
      expect(() => pathAfterV1({ pathname, search: "" } as URL), pathname).toThrow(GatewayError);
    }
  });

  it("fills a template from the path parameters, each one encoded segment (what a segment may hold kept as it is), and keeps the query", () => {
    expect(resolveUpstream(template, request("/v1/files/x?download=1", { file_id: "file 1:a" })).path).toBe("/files/file%201:a/content?download=1");
    expect(resolveUpstream(template, request("/v1/files/x", { file_id: "a?b#c%d" })).path).toBe("/files/a%3Fb%23c%25d/content");
  });

  it("refuses a template parameter that is empty, a dot segment or holds a slash or backslash", () => {
    for (const value of ["", ".", "..", "a/b", "../x", "a\\b"]) {
      expect(refusal(template, "/v1/files/x/content", { file_id: value }), JSON.stringify(value)).toMatchObject({ status: 400, param: "file_id" });
    }
  });

  it("treats a template naming a parameter its route lacks as a bug", () => {
    expect(() => resolveUpstream(template, request("/v1/files/x/content", {}))).toThrow(/names file_id/);
  });

  it("takes the client's method for an operation that takes any, and never treats it as fixed", () => {
    const passThrough: Routed = { id: "passThrough", method: "*", upstreamPath: { afterV1: true } };
    expect(resolveUpstream(passThrough, request("/v1/assistants/a-1", {}, "DELETE"))).toEqual({ method: "DELETE", path: "/assistants/a-1" });
    expect(isFixedUpstream({ ...passThrough, upstreamPath: { fixed: "/x" } })).toBe(false);
    expect(() => fixedUpstream(passThrough)).toThrow(/resolves its upstream/);
    expect(() => fixedUpstream(afterV1)).toThrow(/resolves its upstream/);
  });
});
