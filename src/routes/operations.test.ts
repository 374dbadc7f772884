import { readdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { resolveUpstream, type OperationDescriptor } from "../operation/descriptor.ts";
import { GatewayError } from "../errors.ts";
import { answerReader } from "../logging/log-record-builder.ts";
import { openApiDocument } from "../generated/openapi-document.gen.ts";

/** The descriptors the route files export, found by their shape: the registry every rule below reads. */
async function routeDescriptors(): Promise<Map<string, { file: string; descriptor: OperationDescriptor }[]>> {
  const found = new Map<string, { file: string; descriptor: OperationDescriptor }[]>();
  const files = readdirSync(dirname(fileURLToPath(import.meta.url))).filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"));
  for (const file of files) {
    const name = file.slice(0, -".ts".length);
    const module = (await import(/* @vite-ignore */ `./${name}.ts`)) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (!isDescriptor(value)) continue;
      found.set(name, [...(found.get(name) ?? []), { file: name, descriptor: value }]);
    }
  }
  return found;
}

function isDescriptor(value: unknown): value is OperationDescriptor {
  return typeof value === "object" && value !== null && "id" in value && "upstreamPath" in value && "answers" in value;
}

interface Documented {
  path: string;
  method: string;
  contentTypes: string[];
  /** Its query parameters' names. */
  query: string[];
}

/** Every documented operation by its operationId: its path, method and request body's content types. */
function documentedOperations(): Map<string, Documented> {
  const operations = new Map<string, Documented>();
  for (const [path, item] of Object.entries(openApiDocument.paths)) {
    type Parameter = { in?: string; name?: string; $ref?: string };
    type Operation = { operationId?: string; requestBody?: { content?: object }; parameters?: Parameter[] };
    const shared = openApiDocument.components.parameters as Record<string, Parameter>;
    const resolved = (parameter: Parameter): Parameter => (parameter.$ref ? shared[parameter.$ref.split("/").pop()!]! : parameter);
    for (const [method, operation] of Object.entries(item as Record<string, Operation>)) {
      if (!operation.operationId) continue;
      const query = (operation.parameters ?? []).map(resolved).filter((parameter) => parameter.in === "query").map((parameter) => parameter.name ?? "");
      operations.set(operation.operationId, { path, method: method.toUpperCase(), contentTypes: Object.keys(operation.requestBody?.content ?? {}), query });
    }
  }
  return operations;
}

let byFile: Map<string, { file: string; descriptor: OperationDescriptor }[]>;
let descriptors: OperationDescriptor[];
const documented = documentedOperations();

beforeAll(async () => {
  byFile = await routeDescriptors();
  descriptors = [...byFile.values()].flat().map(({ descriptor }) => descriptor);
}, 60_000);

/** The descriptors whose `key` is set, by id, with that fact. */
function factsOf<K extends keyof OperationDescriptor>(key: K): Record<string, OperationDescriptor[K]> {
  return Object.fromEntries(descriptors.filter((descriptor) => descriptor[key] !== undefined).map((descriptor) => [descriptor.id, descriptor[key]]));
}

describe("the operation descriptors", () => {
  it("send a path resolved per request to the document's path with the client's query, and refuse one that would leave /v1", () => {
    const perRequest = descriptors.filter((descriptor) => !("fixed" in descriptor.upstreamPath));
    expect(perRequest.length).toBeGreaterThan(40);
    for (const descriptor of perRequest) {
      const path = descriptor.id === "passThrough" ? "/v1/assistants/{assistant_id}" : documented.get(descriptor.id)!.path;
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
      const at = (value: string) => ({
        method: descriptor.method === "*" ? "GET" : descriptor.method,
        url: new URL(`http://gateway.test${names.reduce((filled, name) => filled.replace(`{${name}}`, value), path)}?limit=2`),
        params: Object.fromEntries(names.map((name) => [name, decodeURIComponent(value)])),
      });
      expect(resolveUpstream(descriptor, at("id-1")).path, descriptor.id).toBe(`${path.slice("/v1".length).replace(/\{[^}]+\}/g, "id-1")}?limit=2`);
      if (names.length === 0) continue;
      expect(() => resolveUpstream(descriptor, at("x%2F..%2F..%2Fadmin")), descriptor.id).toThrow(GatewayError);
    }
  });

  it("let the cache keep exactly the JSON inference whose answer depends on the request alone", () => {
    const cacheable = factsOf("cache");
    expect(Object.keys(cacheable).sort()).toEqual([
      "batchEmbedContents",
      "createChatCompletion",
      "createCompletion",
      "createEmbedding",
      "createMessage",
      "createRerank",
      "createResponse",
      "embedContent",
      "generateContent",
      "streamGenerateContent",
    ]);
    for (const id of Object.keys(cacheable)) {
      const descriptor = descriptors.find((candidate) => candidate.id === id)!;
      expect([descriptor.body, descriptor.answer], id).toEqual(["json", "json"]);
    }
    // Their rules: what keeps state upstream is never served from the cache.
    expect(cacheable.createChatCompletion!({ model: "m", messages: [], store: true })).toBe("store");
    expect(cacheable.createChatCompletion!({ model: "m", messages: [] })).toBeNull();
    expect(cacheable.createResponse!({ model: "m", input: "hi" })).toBe("store");
    expect(cacheable.createResponse!({ model: "m", input: "hi", store: false })).toBeNull();
    expect(cacheable.createEmbedding!({ model: "m", input: "hi" })).toBeNull();
    expect(cacheable.createRerank!({ model: "m", query: "q", documents: ["d"] })).toBeNull();
  });

  it("name the GenAI calls in telemetry, and only them", () => {
    expect(factsOf("genAiOperation")).toEqual({
      createChatCompletion: "chat",
      createResponse: "chat",
      createCompletion: "text_completion",
      createEmbedding: "embeddings",
      createImage: "generate_content",
      createImageEdit: "generate_content",
      createImageVariation: "generate_content",
      createSpeech: "generate_content",
      createTranscription: "generate_content",
      createTranslation: "generate_content",
      generateContent: "generate_content",
      streamGenerateContent: "generate_content",
      embedContent: "embeddings",
      batchEmbedContents: "embeddings",
    });
  });

  it("check a config's override_params wherever a JSON body may take them", () => {
    for (const descriptor of descriptors.filter((candidate) => candidate.body === "json" || candidate.body === "json-or-as-sent")) {
      expect(descriptor.overrides, descriptor.id).toBeDefined();
      expect(descriptor.overrides!({ model: "gpt-4o", temperature: 0.5 }), descriptor.id).toBeNull();
      expect(descriptor.overrides!({ temperature: 9 })?.status, descriptor.id).toBe(400);
    }
  });

  it("name answer readers the log finds by their names", () => {
    for (const descriptor of descriptors) expect(answerReader(descriptor.answers.name), descriptor.id).toBe(descriptor.answers);
  });

  it("read the answers the log prices as media with their media family's readers", () => {
    const readers = Object.fromEntries(descriptors.map((descriptor) => [descriptor.id, descriptor.answers.name]));
    expect(readers).toMatchObject({
      createChatCompletion: "chat",
      createResponse: "responses",
      createMessage: "messages",
      createImage: "image",
      createImageEdit: "image",
      createImageVariation: "image",
      createSpeech: "speech",
      createTranscription: "transcription",
      createTranslation: "transcription",
      createVideo: "video",
      remixVideo: "video",
      countMessageTokens: "stored",
      generateContent: "gemini",
      streamGenerateContent: "gemini",
      embedContent: "gemini",
      batchEmbedContents: "gemini",
      countContentTokens: "stored",
      createRerank: "rerank",
    });
  });
});
