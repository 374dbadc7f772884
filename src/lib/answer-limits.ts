import { GatewayError } from "../errors.ts";

/** The 502 of an upstream answer larger than the gateway may hold in memory to judge it. */
export function tooLargeToBuffer(maxBytes: number, headers?: Readonly<Record<string, string>>): GatewayError {
  return new GatewayError(
    "upstream_error",
    `The upstream's answer is larger than ${maxBytes} bytes, the most the gateway holds to run output guardrails on it (GATEWAY_MAX_RESPONSE_BUFFER_BYTES).`,
    { headers },
  );
}
