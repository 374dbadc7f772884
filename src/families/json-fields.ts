/** Small readers of parsed JSON, shared by the families' translations (Anthropic Messages, Gemini). Never throw. */
import type { JsonObject } from "../providers/provider.ts";

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function objectField(value: unknown, key: string): JsonObject | null {
  const found = isObject(value) ? value[key] : undefined;
  return isObject(found) ? found : null;
}

export function stringField(value: unknown, key: string): string | null {
  const found = isObject(value) ? value[key] : undefined;
  return typeof found === "string" ? found : null;
}

export function numberField(value: unknown, key: string): number | null {
  const found = isObject(value) ? value[key] : undefined;
  return typeof found === "number" && Number.isFinite(found) ? found : null;
}

export function arrayField(value: unknown, key: string): unknown[] {
  const found = isObject(value) ? value[key] : undefined;
  return Array.isArray(found) ? found : [];
}
