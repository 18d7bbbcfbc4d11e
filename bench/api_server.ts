/**
 * A server process of this project (`main.ts serve --http`) for the
 * benchmarks that measure it from outside (its RSS, its answers): spawned
 * with a clean environment, waited for until it names its HTTP API, its
 * log drained after that.
 *
 * @module
 */

/** A started server: its HTTP API's address, its pid and the process. */
export interface ApiServer {
  api: string;
  pid: number;
  child: Deno.ChildProcess;
}

/**
 * Spawns `command args` (a launch line of `main.ts serve --http`) with
 * exactly `env`, and resolves once its log names the HTTP API.
 */
export async function startApiServer(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<ApiServer> {
  const child = new Deno.Command(command, {
    args,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the server did not start: ${text}`);
    text += value;
    const api = /HTTP API at (http:\/\/\S+\/api)/.exec(text)?.[1];
    if (api) {
      (async () => {
        while (!(await reader.read()).done) { /* drain */ }
      })().catch(() => {});
      return { api, pid: child.pid, child };
    }
  }
}
