/**
 * The tool registry: what every tool declares, and how the declarations
 * become a profile's tool list.
 *
 * A tool declares a zod input schema, a title, annotations and a description
 * written for an LLM. Descriptions may differ per profile and name sibling
 * tools as `{tool:<key>}`, resolved to the profile's names (`desktop`:
 * snake_case, `code`: PascalCase). The list order is the order of
 * declaration, so `tools/list` is deterministic. Declarations are checked
 * when the registry is built: duplicate keys or names, names in the wrong
 * case for their profile, and unknown `{tool:...}` references are errors.
 *
 * @module
 */
import {
  ConfigError,
  expandToolRefs,
  type OutputFormat,
  type Profile,
  PROFILES,
  refusedCredentials,
  refusedCredentialWarning,
} from "../config.ts";
import type { ResponseContext, ResponseSpec, ToolResult } from "../envelope/response.ts";
import { buildResponse } from "../envelope/response.ts";
import type { TipLedger } from "../envelope/tips.ts";
import { selectionWords, TOOL_GROUPS, unknownWord } from "./groups.ts";

export { TOOL_GROUPS };

/** Behaviour hints shown to clients. */
export interface ToolAnnotations {
  /** The tool does not change anything. */
  readOnlyHint: boolean;
  /** The tool may destroy or overwrite data. */
  destructiveHint: boolean;
  /** Calling twice with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** The tool reaches outside the server (the web, APIs). */
  openWorldHint: boolean;
}

/** What a handler gets besides its arguments. */
export interface ToolContext {
  /** Active profile. */
  profile: Profile;
  /** Default output format for record-shaped results. */
  defaultOutput: OutputFormat;
  /** Aborted when the client cancels the call. */
  signal: AbortSignal;
  /** Name of a tool (or client tool) in the active profile. */
  toolName(key: string): string | undefined;
  /** Reports progress when the client asked for it; a no-op otherwise. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Builds a response with this profile's names and the response cap. */
  respond(spec: ResponseSpec): ToolResult;
}

/**
 * An input schema: a zod object schema (`z.object({...})`). Typed through
 * the Standard Schema interface zod implements, so the public API does not
 * depend on zod's own types.
 */
export interface ArgsSchema<Args = Record<string, unknown>> {
  /** Standard Schema properties. */
  readonly "~standard": {
    /** Standard Schema version. */
    readonly version: 1;
    /** Library that made the schema. */
    readonly vendor: string;
    /** Inferred types (compile time only). */
    readonly types?: { readonly input: unknown; readonly output: Args } | undefined;
  };
}

/** The argument type a schema validates to. */
export type ArgsOf<S> = S extends ArgsSchema<infer A> ? A : never;

/** One tool's declaration. */
export interface ToolDefinition<Schema extends ArgsSchema = ArgsSchema> {
  /** Internal key, lower snake case; other tools refer to it as `{tool:key}`. */
  key: string;
  /** Names per profile. */
  names: Record<Profile, string>;
  /** Human-readable title. */
  title: string;
  /** Description for the LLM: one text, or one per profile. */
  description: string | Record<Profile, string>;
  /** Input schema (a zod object). */
  inputSchema: Schema;
  /** Behaviour hints. */
  annotations: ToolAnnotations;
  /**
   * For a tool that needs a setting (an API key) to do its main work: whether
   * the setting is present, and the one-line description listed without it.
   */
  unconfigured?: {
    /** Whether the tool is configured (read when the registry is built). */
    configured(): boolean;
    /** The description listed when it is not. */
    description: string;
  };
  /**
   * For a tool some of whose actions change what the server keeps (the
   * research shelf's writing actions): those actions, and how the tool is
   * listed while they are off, which they are unless the server is started
   * with `--enable-mutating-tools` (or `PARKOUR_ENABLE_MUTATING_TOOLS=1`), as
   * kagi mcp's flag of that name keeps its mutation tools out. A call of one
   * of them while they are off is refused before the handler runs.
   */
  mutating?: {
    /** The values of the `action` parameter that change data. */
    actions: readonly string[];
    /** The description listed while they are off. */
    description: string;
    /** The input schema listed while they are off: without them and their parameters. */
    inputSchema: ArgsSchema;
    /** The annotations while they are off. */
    annotations: ToolAnnotations;
  };
  /** Runs the tool. Thrown errors become `isError` results. */
  handler(
    args: ArgsOf<Schema>,
    context: ToolContext,
  ): ToolResult | Promise<ToolResult>;
}

/**
 * A handler that runs one function per value of the tool's `action`
 * parameter: `handler: byAction<Args>({ search: searchAction, paper })`.
 */
export function byAction<Args extends { action: string }>(
  actions: Record<Args["action"], (args: Args, context: ToolContext) => Promise<ToolResult>>,
): (args: Args, context: ToolContext) => Promise<ToolResult> {
  return (args, context) => actions[args.action as Args["action"]](args, context);
}

/** Declares a tool with its argument types inferred from the schema. */
export function defineTool<Schema extends ArgsSchema>(
  definition: ToolDefinition<Schema>,
): ToolDefinition<Schema> {
  return definition;
}

/**
 * Names of the client's own tools that descriptions may refer to as
 * `{tool:web_fetch}` or `{tool:web_search}`.
 */
export const CLIENT_TOOL_NAMES: Record<string, Record<Profile, string>> = {
  web_fetch: { desktop: "web_fetch", code: "WebFetch" },
  web_search: { desktop: "web_search", code: "WebSearch" },
};

const NAME_PATTERN: Record<Profile, RegExp> = {
  desktop: /^[a-z][a-z0-9_]{0,63}$/,
  code: /^[A-Z][A-Za-z0-9]{0,63}$/,
};

/** A tool as one profile shows it. */
export interface ResolvedTool {
  /** The declaration. */
  definition: ToolDefinition;
  /** Name in the profile. */
  name: string;
  /** Description with sibling names resolved. */
  description: string;
  /** The input schema listed (and checked). */
  inputSchema: ArgsSchema;
  /** The annotations listed. */
  annotations: ToolAnnotations;
  /** Actions refused because they change data and this server keeps them off. */
  refused: readonly string[];
}

/** What a call of an action that is off is told (the person running the server turns it on). */
export function mutatingOff(tool: string, action: string): string {
  return `${tool} action=${action} changes what this server keeps, and such actions are off here; ` +
    `the person running the server turns them on with --enable-mutating-tools (or ` +
    `PARKOUR_ENABLE_MUTATING_TOOLS=1 in the server's environment); until then use the actions ` +
    `the tool lists`;
}

/**
 * Reads a tool selection (`web,github`): group names, tool keys or tool names
 * of any profile, comma- or space-separated, case-insensitive. Returns the
 * selected keys among `definitions`; undefined for no selection (all tools).
 * An unknown word is a {@link ConfigError} naming the valid ones.
 */
export function selectTools(
  definitions: readonly ToolDefinition[],
  selection: string | readonly string[] | undefined,
  where = "PARKOUR_TOOLS",
): Set<string> | undefined {
  const words = selectionWords(selection);
  if (words.length === 0 || words.includes("all")) return undefined;
  const keys = new Set<string>();
  for (const word of words) {
    const group = TOOL_GROUPS[word];
    if (group) {
      for (const key of group) if (definitions.some((d) => d.key === key)) keys.add(key);
      continue;
    }
    const tool = definitions.find((d) =>
      d.key === word || PROFILES.some((p) => d.names[p].toLowerCase() === word)
    );
    if (!tool) throw unknownWord(where, word, definitions.map((d) => d.key));
    keys.add(tool.key);
  }
  if (keys.size === 0) {
    throw new ConfigError(
      `${where}: '${words.join(",")}' selects no tool this server has; tools: ${
        definitions.map((d) => d.key).join(", ")
      }`,
    );
  }
  return keys;
}

/** Options of a {@link ToolRegistry}. */
export interface RegistryOptions {
  /** Tools to list: group names, keys or names ({@link selectTools}); all by default. */
  select?: string | readonly string[];
  /** Where the selection came from, for its error (`--tools`, `PARKOUR_TOOLS`). */
  selectFrom?: string;
  /**
   * Describe every tool as configured (its full description even without its
   * key), for listings made for other machines such as the extension manifest.
   */
  assumeConfigured?: boolean;
  /**
   * Whether the actions that change data are on (`--enable-mutating-tools`,
   * `PARKOUR_ENABLE_MUTATING_TOOLS`); off by default (see
   * {@link ToolDefinition.mutating}).
   */
  mutating?: boolean;
}

/** The tools of one profile, checked and resolved. */
export class ToolRegistry {
  readonly profile: Profile;
  readonly #tools: ResolvedTool[];
  readonly #byKey = new Map<string, ResolvedTool>();
  readonly #byName = new Map<string, ResolvedTool>();

  /**
   * Checks the declarations and resolves them for `profile`; with a
   * selection, only the selected tools are listed (references to the others
   * still resolve to their names).
   */
  constructor(
    definitions: readonly ToolDefinition[],
    profile: Profile,
    options: RegistryOptions = {},
  ) {
    this.profile = profile;
    validateDefinitions(definitions);
    const keys = new Map(definitions.map((d) => [d.key, d]));
    const resolve = (key: string) =>
      keys.get(key)?.names[profile] ?? CLIENT_TOOL_NAMES[key]?.[profile];
    const selected = selectTools(definitions, options.select, options.selectFrom);
    const listed = selected ? definitions.filter((d) => selected.has(d.key)) : definitions;
    this.#tools = listed.map((definition) => {
      const off = options.mutating ? undefined : definition.mutating;
      const template = definition.unconfigured && !options.assumeConfigured &&
          !definition.unconfigured.configured()
        ? definition.unconfigured.description
        : off
        ? off.description
        : typeof definition.description === "string"
        ? definition.description
        : definition.description[profile];
      const tool: ResolvedTool = {
        definition,
        name: definition.names[profile],
        description: unwrap(expandToolRefs(template, resolve).trimEnd()),
        inputSchema: off?.inputSchema ?? definition.inputSchema,
        annotations: off?.annotations ?? definition.annotations,
        refused: off?.actions ?? [],
      };
      this.#byKey.set(definition.key, tool);
      this.#byName.set(tool.name, tool);
      return tool;
    });
  }

  /** The tools in declaration order. */
  list(): readonly ResolvedTool[] {
    return this.#tools;
  }

  /** A tool by its name in this profile. */
  byName(name: string): ResolvedTool | undefined {
    return this.#byName.get(name);
  }

  /**
   * Whether the tool `key` is active: declared in this registry's tool set
   * (which a tool-list filter narrows by building the registry from fewer
   * definitions). The one answer every hint that names a tool is checked
   * against: a hint never points at a tool that is off.
   */
  isActive = (key: string): boolean => this.#byKey.has(key);

  /** The profile's name for a tool key (or a client tool key); undefined when it is off. */
  toolName = (key: string): string | undefined =>
    (this.isActive(key) ? this.#byKey.get(key)?.name : undefined) ??
      CLIENT_TOOL_NAMES[key]?.[this.profile];
}

/**
 * A description as listed: written hard-wrapped in the source, listed as
 * paragraphs and list items (a line break costs tokens and says nothing).
 * Blank lines and lines that start a `- ` item are kept.
 */
export function unwrap(text: string): string {
  const out: string[] = [];
  let inItem = false;
  for (const line of text.split("\n")) {
    const item = /^\s*- /.test(line);
    const last = out.length - 1;
    // A line continues the previous one unless either is blank or it starts an
    // item; inside an item only an indented line continues it.
    const joins = last >= 0 && out[last].trim() !== "" && line.trim() !== "" && !item &&
      (!inItem || /^\s/.test(line));
    if (joins) out[last] = `${out[last].trimEnd()} ${line.trim()}`;
    else {
      out.push(line.trimEnd());
      inItem = item;
    }
    if (line.trim() === "") inItem = false;
  }
  return out.join("\n");
}

/** Checks declarations for every profile; throws on the first problem. */
export function validateDefinitions(definitions: readonly ToolDefinition[]): void {
  const keys = new Set<string>();
  for (const d of definitions) {
    for (const input of [d.inputSchema, d.mutating?.inputSchema]) {
      if (input === undefined) continue;
      const schema = input as { "~standard"?: { vendor?: string }; shape?: unknown };
      if (schema?.["~standard"]?.vendor !== "zod" || typeof schema.shape !== "object") {
        throw new Error(`tool '${d.key}': inputSchema must be a zod object schema (z.object)`);
      }
    }
    if (!/^[a-z][a-z0-9_]*$/.test(d.key)) {
      throw new Error(`tool key '${d.key}' must be lower snake case`);
    }
    if (keys.has(d.key)) throw new Error(`duplicate tool key '${d.key}'`);
    keys.add(d.key);
  }
  for (const profile of PROFILES) {
    const names = new Set<string>();
    const resolve = (key: string) =>
      definitions.find((d) => d.key === key)?.names[profile] ??
        CLIENT_TOOL_NAMES[key]?.[profile];
    for (const d of definitions) {
      const name = d.names[profile];
      if (!NAME_PATTERN[profile].test(name)) {
        throw new Error(
          `tool '${d.key}': name '${name}' does not fit the ${profile} profile`,
        );
      }
      if (names.has(name)) throw new Error(`duplicate tool name '${name}'`);
      names.add(name);
      const template = typeof d.description === "string" ? d.description : d.description[profile];
      if (!template?.trim()) {
        throw new Error(`tool '${d.key}' has no ${profile} description`);
      }
      try {
        expandToolRefs(template, resolve);
        if (d.unconfigured) expandToolRefs(d.unconfigured.description, resolve);
        if (d.mutating) expandToolRefs(d.mutating.description, resolve);
      } catch (error) {
        throw new Error(`tool '${d.key}' (${profile}): ${(error as Error).message}`);
      }
    }
  }
}

/** Settings a {@link ToolContext} is built from. */
export interface ContextSettings {
  /** Registry of the active profile. */
  registry: ToolRegistry;
  /** Default output format. */
  defaultOutput: OutputFormat;
  /** Tip ledger (the process ledger unless a test passes its own). */
  tips?: TipLedger;
  /** Cancellation signal of the call. */
  signal: AbortSignal;
  /** Progress sender, when the client sent a progress token. */
  progress?: (progress: number, total?: number, message?: string) => Promise<void>;
}

/** Builds the context handed to a tool handler. */
export function toolContext(settings: ContextSettings): ToolContext {
  const render: ResponseContext = {
    toolName: settings.registry.toolName,
    tips: settings.tips,
  };
  return {
    profile: settings.registry.profile,
    defaultOutput: settings.defaultOutput,
    signal: settings.signal,
    toolName: settings.registry.toolName,
    progress: settings.progress ?? (() => Promise.resolve()),
    respond: (spec) => {
      // Credential files this call was refused (lib/config.ts): said in the answer too.
      for (const r of refusedCredentials()) {
        spec.frontmatter.append("warning", refusedCredentialWarning(r));
      }
      return buildResponse(spec, render);
    },
  };
}
