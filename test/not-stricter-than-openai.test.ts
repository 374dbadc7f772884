import { describe, expect, it } from "vitest";
import { openApiDocument } from "../src/generated/openapi-document.gen.ts";
import { stricterThanOpenai } from "./support/strictness.ts";

/**
 * A transparent proxy is never stricter than its upstream: for every proxied operation the
 * official OpenAI document also has, the gateway's document requires no field OpenAI's leaves
 * optional, refuses no null OpenAI's allows, and sets no bound on a body field or a query
 * parameter tighter than OpenAI's (its `limit`s, `max_tokens`, a model from a stored prompt).
 */
describe("the gateway's checks on proxied operations", () => {
  const document = openApiDocument as unknown as Parameters<typeof stricterThanOpenai>[0];
  const proxied = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, operation]) => (operation.tags as string[] | undefined)?.includes("Inference"))
      .map(([method]) => ({ path, method })),
  );

  it("cover the operations OpenAI's document has", () => {
    expect(proxied.length).toBeGreaterThan(40);
  });

  it("are nowhere stricter than OpenAI's document", () => {
    const problems = proxied.flatMap(({ path, method }) => stricterThanOpenai(document, path, method).map((problem) => `${method.toUpperCase()} ${path}: ${problem}`));
    expect(problems).toEqual([]);
  });

  it("would notice a field made stricter", () => {
    const tightened = structuredClone(document) as any;
    tightened.paths["/v1/chat/completions"].post.requestBody.content["application/json"].schema = {
      type: "object",
      required: ["model", "messages", "user"],
      properties: { max_tokens: { type: "integer", minimum: 1 } },
    };
    expect(stricterThanOpenai(tightened, "/v1/chat/completions", "post")).toEqual(["body.user is required; OpenAI's is optional", "body.max_tokens refuses null; OpenAI's allows it", "body.max_tokens minimum 1; OpenAI's none"]);
  });
});
