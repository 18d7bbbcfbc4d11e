/**
 * The MCP conformance suite (npm:@modelcontextprotocol/conformance, run
 * under Deno) against `main.ts serve --http`, for the scenarios that apply to
 * a server with our capabilities: tools only, so no resources, prompts,
 * logging, completion, sampling or elicitation scenarios.
 */
import assert from "node:assert/strict";
import dev from "../../deno.dev.json" with { type: "json" };
import { DEV_CONFIG, HttpServerProcess } from "../support/process.ts";

const SCENARIOS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];
// The suite's bin, at the version the development configuration pins (no node_modules folder).
const CLI = dev.imports["@modelcontextprotocol/conformance"];

Deno.test("conformance suite against serve --http", async (t) => {
  const server = await HttpServerProcess.start();
  // The DNS-rebinding scenario needs a localhost URL.
  const url = `http://localhost:${server.port}/mcp`;
  const work = await Deno.makeTempDir({ prefix: "parkour-conformance-" });
  try {
    for (const scenario of SCENARIOS) {
      await t.step(scenario, async () => {
        const out = await new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "--allow-all",
            "--no-prompt",
            "--config",
            DEV_CONFIG,
            CLI,
            "server",
            "--url",
            url,
            "--scenario",
            scenario,
          ],
          cwd: work,
          env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
          stdout: "piped",
          stderr: "piped",
        }).output();
        const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
        const m = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(text);
        assert.ok(m, `no summary from the suite:\n${text}`);
        assert.equal(m[3], "0", text);
        assert.equal(m[1], m[2], text);
        assert.equal(out.code, 0, text);
      });
    }
  } finally {
    await server.stop();
    await Deno.remove(work, { recursive: true }).catch(() => {});
  }
});
