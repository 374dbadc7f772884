import { fail, GatewayError, ok, type Result } from "../errors.ts";
import type { OperationDescriptor } from "../operation/descriptor.ts";
import { CONFIG_HEADER } from "../operation/field-overrides.ts";
import type { RequestBody } from "../operation/request-body.ts";

/**
 * The config's `override_params` win over a JSON body's own fields, once the operation's rule
 * passed them (an operation without one refuses them, 400); other bodies pass as they are.
 */
export function withOverrides(
  body: RequestBody,
  overrides: Record<string, unknown> | undefined,
  operation: Pick<OperationDescriptor, "id" | "overrides">,
): Result<RequestBody, GatewayError> {
  if (!overrides || body.kind !== "json") return ok(body);
  const error = operation.overrides
    ? operation.overrides(overrides)
    : new GatewayError("invalid_request", `The config sets override_params, which ${operation.id} does not take: remove them from the config for this operation.`, { param: CONFIG_HEADER });
  return error ? fail(error) : ok({ kind: "json", value: { ...body.value, ...overrides } });
}
