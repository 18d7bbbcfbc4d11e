/**
 * Start-up does only what the request needs (docs/architecture.md,
 * "Start-up"). Not timed (the figures are bench/cold_start_bench.ts's):
 *
 * - `--version` and usage errors run without any npm package (`--no-npm`
 *   makes every npm import fail), so they load none of the tool graph;
 * - what `serve` loads before its first answer does not reach the tools:
 *   the static graph (`deno info --json`) of those modules, and deno.json
 *   loading dynamic imports only when they run;
 * - a server whose tools arrive after its first answer serves them the
 *   same: requests sent before any answer are each answered once, in both
 *   eras, with the whole tool list, and no list-changed notification.
 */
import assert from "node:assert/strict";
import meta from "../deno.json" with { type: "json" };
import {
  initializeParams,
  launch,
  MAIN,
  RawServer,
  ROOT_DIR,
  runCli,
  SHIPPED_TOOLS,
} from "./support/process.ts";

Deno.test("startup: --version and usage errors load no npm package", async () => {
  const noNpm = ["--no-npm"];
  const version = await runCli(["--version"], {}, MAIN, noNpm);
  assert.equal(version.code, 0, version.stderr);
  assert.match(version.stdout, /^parkour-mcp \d+\.\d+\.\d+/);
  const command = await runCli(["bogus"], {}, MAIN, noNpm);
  assert.equal(command.code, 2, command.stderr);
  assert.match(command.stderr, /^parkour: unknown command 'bogus'; valid commands: serve, fetch/);
  const port = await runCli(["serve", "--http", "--port", "99999"], {}, MAIN, noNpm);
  assert.equal(port.code, 2, port.stderr);
  assert.match(port.stderr, /^parkour: invalid --port '99999'; valid values: 0-65535/);
});

interface Info {
  roots: string[];
  redirects: Record<string, string>;
  modules: {
    specifier: string;
    dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
  }[];
}

/** Modules the roots load before running (static imports only), as repository paths or npm ids. */
async function staticGraph(roots: string[]): Promise<string[]> {
  const all = new Set<string>();
  for (const root of roots) for (const m of await staticGraphOf(root)) all.add(m);
  return [...all];
}

async function staticGraphOf(root: string): Promise<string[]> {
  const roots = [root];
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", root],
    cwd: ROOT_DIR,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info: Info = JSON.parse(new TextDecoder().decode(out.stdout));
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const queue = roots.map((r) => new URL(r, `file://${ROOT_DIR}/`).href);
  while (queue.length) {
    const next = queue.pop()!;
    const specifier = info.redirects[next] ?? next;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of modules.get(specifier)?.dependencies ?? []) {
      if (dep.code && !dep.isDynamic) queue.push(dep.code.specifier);
    }
  }
  return [...seen].map((s) =>
    s.startsWith(`file://${ROOT_DIR}/`) ? s.slice(ROOT_DIR.length + 8) : s
  );
}

Deno.test("startup: what serves the first answer does not load the tools", async () => {
  // main.ts, the command table, and the stdio server before its tools: the modules in front
  // of the first answer (the rest is imported by `import()`, which deno.json makes lazy).
  assert.ok(
    (meta.unstable as string[]).includes("lazy-dynamic-imports"),
    "deno.json loads dynamic imports when they run",
  );
  const version = await staticGraph(["main.ts"]);
  assert.deepEqual(version.sort(), ["deno.json", "lib/cli/usage.ts", "lib/version.ts", "main.ts"]);
  const serving = await staticGraph([
    "main.ts",
    "lib/cli/run.ts",
    "lib/server/core.ts",
    "lib/server/stdio.ts",
  ]);
  const local = serving.filter((s) => s.startsWith("lib/"));
  for (
    const heavy of ["lib/tools/", "lib/content/", "lib/envelope/", "lib/views/", "lib/sources/"]
  ) {
    assert.deepEqual(local.filter((s) => s.startsWith(heavy)), [], `${heavy} is loaded on demand`);
  }
  assert.ok(serving.some((s) => s.includes("@modelcontextprotocol/server")), "the SDK is in it");
  // --help and the page commands' usage errors need their flags: the request model, not the tools.
  const help = (await staticGraph(["lib/cli/run.ts", "lib/cli/page_flags.ts"]))
    .filter((s) => /^lib\/(tools|sources|server|envelope)\//.test(s));
  assert.deepEqual(help, [], "the page flags come without the tools");
  // And the tools are a dynamic import away: the catalog is in the graph, behind import().
  const everything = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "lib/cli/run.ts"],
    cwd: ROOT_DIR,
    stdout: "piped",
  }).output();
  assert.match(new TextDecoder().decode(everything.stdout), /lib\/tools\/catalog\.ts/);
});

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "startup-test", version: "1" },
};

Deno.test("startup: requests sent before the first answer wait for the tools, once each", async () => {
  const server = new RawServer();
  try {
    // Everything in one write, before the server has answered anything (or loaded its tools).
    const lines = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: initializeParams("2025-11-25") },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { jsonrpc: "2.0", id: 3, method: "ping" },
      { jsonrpc: "2.0", id: 4, method: "resources/list" },
      { jsonrpc: "2.0", id: 5, method: "tools/list", params: { _meta: MODERN_META } },
      { jsonrpc: "2.0", id: 6, method: "server/discover", params: { _meta: MODERN_META } },
    ];
    await server.write(lines.map((l) => JSON.stringify(l) + "\n").join(""));
    const answers = new Map<number, Record<string, unknown>>();
    for (const id of [1, 2, 3, 4, 5, 6]) {
      const answer = await server.waitFor((m) => m.id === id, 30_000);
      assert.ok("result" in answer, `request ${id}: ${JSON.stringify(answer)}`);
      answers.set(id, answer.result as Record<string, unknown>);
    }
    const names = (id: number) => (answers.get(id)!.tools as { name: string }[]).map((t) => t.name);
    assert.deepEqual(names(2), SHIPPED_TOOLS);
    assert.deepEqual(names(5), SHIPPED_TOOLS);
    // The same declarations in both eras (the modern answer adds its envelope fields only).
    assert.deepEqual(answers.get(5)!.tools, answers.get(2)!.tools);
    const resources = (answers.get(4)!.resources as { uri: string }[]).map((r) => r.uri);
    assert.ok(resources.includes("parkour://help/search"), resources.join(", "));
    const init = answers.get(1)!;
    assert.equal((init.serverInfo as { name: string }).name, "parkour-mcp");
    assert.deepEqual(init.capabilities, answers.get(6)!.capabilities);
  } finally {
    const { lines, code } = await server.close();
    assert.equal(code, 0);
    const messages = lines.map((l) => JSON.parse(l));
    // One answer per request; the lists never change, so nothing announces a change.
    const ids = messages.filter((m) => "id" in m).map((m) => m.id).sort();
    assert.deepEqual(ids, [1, 2, 3, 4, 5, 6]);
    const notices = messages.filter((m) => typeof m.method === "string").map((m) => m.method);
    assert.deepEqual(notices.filter((m: string) => m.endsWith("list_changed")), []);
  }
});

Deno.test("startup: a bad --tools still fails before serving, with exit code 2", async () => {
  const { command, args } = launch(MAIN, ["serve", "--tools", "webb"]);
  const out = await new Deno.Command(command, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 2);
  assert.equal(new TextDecoder().decode(out.stdout), "");
  assert.match(
    new TextDecoder().decode(out.stderr),
    /^parkour: --tools: unknown tool or group 'webb'/,
  );
});
