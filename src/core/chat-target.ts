import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { findProvider, type ProviderDefinition } from "../providers/catalogue.ts";
import type { UpstreamCredentials } from "../providers/openai/chat-request.ts";

/** Where one chat request goes, and with which credentials. */
export interface ChatTarget {
  provider: ProviderDefinition;
  baseUrl: string;
  credentials: UpstreamCredentials;
  /** Model id as sent upstream. */
  model: string;
  /** Set when a stored virtual key supplied the provider. */
  virtualKeyId: string | null;
}

export interface TargetHeaders {
  provider?: string;
  authorization?: string;
  organization?: string;
  project?: string;
  customHost?: string;
}

export interface TargetResolverDeps {
  checkCustomHost: (rawUrl: string) => Promise<Result<URL, GatewayError>>;
}

/**
 * Splits the model form `@<provider>/<model>`. Returns null for a plain model id.
 * The provider part may later name a stored provider (virtual key slug) too.
 */
export function splitProviderModel(model: string): { provider: string; model: string } | null {
  if (!model.startsWith("@")) return null;
  const slash = model.indexOf("/");
  if (slash <= 1 || slash === model.length - 1) return null;
  return { provider: model.slice(1, slash), model: model.slice(slash + 1) };
}

function bearer(authorization: string | undefined): string | null {
  if (!authorization) return null;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  return match?.[1]?.trim() || null;
}

/**
 * Resolves provider, base URL, credentials and model for a chat request. The model form
 * `@<provider>/<model>` wins over `x-gateway-provider`, because it is the more specific of
 * the two and its prefix must not reach the upstream anyway.
 */
export async function resolveChatTarget(
  headers: TargetHeaders,
  requestedModel: string,
  deps: TargetResolverDeps,
): Promise<Result<ChatTarget, GatewayError>> {
  if (requestedModel.startsWith("@") && !splitProviderModel(requestedModel)) {
    return fail(new GatewayError("invalid_request", "A model starting with @ must have the form @<provider>/<model>.", { param: "model" }));
  }
  const fromModel = splitProviderModel(requestedModel);
  const selector = fromModel?.provider ?? headers.provider?.trim().replace(/^@/, "");
  if (!selector) {
    return fail(
      new GatewayError("unknown_provider", "No provider: send x-gateway-provider or use a model of the form @<provider>/<model>.", {
        param: "x-gateway-provider",
      }),
    );
  }
  const provider = findProvider(selector);
  if (!provider) {
    return fail(
      new GatewayError("unknown_provider", `Unknown provider "${selector.slice(0, 100)}".`, {
        param: fromModel ? "model" : "x-gateway-provider",
      }),
    );
  }

  let baseUrl = provider.baseUrl;
  if (headers.customHost) {
    const checked = await deps.checkCustomHost(headers.customHost);
    if (!checked.ok) return checked;
    baseUrl = checked.value.href.replace(/\/+$/, "");
  }
  if (!baseUrl) {
    return fail(
      new GatewayError("invalid_request", `Provider "${provider.id}" needs a base URL: send x-gateway-custom-host.`, {
        param: "x-gateway-custom-host",
      }),
    );
  }

  return ok({
    provider,
    baseUrl,
    credentials: {
      apiKey: bearer(headers.authorization),
      organization: headers.organization?.trim() || null,
      project: headers.project?.trim() || null,
    },
    model: fromModel?.model ?? requestedModel,
    virtualKeyId: null,
  });
}
