/**
 * Launching the server with the rendering permissions of the `start:render`
 * task (so a test fails if the documented task lacks one), with its own
 * TMPDIR, and telling whether a browser is installed at all.
 */
import meta from "../../deno.json" with { type: "json" };
import { SYSTEM_CHROMIUM } from "../../lib/render/browser.ts";
import { childEnv, MAIN, openLoopback } from "./process.ts";

/** The system Chromium, or undefined when none is installed. */
export function installedChromium(): string | undefined {
  return SYSTEM_CHROMIUM.find((path) => {
    try {
      return Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  });
}

/** The line printed when the real-browser tests skip. */
export const NO_BROWSER =
  "SKIPPED: no Chromium at /usr/bin/chromium or /usr/lib/chromium/chromium (apt-get install -y chromium); the real-browser tests are ignored";

const TASK_TMP = "/tmp/parkour-render";

/**
 * Command, args and env launching the server as `deno task start:render`
 * does, with `tmp` as TMPDIR; loopback leaves `--deny-net` unless `shipped`
 * (the line exactly as shipped).
 */
export function renderLaunch(tmp: string, env: Record<string, string> = {}, shipped = false): {
  command: string;
  args: string[];
  env: Record<string, string>;
} {
  const task = meta.tasks["start:render"].command;
  const words = task.slice(task.indexOf("deno run")).split(/\s+/);
  if (words[0] !== "deno" || words[1] !== "run" || words.at(-1) !== "main.ts") {
    throw new Error("unexpected shape of the start:render task");
  }
  const home = Deno.env.get("HOME") ?? "/tmp";
  // Loopback leaves --deny-net: the tests serve their pages on 127.0.0.1.
  const own = words.slice(1, -1).map((w) => w.replaceAll(TASK_TMP, tmp).replaceAll("$HOME", home));
  const flags = shipped ? own : openLoopback(own);
  const taskEnv = Object.fromEntries(
    [...task.matchAll(/(?:^|\s)([A-Z_]+)=(\S+)/g)].map((
      m,
    ) => [m[1], m[2].replaceAll(TASK_TMP, tmp)]),
  );
  return {
    command: Deno.execPath(),
    args: [...flags, MAIN],
    env: childEnv({ ...taskEnv, ...env }),
  };
}
