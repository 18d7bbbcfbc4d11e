/**
 * The package's name and version, read from deno.json so there is one
 * source of truth for `--version`, `serverInfo` and the User-Agent.
 *
 * @module
 */
import meta from "../deno.json" with { type: "json" };

/** Package version, e.g. `0.1.0`. */
export const VERSION: string = meta.version;

/** Name the server reports in `serverInfo` and its User-Agent. */
export const SERVER_NAME = "parkour-mcp";

/** Where users find the project (sent in the User-Agent). */
export const PROJECT_URL = "https://github.com/parkour-deno/parkour";
