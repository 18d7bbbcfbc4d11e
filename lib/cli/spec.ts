/**
 * What the command line is made of: flag and command specifications, the
 * usage error, and the flags several commands share. Loaded by every
 * command but `--version`; it needs nothing of the tools.
 *
 * @module
 */
import {
  CACHE_SCOPE_FLAG,
  type CacheScope,
  cacheScope,
  type Config,
  convertDeadlineMs,
  MUTATING_FLAG,
  MUTATING_VARIABLE,
  OUTPUT_FORMATS,
  PAGE_CEILING_FLAG,
  PAGE_CEILING_VARIABLE,
  PAGE_LIMIT_FLAG,
  PAGE_LIMIT_VARIABLE,
  pageCeilingBytes,
  parseMegabytes,
  PROFILES,
  setCacheScope,
  setPageCeilingBytes,
  setPageMaxBytes,
} from "../config.ts";
import type { Flags } from "../flags.ts";
import type { ToolDefinition } from "../tools/registry.ts";
import { UsageError } from "./usage.ts";

export { USAGE_EXIT, UsageError } from "./usage.ts";

/** One flag of a command. */
export interface FlagSpec {
  /** The request field the flag sets, for the view commands. */
  key?: string;
  /** `boolean` flags take no value. */
  kind: "boolean" | "string" | "port" | "choice" | "int";
  choices?: readonly string[];
  help: string;
  /** Placeholder shown in help. */
  value?: string;
  /** May be given several times (values collect in a list). */
  repeatable?: boolean;
}

/** Flags by name. */
export type FlagSpecs = Record<string, FlagSpec>;

/** One command: its flags (or a function that imports them) and what runs it. */
export interface CommandSpec {
  summary: string;
  /** One positional argument, if the command takes one. */
  positional?: { name: string; help: string };
  /** The flags, or (for commands whose flags come from the request model) their import. */
  flags: FlagSpecs | (() => Promise<FlagSpecs>);
  run(flags: Flags, options: MainOptions, positional?: string): Promise<number>;
}

/** Options for embedding the CLI. */
export interface MainOptions {
  /** Tools to serve instead of the built-in ones. */
  tools?: readonly ToolDefinition[];
}

/** Flags of the commands that serve or install the tools. */
export const SHARED_FLAGS: FlagSpecs = {
  "--profile": {
    kind: "choice",
    choices: PROFILES,
    value: "NAME",
    help: "tool names: desktop (snake_case, default) or code (PascalCase)",
  },
  "--default-output": {
    kind: "choice",
    choices: OUTPUT_FORMATS,
    value: "FORMAT",
    help: "format of record-shaped results (default markdown)",
  },
  "--tools": {
    kind: "string",
    value: "LIST",
    help:
      "tools to list, comma-separated: groups (web, scholarly, code, community, search, shelf) or tool names (default all; PARKOUR_TOOLS)",
  },
  [MUTATING_FLAG]: {
    kind: "boolean",
    help:
      `turn on the actions that change data: the research shelf's confirm, score, note, remove, import and clear (off by default; ${MUTATING_VARIABLE}=1)`,
  },
};

/** The page size limit, for the commands that read pages. */
export const PAGE_LIMIT: FlagSpec = {
  kind: "string",
  value: "MIB",
  help: `largest page read, decoded, in MiB, for every view (default 50; ${PAGE_LIMIT_VARIABLE})`,
};

/** The ceiling of a call's own page limit (max_page_mb), for the server. */
export const PAGE_CEILING: FlagSpec = {
  kind: "string",
  value: "MIB",
  help:
    `largest page a call may ask for with max_page_mb, in MiB (default 200 or the page limit, if higher; ${PAGE_CEILING_VARIABLE})`,
};

/** `--format` of the page commands. */
export const PAGE_FORMAT: FlagSpec = {
  kind: "choice",
  choices: ["text", "envelope", "markdown", "json"],
  value: "FORMAT",
  help:
    "text (for a person: no margins, outlines as a tree; the default on a terminal), envelope (what MCP clients get; the default into a pipe), markdown (the page text only) or json",
};

/** Applies `--profile`, `--default-output` and the page limit to `config`. */
export function applySharedFlags(config: Config, flags: Flags): Config {
  if (typeof flags["--profile"] === "string") {
    config.profile = flags["--profile"] as Config["profile"];
  }
  if (typeof flags["--default-output"] === "string") {
    config.defaultOutput = flags["--default-output"] as Config["defaultOutput"];
  }
  if (flags[MUTATING_FLAG] === true) config.mutatingTools = true;
  applyPageLimit(flags);
  // A malformed conversion deadline fails at start, not at the first large page.
  convertDeadlineMs();
  // So does a malformed cache scope, not at the first page (serve's flag sets it first).
  if (typeof flags[CACHE_SCOPE_FLAG] === "string") {
    setCacheScope(flags[CACHE_SCOPE_FLAG] as CacheScope);
  }
  cacheScope();
  return config;
}

/** The page limit and its ceiling from their flags, then checked (a bad value fails at start). */
function applyPageLimit(flags: Flags): void {
  for (
    const [flag, set, example] of [
      [PAGE_LIMIT_FLAG, setPageMaxBytes, 50],
      [PAGE_CEILING_FLAG, setPageCeilingBytes, 200],
    ] as const
  ) {
    const value = flags[flag];
    if (typeof value !== "string") continue;
    const bytes = parseMegabytes(value);
    if (bytes === undefined) {
      throw new UsageError(`invalid ${flag} '${value}'; give a size in MiB, such as ${example}`);
    }
    set(bytes);
  }
  pageCeilingBytes();
}
