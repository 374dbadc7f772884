import type { Gateway } from "../gateway.ts";

/** What start-up prints: where the gateway listens and how to make a first call. */
export function startupBanner(gateway: Gateway, url: string, runtime: string): string {
  const key = gateway.bootstrapKey ?? "$GATEWAY_ADMIN_KEY";
  const lines = [
    `AI gateway ${gateway.deps.version} listening on ${url} (${runtime}, store: ${gateway.deps.store.dialect})`,
    `Dashboard: ${url}/   API reference: ${url}/docs   OpenAPI document: ${url}/openapi.json`,
  ];
  if (gateway.bootstrapKey) {
    lines.push(
      "",
      "First start: created an admin gateway key. It is shown only this once; keep it safe:",
      `  ${gateway.bootstrapKey}`,
    );
  }
  lines.push(
    "",
    "First call:",
    `  curl ${url}/v1/chat/completions \\`,
    `    -H "x-gateway-api-key: ${key}" \\`,
    `    -H "x-gateway-provider: openai" \\`,
    `    -H "Authorization: Bearer $OPENAI_API_KEY" \\`,
    `    -H "Content-Type: application/json" \\`,
    `    -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'`,
  );
  return lines.join("\n");
}
