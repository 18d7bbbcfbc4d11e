/**
 * The `parkour` command line.
 *
 * ```sh
 * parkour                      # MCP on stdio (same as `parkour serve`)
 * parkour serve --http --port 8765
 * parkour --version
 * ```
 *
 * A thin dispatcher: `--version` needs nothing but the version, and every
 * other command line goes to `lib/cli/run.ts`, imported on demand, which
 * imports each command's own code when that command runs. So printing the
 * version, the help or a usage error never loads the tools, and the server
 * answers its first request before it loads them (docs/architecture.md,
 * "Start-up").
 *
 * @module
 */
import { SERVER_NAME, VERSION } from "./lib/version.ts";
import type { MainOptions } from "./lib/cli/spec.ts";

export { USAGE_EXIT, UsageError } from "./lib/cli/usage.ts";
export type { MainOptions } from "./lib/cli/spec.ts";
export type { Flags } from "./lib/flags.ts";

/** Runs the CLI with `args`; resolves to the exit code. */
export async function main(args: string[], options: MainOptions = {}): Promise<number> {
  if (args.includes("--version") || args.includes("-V")) {
    console.log(`${SERVER_NAME} ${VERSION}`);
    return 0;
  }
  const { runCli } = await import("./lib/cli/run.ts");
  return await runCli(args, options);
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
