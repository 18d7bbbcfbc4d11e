/**
 * Parkour: read the web with precision. A page is fetched once (through a
 * guarded network layer, or a site's own API), turned into Markdown with a
 * section tree, and read in small, exact views: its outline, one section,
 * the slices that match a keyword query, the sections that answer a
 * question within a token budget.
 *
 * ```ts
 * import { fetchPage } from "jsr:@parkour/mcp";
 * const page = await fetchPage("https://peps.python.org/pep-0008/");
 * console.log(page.answer("how long should lines be?").text);
 * ```
 *
 * This entry is the library: it loads no command line, installer or
 * server. Beside it, `jsr:@parkour/mcp/server` serves MCP (on stdio or
 * HTTP) with the built-in tools or tools of your own, defined with
 * {@link defineTool} and answered with the envelope exported here
 * ({@link Frontmatter}, {@link trusted}, {@link fence}; await
 * {@link envelopeReady} before rendering frontmatter yourself), and
 * `jsr:@parkour/mcp/cli` is the program (run as a program, this entry is it
 * too: `deno run -A jsr:@parkour/mcp`):
 *
 * ```sh
 * deno run --no-prompt --allow-env --allow-net \
 *   --deny-net=0.0.0.0/8,10.0.0.0/8,100.64.0.0/10,127.0.0.0/8,169.254.0.0/16,172.16.0.0/12,192.168.0.0/16,[::1] \
 *   jsr:@parkour/mcp/cli
 * ```
 *
 * @module
 */
export { VERSION } from "./lib/version.ts";
export { OUTPUT_FORMATS, type OutputFormat, type Profile, PROFILES } from "./lib/config.ts";
export {
  type ArgsOf,
  type ArgsSchema,
  defineTool,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
} from "./lib/tools/registry.ts";
export {
  APPEND_KEYS,
  type AppendKey,
  envelopeReady,
  Frontmatter,
  type FrontmatterScalar,
  type FrontmatterValue,
  parseFrontmatter,
  type RenderContext,
  TRUST_ADVISORY,
} from "./lib/envelope/frontmatter.ts";
export {
  isTrusted,
  Trusted,
  trusted,
  type TrustedConstructors,
  type TrustedPart,
  UntrustedValueError,
} from "./lib/trust.ts";
export {
  fence,
  type FenceOptions,
  newFenceId,
  type ParsedFence,
  parseFences,
  sanitizeLabel,
} from "./lib/envelope/fence.ts";
export {
  buildResponse,
  errorResult,
  type FencedPart,
  type RemoteError,
  RESPONSE_TOKEN_CAP,
  type ResponseContext,
  type ResponseSpec,
  type ToolResult,
} from "./lib/envelope/response.ts";
export {
  FormatError,
  type RecordValue,
  type Rendered,
  type RenderOptions,
  renderRecords,
} from "./lib/envelope/formats.ts";
export { registerTip, TipLedger } from "./lib/envelope/tips.ts";
export { estimateTokens } from "./lib/content/tokens/count.ts";
export {
  fetchPage,
  type FetchPageOptions,
  type Page,
  type PageAnswer,
  type PageHit,
  type PageSection,
  type PageView,
  type PageViewRequest,
} from "./lib/page.ts";
export { type Face, FACES, RequestError } from "./lib/views/errors.ts";
export {
  ContentError,
  type ContentErrorKind,
  type ContentErrorOptions,
  SourceError,
  type SourceErrorKind,
  type SourceRemote,
  ToolError,
} from "./lib/errors.ts";

// Run as a program (`deno run -A jsr:@parkour/mcp`, as an MCP client's config may say), the
// library entry is the program: the CLI is imported then, and only then (an import of the library
// loads none of it; tests/architecture_test.ts follows the static imports).
if (import.meta.main) {
  import("./main.ts").then(({ main }) => main(Deno.args)).then(
    (code) => Deno.exit(code),
    (error) => {
      console.error(error instanceof Error ? error.message : String(error));
      Deno.exit(1);
    },
  );
}
