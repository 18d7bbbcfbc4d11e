/**
 * The one mapping from a thrown error to a failed tool call: an `isError`
 * result whose text says what happened and what to try next, for the MCP
 * tools (every call goes through `runTool` in `lib/server/mcp.ts`) and the
 * CLI's page commands. Handlers throw the error vocabulary
 * (`lib/errors.ts`) and never catch it to re-wrap it.
 *
 * @module
 */
import { ConfigError } from "../config.ts";
import { ContentError, SourceError } from "../errors.ts";
import { errorResult, type ToolResult } from "../envelope/response.ts";
import { FormatError } from "../envelope/formats.ts";
import type { HintContext } from "../hint.ts";
import { log } from "../log.ts";
import { NetError } from "../net/errors.ts";
import { PageTooLarge } from "../views/limit.ts";
import { RequestError } from "../views/request.ts";

/** MCP's words for hints in a failure that names no sibling tool. */
const MCP_HINTS: HintContext = { face: "mcp", current: "page", toolName: (target) => target };

/**
 * The error result for an exception thrown by tool (or command) `name`;
 * `hints` spell parameters and calls in the face's words (MCP by default).
 */
export function toolFailure(
  name: string,
  error: unknown,
  hints: HintContext = MCP_HINTS,
): ToolResult {
  if (error instanceof RequestError) return errorResult(error.forFace(hints.face));
  if (error instanceof ContentError || error instanceof SourceError) {
    return errorResult(error.message, error.remote);
  }
  if (error instanceof NetError) return errorResult(error.message, error.remote);
  // Over the call's page limit: what to ask for, or which setting raises it.
  if (error instanceof PageTooLarge) return errorResult(error.render(hints));
  if (error instanceof FormatError || error instanceof ConfigError) {
    return errorResult(error.message);
  }
  if (error instanceof DOMException && error.name === "AbortError") {
    return errorResult(`${name} was cancelled before it finished.`);
  }
  log("error", `tool ${name} failed`, error);
  const message = error instanceof Error ? error.message : String(error);
  return errorResult(
    `${name} failed unexpectedly (${message}). Retry once; if it fails ` +
      "again, report it with the arguments you used.",
  );
}
