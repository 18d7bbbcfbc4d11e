/**
 * Reading fields of parsed JSON answers without trusting their shape: each
 * reader gives the field when it has the expected type, else an empty value.
 * Shared by the sources whose answers are nested records (GitHub, Reddit).
 *
 * @module
 */

/** A JSON object. */
export type Json = Record<string, unknown>;

/** A string field, or "". */
export function str(o: unknown, key: string): string {
  const v = (o as Json | null | undefined)?.[key];
  return typeof v === "string" ? v : "";
}

/** A finite number field, or undefined. */
export function num(o: unknown, key: string): number | undefined {
  const v = (o as Json | null | undefined)?.[key];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** An object field, or undefined. */
export function obj(o: unknown, key: string): Json | undefined {
  const v = (o as Json | null | undefined)?.[key];
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v as Json : undefined;
}
