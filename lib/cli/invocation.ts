/**
 * How the person runs this command line, for the commands hints and errors
 * show.
 *
 * @module
 */
import { env } from "../config.ts";
import { currentInstallation } from "../install/launch.ts";
import { shellQuote } from "../shell.ts";

/** How the person runs this command line, for the commands hints show. */
export function cliCommand(): string {
  const named = env("PARKOUR_CLI");
  if (named) return named;
  const installation = currentInstallation();
  if (installation.kind === "binary") {
    return installation.path.split(/[\\/]/).pop() || "parkour";
  }
  const script = installation.script;
  const deno = installation.npx ? `npx -y ${installation.npx}` : "deno";
  if (script.startsWith("jsr:")) return `${deno} run -A ${script}`;
  const dir = script.replace(/[\\/][^\\/]*$/, "");
  // Under `deno task`, INIT_CWD is where the person typed the command.
  const here = invokedFrom();
  return here === dir || here.startsWith(`${dir}/`)
    ? `${deno} task`
    : `${deno} task --config ${shellQuote(`${dir}/deno.json`)}`;
}

/** The folder the person ran the command in (`deno task` runs tasks in deno.json's folder). */
export function invokedFrom(): string {
  const init = env("INIT_CWD");
  if (init?.startsWith("/") || (init && /^[A-Za-z]:[\\/]/.test(init))) return init;
  try {
    return Deno.cwd();
  } catch {
    return "";
  }
}
