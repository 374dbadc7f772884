import { listProvidersRoute } from "../generated/routes.gen.ts";
import type { GatewayApp } from "../app-env.ts";
import { PROVIDERS } from "../providers/catalogue.ts";
import type { Provider } from "../providers/provider.ts";

/**
 * The providers the gateway reaches, each read from its catalogue entry and its transforms: what
 * a client may name in `x-gateway-provider`, and what reaching it involves. Any gateway key.
 */
export function registerListProviders(app: GatewayApp): void {
  app.openapi(listProvidersRoute, (c) => {
    const data = [...PROVIDERS.values()].map(providerView);
    return c.json({ object: "list" as const, total: data.length, data }, 200);
  });
}

function providerView(provider: Provider) {
  return {
    id: provider.id,
    name: provider.name,
    family: provider.family ?? provider.id,
    format: provider.openaiFormat ? ("openai" as const) : ("translated" as const),
    base_url: provider.baseUrl,
    base_url_template: provider.baseUrlTemplate ?? null,
    custom_host_needs_path: provider.customHostNeedsPath ?? (provider.baseUrl !== null && new URL(provider.baseUrl).pathname !== "/"),
    docs: provider.docs,
    operations: Object.keys(provider.operations),
    chat: chatView(provider),
    credential_fields: (provider.credentialFields ?? []).map(({ name, header, secret, description }) => ({ name, header, secret, description })),
  };
}

/** Chat completions as they reach the provider; null when it has none (an OpenAI-format provider always has). */
function chatView(provider: Provider) {
  if (!provider.operations.createChatCompletion && !provider.openaiFormat) return null;
  const rules = provider.chatRules;
  const refused = [...(rules?.fields.refuse ?? []), ...Object.entries(rules?.fields.only ?? {}).map(([field, value]) => `${field}=${String(value)}`)];
  return {
    // A translated provider's stream is read event by event, its usage with it.
    stream_usage: rules?.streamUsage ?? ("translated" as const),
    tools: !refused.includes("tools"),
    refused_fields: refused,
    dropped_fields: [...(rules?.fields.drop ?? [])],
  };
}
