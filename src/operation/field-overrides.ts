import { CreateChatCompletionRequestSchema } from "../generated/schemas.gen.ts";
import { GatewayError } from "../errors.ts";
import type { OverridesRule } from "./descriptor.ts";

/** The request header naming a config, which the refusals name as their `param`. */
export const CONFIG_HEADER = "x-gateway-config";

/**
 * Each field of the chat body on its own. The chat schema has no rule that spans two fields,
 * so a body that passed it still passes once `override_params` are merged in exactly when
 * every override passes its own field's rule: checking the overrides checks the merged body
 * without parsing the client's messages a second time.
 */
let chatFields: ReturnType<typeof chatFieldsSchema> | null = null;
function chatFieldsSchema() {
  return CreateChatCompletionRequestSchema.unwrap().partial();
}

/** Verdicts per overrides object: the settings of stored configs come from the control-plane cache. */
const verdicts = new WeakMap<object, GatewayError | null>();

/**
 * The overrides rule of the operations whose JSON bodies a config may change (named by their
 * descriptors): the fields the
 * gateway reads from any JSON body (model, stream, user, the generation parameters) keep their
 * chat-completion rules, which `ConfigOverrideParams` documents. Null when merging `overrides`
 * into a valid chat body leaves it valid; else a 400 naming the config and the override
 * (`override_params.model`). Configs are validated when stored, so this catches configs stored
 * before that rule. Never throws.
 */
export const jsonFieldOverrides: OverridesRule = (overrides) => {
  const known = verdicts.get(overrides);
  if (known !== undefined) return known;
  chatFields ??= chatFieldsSchema();
  const parsed = chatFields.safeParse(overrides);
  const issue = parsed.success ? undefined : parsed.error.issues[0];
  const field = ["override_params", ...(issue?.path.map(String) ?? [])].join(".");
  const error = parsed.success
    ? null
    : new GatewayError("invalid_request", `The config's ${field} would make the request invalid: ${issue?.message ?? "invalid value"}. Fix the config.`, {
        param: CONFIG_HEADER,
      });
  verdicts.set(overrides, error);
  return error;
};
