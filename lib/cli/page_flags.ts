/**
 * The flags of `parkour fetch` and `parkour sections`: the request model's
 * fields (`lib/views/request.ts`) in command-line words. Loaded for these
 * commands and for `--help`, without the tools.
 *
 * @module
 */
import { PAGE_LIMIT_FLAG } from "../config.ts";
import {
  OUTLINE_FIELDS,
  OUTLINE_KEYS,
  PAGE_FIELDS,
  PAGE_KEYS,
  param,
  paramName,
  renderParams,
  TEXT_KINDS,
} from "../views/request.ts";
import { type FlagSpecs, PAGE_FORMAT, PAGE_LIMIT, SHARED_FLAGS } from "./spec.ts";

/** Parameter names inside the request model's descriptions, to spell them as flags. */
const FIELD_NAME = new RegExp(`\\b(${PAGE_KEYS.filter((k) => k !== "url").join("|")})\\b`, "g");

/** Help text of the view flags (the request model's descriptions, in CLI words). */
function viewFlags(
  keys: readonly string[],
  fields: Record<string, { description?: string }>,
): FlagSpecs {
  const flags: FlagSpecs = {};
  for (const key of keys) {
    if (key === "url") continue;
    const kind = TEXT_KINDS[key];
    const help = renderParams(
      (fields[key].description ?? "").replace(FIELD_NAME, (k) => param(k)),
      "cli",
    );
    const value = kind === "ints"
      ? "N,M"
      : kind === "json"
      ? "JSON"
      : kind === "int"
      ? "N"
      : "TEXT";
    flags[paramName("cli", key)] = kind === "boolean"
      ? { kind: "boolean", help, key }
      : { kind: "string", value, help, key, repeatable: kind === "strings" };
  }
  return flags;
}

/** Flags of `parkour fetch`. */
export const FETCH_FLAGS: FlagSpecs = {
  ...viewFlags(PAGE_KEYS, PAGE_FIELDS),
  "--format": PAGE_FORMAT,
  "--profile": SHARED_FLAGS["--profile"],
  [PAGE_LIMIT_FLAG]: PAGE_LIMIT,
};

/** Flags of `parkour sections`. */
export const SECTIONS_FLAGS: FlagSpecs = {
  ...viewFlags(OUTLINE_KEYS, OUTLINE_FIELDS),
  "--slice": {
    ...viewFlags(OUTLINE_KEYS, OUTLINE_FIELDS)["--slice"],
    value: "N|all",
    help: `${
      viewFlags(OUTLINE_KEYS, OUTLINE_FIELDS)["--slice"].help
    }; all: the whole outline in one window`,
  },
  "--format": PAGE_FORMAT,
  "--profile": SHARED_FLAGS["--profile"],
  [PAGE_LIMIT_FLAG]: PAGE_LIMIT,
};
