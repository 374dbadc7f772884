import { GatewayError } from "../errors.ts";

const HEADER = "x-gateway-metadata";
const MAX_KEYS = 64;
const MAX_KEY_LENGTH = 128;
const MAX_VALUE_LENGTH = 1024;

/** Parses `x-gateway-metadata`: a JSON object of string values, within size limits. Throws a 400 GatewayError otherwise. */
export function parseMetadataHeader(raw: string | undefined): Record<string, string> {
  if (raw === undefined || raw.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalid("must be a JSON object of string values");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw invalid("must be a JSON object of string values");
  const entries = Object.entries(parsed);
  if (entries.length > MAX_KEYS) throw invalid(`may hold at most ${MAX_KEYS} keys`);
  for (const [key, value] of entries) {
    if (typeof value !== "string") throw invalid(`value of "${key.slice(0, MAX_KEY_LENGTH)}" must be a string`);
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) throw invalid(`keys must be 1 to ${MAX_KEY_LENGTH} characters`);
    if (value.length > MAX_VALUE_LENGTH) throw invalid(`values must be at most ${MAX_VALUE_LENGTH} characters`);
  }
  // Own properties whatever the key: assigning `__proto__` would drop it silently.
  return Object.fromEntries(entries) as Record<string, string>;
}

function invalid(problem: string): GatewayError {
  return new GatewayError("invalid_request", `${HEADER} ${problem}.`, { param: HEADER });
}
