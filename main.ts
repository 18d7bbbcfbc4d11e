/**
 * The `parkour` command line.
 *
 * ```sh
 * parkour                      # MCP on stdio (same as `parkour serve`)
 * parkour serve --http --port 8765
 * parkour --version
 * ```
 *
 * Start-up does only what the command needs: `--version` is answered from
 * this module alone; every other command loads the CLI (lib/cli.ts), whose
 * subcommands are entries of one table that checks every flag and value
 * before anything starts.
 *
 * @module
 */
import { USAGE_EXIT } from "./lib/flags.ts";
import { SERVER_NAME, VERSION } from "./lib/version.ts";
import type { MainOptions } from "./lib/cli.ts";

export type { Flags } from "./lib/flags.ts";
export type { MainOptions };
export { USAGE_EXIT };

/** Runs the CLI with `args`; resolves to the exit code. */
export async function main(args: string[], options: MainOptions = {}): Promise<number> {
  if (args.includes("--version") || args.includes("-V")) {
    console.log(`${SERVER_NAME} ${VERSION}`);
    return 0;
  }
  const cli = await import("./lib/cli.ts");
  return await cli.main(args, options);
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
