import { describe, expect, it } from "vitest";
import { GatewayError } from "../../errors.ts";
import { toGeminiChatRequest } from "../gemini/chat-request.ts";
import { LOCATION, PROJECT, vertexBaseUrl, vertexPath } from "./paths.ts";

const fields = { vertex_project: "my-project-123", vertex_location: "europe-west4" };

describe("Vertex AI endpoints", () => {
  it("takes the host from the location, global without a regional prefix", () => {
    expect(vertexBaseUrl(fields)).toBe("https://europe-west4-aiplatform.googleapis.com/v1");
    expect(vertexBaseUrl({ vertex_location: "global" })).toBe("https://aiplatform.googleapis.com/v1");
    expect(vertexBaseUrl({})).toBeNull();
    expect(vertexBaseUrl({ vertex_location: "evil.example.com/" })).toBeNull();
  });

  it("puts the project, location and publisher before the model path Gemini's transform gives", () => {
    const { path: plain } = toGeminiChatRequest({ messages: [{ role: "user", content: "hi" }] }, { model: "gemini-2.5-flash", stream: false });
    const { path: streamed } = toGeminiChatRequest({ messages: [{ role: "user", content: "hi" }] }, { model: "gemini-2.5-flash", stream: true });
    expect(vertexPath(plain, { fields })).toBe("/projects/my-project-123/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent");
    expect(vertexPath(streamed, { fields })).toBe("/projects/my-project-123/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
  });

  it("refuses a request without project or location, naming the header", () => {
    expect(vertexPath("/models/m:generateContent", { fields: { vertex_location: "us-central1" } })).toMatchObject({ param: "x-gateway-vertex-project" });
    const noLocation = vertexPath("/models/m:generateContent", { fields: { vertex_project: "my-project-123" } });
    expect(noLocation).toBeInstanceOf(GatewayError);
    expect(noLocation).toMatchObject({ status: 400, param: "x-gateway-vertex-location" });
  });

  it("accepts project ids and numbers and real locations, and nothing that could leave the path or host", () => {
    for (const good of ["my-project-123", "abcdef", "123456789012"]) expect(PROJECT.test(good)).toBe(true);
    for (const bad of ["My-Project", "abc", "proj/../x", "ends-with-", "1project", "a".repeat(31)]) expect(PROJECT.test(bad)).toBe(false);
    for (const good of ["us-central1", "europe-west4", "northamerica-northeast1", "global", "me-central2"]) expect(LOCATION.test(good)).toBe(true);
    for (const bad of ["us", "us-central1.evil.com", "US-CENTRAL1", "global/", "us-central"]) expect(LOCATION.test(bad)).toBe(false);
  });
});
