/**
 * The JSON Schema a tool lists: zod's conversion without what only costs
 * tokens. Dropped: `$schema` (MCP fixes the dialect); numeric bounds of
 * magnitude {@link FAR_BOUND} or more (zod's `.int()` adds
 * ±`Number.MAX_SAFE_INTEGER`, and the request model's sanity ranges of a
 * million are no limit a caller plans around); string lengths of
 * {@link FAR_LENGTH} characters or more and list lengths of {@link FAR_ITEMS}
 * items or more (guards against abuse, far beyond any real argument); and `additionalProperties: false` on the root (the
 * server refuses unknown arguments anyway, with an error that names the
 * valid ones). Validation is still zod's own, so what a call may send is
 * unchanged, and a call past a dropped bound gets an error that states it.
 *
 * @module
 */
import type { ArgsSchema } from "./registry.ts";

type Json = unknown;

/** Numeric bounds this large (in magnitude) are not listed. */
export const FAR_BOUND = 100_000;
/** String length limits this large are not listed. */
export const FAR_LENGTH = 200;
/** Array length limits this large are not listed. */
export const FAR_ITEMS = 50;

/**
 * Behaviour hints as listed: `destructiveHint` and `idempotentHint` mean
 * something only for a tool that is not read-only, and `openWorldHint`
 * defaults to true (MCP), so a read-only tool that reaches the web lists
 * `readOnlyHint` alone; every other hint is listed as declared.
 */
export function leanAnnotations<T extends { readOnlyHint?: boolean; openWorldHint?: boolean }>(
  annotations: T,
): Partial<T> {
  if (!annotations.readOnlyHint) return annotations;
  const { destructiveHint: _d, idempotentHint: _i, openWorldHint, ...rest } = annotations as T & {
    destructiveHint?: boolean;
    idempotentHint?: boolean;
  };
  return (openWorldHint === false ? { ...rest, openWorldHint } : rest) as Partial<T>;
}

/** A JSON Schema with the token-only parts removed (a new object; the input is kept). */
export function leanJsonSchema(schema: Json, root = true): Json {
  if (Array.isArray(schema)) return schema.map((s) => leanJsonSchema(s, false));
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(schema as Record<string, Json>)) {
    if (key === "$schema") continue;
    if (
      (key === "minimum" || key === "maximum") && typeof value === "number" &&
      Math.abs(value) >= FAR_BOUND
    ) continue;
    if (key === "maxLength" && typeof value === "number" && value >= FAR_LENGTH) continue;
    if (key === "maxItems" && typeof value === "number" && value >= FAR_ITEMS) continue;
    if (root && key === "additionalProperties" && value === false) continue;
    // Property names are data, not keywords: keep every one, clean their schemas.
    out[key] = key === "properties" && value && typeof value === "object"
      ? Object.fromEntries(
        Object.entries(value as Record<string, Json>).map((
          [k, v],
        ) => [k, leanJsonSchema(v, false)]),
      )
      : leanJsonSchema(value, false);
  }
  return out;
}

/** What the SDK reads from an input schema: Standard Schema with its JSON Schema side. */
interface StandardWithJson {
  "~standard": {
    version: 1;
    vendor: string;
    validate: (value: unknown) => unknown;
    jsonSchema: {
      input: (options: { target: string }) => Record<string, unknown>;
      output: (options: { target: string }) => Record<string, unknown>;
    };
  };
}

/**
 * A tool's input schema as the SDK should see it: zod validates, the listed
 * JSON Schema is {@link leanJsonSchema} of zod's (computed once per target).
 */
export function listedSchema(schema: ArgsSchema): StandardWithJson {
  const std = (schema as unknown as StandardWithJson)["~standard"];
  const cache = new Map<string, Record<string, unknown>>();
  const lean = (io: "input" | "output") => (options: { target: string }) => {
    const id = `${io} ${options.target}`;
    let json = cache.get(id);
    if (!json) {
      json = leanJsonSchema(std.jsonSchema[io](options)) as Record<string, unknown>;
      cache.set(id, json);
    }
    return json;
  };
  return {
    "~standard": {
      version: 1,
      vendor: std.vendor,
      validate: (value) => std.validate(value),
      jsonSchema: { input: lean("input"), output: lean("output") },
    },
  };
}
