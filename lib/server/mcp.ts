/**
 * The MCP server instance: tools from the registry on the SDK's `McpServer`.
 *
 * One factory serves both protocol eras and both transports. The SDK builds
 * an instance per 2026-07-28 request (and per stateless HTTP legacy request)
 * and one per legacy stdio connection; the registry is resolved once per
 * process, so an instance costs only the registration loop. The identity,
 * capabilities and cache hints are `lib/server/identity.ts`'s, so an instance
 * made there before the tools are loaded answers the first request the same
 * way, and {@link registerServed} completes it later.
 *
 * @module
 */
import type { McpServer, StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { type OutputFormat, withCredentialLedger } from "../config.ts";
import { log } from "../log.ts";
import { capText, errorResult, type ToolResult } from "../envelope/response.ts";
import { tokenizerReady } from "../content/tokens/count.ts";
import { answerFirst } from "../runtime/memory.ts";
import { ProgressReporter, withProgress } from "../runtime/progress.ts";
import type { TipLedger } from "../envelope/tips.ts";
import { envelopeReady } from "../envelope/frontmatter.ts";
import {
  mutatingOff,
  type ResolvedTool,
  toolContext,
  type ToolRegistry,
} from "../tools/registry.ts";
import { ToolError } from "../errors.ts";
import { leanAnnotations, listedSchema } from "../tools/schema.ts";
import { SHELF_EXPORT_RESOURCES, SHELF_RESOURCE, shelfResourceText } from "../shelf/resource.ts";
import { KAGI_RESOURCES } from "../tools/kagi_search.ts";
import { SEARCH_HELP_RESOURCE } from "../tools/web_fetch_incisive.ts";
import { bareMcpServer, LIST_TTL_MS } from "./identity.ts";
import { renderParams } from "../views/request.ts";
import { toolFailure } from "../tools/failure.ts";

export { INSTRUCTIONS, LIST_TTL_MS } from "./identity.ts";

/** What the factory needs. */
export interface McpServerSettings {
  /** Resolved tools of the active profile. */
  registry: ToolRegistry;
  /** Default output format for record-shaped results. */
  defaultOutput: OutputFormat;
  /** Tip ledger; the process ledger by default. */
  tips?: TipLedger;
}

/** Makes a fresh SDK server with every tool registered. */
export function createMcpServer(settings: McpServerSettings): McpServer {
  const server = bareMcpServer();
  registerServed(server, settings);
  return server;
}

/**
 * Registers the tools and resources on an instance from
 * `lib/server/identity.ts`, connected or not. The lists never change after
 * start-up (`listChanged: false`), so registering on a connected instance
 * announces nothing: the SDK's list-changed notifications are silenced for
 * the registration.
 */
export function registerServed(server: McpServer, settings: McpServerSettings): void {
  const quiet = server as unknown as Record<string, () => void>;
  quiet.sendToolListChanged = quiet.sendResourceListChanged = () => {};
  try {
    registerAll(server, settings);
  } finally {
    // Own properties shadowed the SDK's methods; deleting them restores those.
    delete quiet.sendToolListChanged;
    delete quiet.sendResourceListChanged;
  }
}

function registerAll(server: McpServer, settings: McpServerSettings): void {
  rewordValidationErrors(server);
  for (const tool of settings.registry.list()) {
    const { definition } = tool;
    server.registerTool(
      tool.name,
      {
        title: definition.title,
        description: tool.description,
        // A zod object schema (checked when the registry is built), listed lean.
        inputSchema: listedSchema(tool.inputSchema) as unknown as StandardSchemaWithJSON<
          Record<string, unknown>
        >,
        // The title is the tool's own field; annotations carry only the hints that apply.
        annotations: leanAnnotations(tool.annotations),
      },
      async (args, ctx) => {
        const token = ctx.mcpReq._meta?.progressToken;
        const reporter = token === undefined ? undefined : new ProgressReporter(
          (progress, total, message) => {
            if (ctx.mcpReq.signal.aborted) return;
            return ctx.mcpReq.notify({
              method: "notifications/progress",
              params: {
                progressToken: token,
                progress,
                ...(total !== undefined && { total }),
                ...(message !== undefined && { message }),
              },
            }).catch(() => {});
          },
        );
        const progress = reporter &&
          ((done: number, total?: number, message?: string) => {
            reporter.report("tool", done, total, message);
            return reporter.sent();
          });
        // Downloads, conversions and renders report through the reporter of the call they run in.
        const result = await withProgress(
          reporter,
          () => runTool(tool, args, settings, ctx.mcpReq.signal, progress),
        );
        // Every notification goes out before the answer that ends the call.
        await reporter?.sent();
        // Spread: the SDK's result type has an index signature an interface does not.
        return { ...result };
      },
    );
  }
  // The research shelf, read-only; it changes with every tracked work, so no caching.
  server.registerResource(
    SHELF_RESOURCE.name,
    SHELF_RESOURCE.uri,
    {
      title: SHELF_RESOURCE.title,
      description: SHELF_RESOURCE.description,
      mimeType: SHELF_RESOURCE.mimeType,
      cacheHint: { ttlMs: 0, cacheScope: "private" },
    },
    async (uri) => ({
      contents: [{
        uri: uri.href,
        mimeType: SHELF_RESOURCE.mimeType,
        text: await shelfResourceText(),
      }],
    }),
  );
  // The shelf as files (BibTeX, RIS of the citable entries; JSON of all, for import): the text is
  // the file, not cut by the response cap; no caching either.
  for (const resource of SHELF_EXPORT_RESOURCES) {
    server.registerResource(
      resource.name,
      resource.uri,
      {
        title: resource.title,
        description: resource.description,
        mimeType: resource.mimeType,
        cacheHint: { ttlMs: 0, cacheScope: "private" },
      },
      async (uri) => ({
        contents: [{ uri: uri.href, mimeType: resource.mimeType, text: await resource.text() }],
      }),
    );
  }
  // The search language the page tools' descriptions point to.
  server.registerResource(
    SEARCH_HELP_RESOURCE.name,
    SEARCH_HELP_RESOURCE.uri,
    {
      title: SEARCH_HELP_RESOURCE.title,
      description: SEARCH_HELP_RESOURCE.description,
      mimeType: SEARCH_HELP_RESOURCE.mimeType,
      annotations: { audience: ["assistant"] },
      cacheHint: { ttlMs: LIST_TTL_MS, cacheScope: "private" },
    },
    (uri) => ({
      contents: [{
        uri: uri.href,
        mimeType: SEARCH_HELP_RESOURCE.mimeType,
        text: SEARCH_HELP_RESOURCE.text,
      }],
    }),
  );
  // Kagi's regions and lenses: fixed for the life of the process.
  for (const resource of KAGI_RESOURCES) {
    server.registerResource(
      resource.name,
      resource.uri,
      {
        title: resource.title,
        description: resource.description,
        mimeType: resource.mimeType,
        annotations: { audience: ["assistant"] },
        cacheHint: { ttlMs: LIST_TTL_MS, cacheScope: "private" },
      },
      async (uri) => ({
        contents: [{ uri: uri.href, mimeType: resource.mimeType, text: await resource.text() }],
      }),
    );
  }
}

/**
 * The SDK answers arguments that fail the schema with its own wording before
 * our handler runs. Reword it to the product's error convention: `Error:`,
 * what was wrong, what to do. (`createToolError` is the SDK's hook for these
 * results; a test pins the behaviour.)
 */
function rewordValidationErrors(server: McpServer): void {
  const target = server as unknown as { createToolError?: (message: string) => unknown };
  if (typeof target.createToolError !== "function") return;
  target.createToolError = (message: string) => {
    const m = /^Input validation error: Invalid arguments for tool (\S+): ([\s\S]*)$/.exec(message);
    if (m) {
      // Our schemas name parameters with markers; the SDK prefixes each issue with its path.
      const issues = m[2].replace(/(^|, )[A-Za-z0-9_.]+: (?=\ue000)/g, "$1");
      return errorResult(
        `invalid arguments for ${m[1]}: ${renderParams(issues, "mcp")}. Fix them to match ` +
          "the tool's input schema (see tools/list) and call again.",
      );
    }
    return errorResult(renderParams(message, "mcp"));
  };
}

/**
 * Runs a resolved tool on checked arguments: its answer, or the error result
 * for what it threw, each text capped at the response limit. The MCP
 * registration and the library's `callTool` both go through here.
 */
export function runTool(
  tool: ResolvedTool,
  args: unknown,
  settings: Pick<McpServerSettings, "registry" | "defaultOutput" | "tips">,
  signal: AbortSignal,
  progress?: (progress: number, total?: number, message?: string) => Promise<void>,
): Promise<ToolResult> {
  // A collection the call's load asks for waits until the call has answered.
  return answerFirst(async () => {
    // The response cap counts real tokens: the tables load on the first tool call.
    await Promise.all([envelopeReady(), tokenizerReady()]);
    let result: ToolResult;
    try {
      const action = (args as { action?: unknown } | undefined)?.action;
      if (typeof action === "string" && tool.refused.includes(action)) {
        throw new ToolError(mutatingOff(tool.name, action));
      }
      result = await withCredentialLedger(() =>
        tool.definition.handler(
          args as never,
          toolContext({
            registry: settings.registry,
            defaultOutput: settings.defaultOutput,
            tips: settings.tips,
            signal,
            progress,
          }),
        )
      );
    } catch (error) {
      // A call whose client cancelled it or went away: whatever it threw, that is the story.
      result = signal.aborted ? cancelled(tool.name, signal.reason) : toolFailure(tool.name, error);
    }
    return { ...result, content: result.content.map((c) => ({ ...c, text: capText(c.text) })) };
  });
}

/** The result of a call stopped by its signal, logged as one line (a dropped client is no fault). */
function cancelled(name: string, reason: unknown): ToolResult {
  const why = reason instanceof Error ? reason.message : String(reason ?? "cancelled");
  log("debug", `tool ${name} stopped: ${why.split("\n")[0]}`);
  return errorResult(`${name} was cancelled before it finished.`);
}
