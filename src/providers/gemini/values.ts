/**
 * Readers for the loosely typed JSON the transforms receive (bodies are checked by the route's
 * validator only for the fields the gateway itself reads). Each narrows `unknown` without throwing.
 */
import type { JsonObject } from "../provider.ts";

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function stringOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function numberOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function objectsOf(value: unknown): JsonObject[] {
  return arrayOf(value).filter(isObject);
}

/** Parses JSON text; undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
