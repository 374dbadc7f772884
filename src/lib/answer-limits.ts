import { GatewayError } from "../errors.ts";

/** The 502 of an upstream answer larger than the gateway may hold in memory to judge it. */
export function tooLargeToBuffer(maxBytes: number, headers?: Readonly<Record<string, string>>): GatewayError {
  return new GatewayError(
    "upstream_error",
    `The upstream's answer is larger than ${maxBytes} bytes, the most the gateway holds to run output guardrails on it (GATEWAY_MAX_RESPONSE_BUFFER_BYTES).`,
    { headers },
  );
}

/** The error that ends a stream one of whose events grew past what the gateway holds to relay it whole. */
export function eventTooLarge(maxBytes: number): GatewayError {
  return new GatewayError(
    "upstream_error",
    `An event of the upstream's stream is larger than ${maxBytes} bytes, the most the gateway holds of one event to relay it (GATEWAY_MAX_RESPONSE_BUFFER_BYTES).`,
  );
}
