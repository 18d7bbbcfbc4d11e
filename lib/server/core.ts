/**
 * The MCP side of a server, with its tools loaded when they are first
 * needed rather than before the first answer.
 *
 * The first request of a session (`initialize` in the 2025 era,
 * `server/discover` in 2026-07-28) is answered from the server's identity
 * and capabilities alone (`lib/server/identity.ts`): neither depends on the
 * tools. The tool code (the catalog and everything its handlers use) is a
 * large module graph, so it is imported after that answer, in the
 * background (the transport calls {@link McpCore.prefetch}); a request that
 * needs the tools before it is in simply waits for it. An app made with the
 * tools already in hand (the library's `createServer`) registers them on
 * every instance at once, as before.
 *
 * @module
 */
import {
  createMcpHandler,
  type McpHttpHandler,
  type McpRequestContext,
  type McpServer,
} from "@modelcontextprotocol/server";
import type { Config, OutputFormat, Profile } from "../config.ts";
import type { TipLedger } from "../envelope/tips.ts";
import { log } from "../log.ts";
import type { ToolDefinition, ToolRegistry } from "../tools/registry.ts";
import { bareMcpServer } from "./identity.ts";
import { MAX_MESSAGE_BYTES } from "./stdio.ts";

/** The loaded tools and the step that puts them on an instance. */
export interface Served {
  /** The tools of the active profile. */
  registry: ToolRegistry;
  /** Registers the tools and resources on an instance (connected or not). */
  register(server: McpServer): void;
}

/** The MCP handler and instances of a server. */
export interface McpCore {
  /** The per-request MCP handler (both eras). */
  handler: McpHttpHandler;
  /** A 2025-era instance for one stdio connection; {@link McpCore.complete} adds the tools. */
  legacy(): McpServer;
  /** Registers the tools on an instance {@link McpCore.legacy} made (waits for them to load). */
  complete(server: McpServer): Promise<void>;
  /** The tools, loading them on the first call (rejects with what failed). */
  served(): Promise<Served>;
  /** Starts loading the tools in the background. */
  prefetch(): void;
}

/**
 * 2026-07-28 requests whose answer needs no tool: the server's identity and
 * capabilities, a ping, the notification stream.
 */
const WITHOUT_TOOLS: ReadonlySet<string> = new Set([
  "server/discover",
  "ping",
  "subscriptions/listen",
]);

/**
 * Options of {@link createMcpCore}: how to load the tools (called once, at
 * the prefetch or the first request that needs them), or the tools loaded.
 */
export type CoreOptions = { load: () => Promise<Served>; loaded?: undefined } | {
  loaded: Served;
};

/** Builds the handler and instance factory over tools loaded on demand. */
export function createMcpCore(options: CoreOptions): McpCore {
  let loading: Promise<Served> | undefined;
  const served = () =>
    loading ??= options.loaded ? Promise.resolve(options.loaded) : options.load();
  // A failure to load is a broken installation: said once, and every instance serves what it has.
  let reported = false;
  const usable = () =>
    served().catch((error) => {
      if (!reported) log("error", "loading the tools failed", error);
      reported = true;
      return undefined;
    });
  const completed = new WeakMap<McpServer, Promise<void>>();
  const factory = async (context?: McpRequestContext): Promise<McpServer> => {
    const server = bareMcpServer();
    if (options.loaded) options.loaded.register(server);
    else {
      const method = context?.era === "modern"
        ? context.requestInfo?.headers.get("mcp-method")
        : undefined;
      if (!method || !WITHOUT_TOOLS.has(method)) (await usable())?.register(server);
    }
    return server;
  };
  const handler = createMcpHandler(factory, {
    legacy: "stateless",
    maxRequestBodySize: MAX_MESSAGE_BYTES,
    onerror: (error) => log("debug", "mcp handler", error.message),
  });
  return {
    handler,
    legacy: () => {
      const server = bareMcpServer();
      if (options.loaded) {
        options.loaded.register(server);
        completed.set(server, Promise.resolve());
      }
      return server;
    },
    complete: (server) => {
      let done = completed.get(server);
      if (!done) {
        done = usable().then((tools) => tools?.register(server));
        completed.set(server, done);
      }
      return done;
    },
    served,
    prefetch: () => void usable(),
  };
}

/** What {@link loadServed} builds the tools from. */
export interface ServedSettings {
  /** The tool definitions (the catalog, imported on demand). */
  definitions: () => Promise<readonly ToolDefinition[]>;
  /** Tool-name profile. */
  profile: Profile;
  /** Tool selection (`--tools`, `PARKOUR_TOOLS`). */
  select?: string;
  /** Where the selection came from, for its error. */
  selectFrom?: string;
  /** Whether the actions that change data are on (`--enable-mutating-tools`). */
  mutating?: boolean;
  /** Default output format for record-shaped results. */
  defaultOutput: OutputFormat;
  /** Tip ledger; the process ledger by default. */
  tips?: TipLedger;
  /** Runs before the registry is built (opens what the tools use, such as the shelf). */
  prepare?: () => Promise<void>;
}

/** The settings of {@link loadServed} that a configuration gives (profile, selection, output). */
export function configuredTools(
  config: Config,
  definitions: ServedSettings["definitions"],
  extra: Pick<ServedSettings, "tips" | "prepare"> = {},
): ServedSettings {
  return {
    definitions,
    profile: config.profile,
    select: config.tools,
    selectFrom: config.toolsFrom,
    mutating: config.mutatingTools,
    defaultOutput: config.defaultOutput,
    ...extra,
  };
}

/** Imports the tools and the code that serves them: a `load` for {@link createMcpCore}. */
export async function loadServed(settings: ServedSettings): Promise<Served> {
  const [{ ToolRegistry }, { registerServed }, definitions] = await Promise.all([
    import("../tools/registry.ts"),
    import("./mcp.ts"),
    settings.definitions(),
    settings.prepare?.(),
  ]);
  const registry = new ToolRegistry(definitions, settings.profile, {
    select: settings.select,
    selectFrom: settings.selectFrom,
    mutating: settings.mutating,
  });
  const mcp = { registry, defaultOutput: settings.defaultOutput, tips: settings.tips };
  return { registry, register: (server) => registerServed(server, mcp) };
}
