/**
 * The real CLI with the test tools in place of the built-in ones (the
 * foundation ships no tools). Accepts every flag main.ts accepts.
 */
import { main } from "../../main.ts";
import { TEST_TOOLS } from "./tools.ts";

Deno.exit(await main(Deno.args, { tools: TEST_TOOLS }));
