/**
 * What `tools/list` costs an agent, and what it still tells it: the real
 * server over stdio, driven by the SDK client in both protocol eras, with
 * the shipped tools. The budget is 4,500 tokens counted as characters / 4 of
 * the listed tools' JSON; the listing must be free of zod artefacts, name
 * Kagi in one line without a key, and follow `--tools` / `PARKOUR_TOOLS`.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import meta from "../../deno.json" with { type: "json" };
import { TOOL_GROUPS } from "../../lib/tools/registry.ts";
import { connectServer, startServer } from "../support/mcp_client.ts";
import { childEnv, MAIN, runCli } from "../support/process.ts";

const BUDGET_TOKENS = 4_500;
const KAGI_KEY = "kagi-test-key-7f3a9c";

type Tool = Awaited<ReturnType<Client["listTools"]>>["tools"][number];

async function listed(
  options: { unpinned?: boolean; args?: string[]; env?: Record<string, string> } = {},
): Promise<Tool[]> {
  const { client } = await startServer({ ...options, replay: false, name: "tool-list-test" });
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

const tokens = (tools: Tool[]): number => JSON.stringify(tools).length / 4;

for (const era of ["2026-07-28", "legacy"] as const) {
  const unpinned = era === "legacy";

  Deno.test(`tools/list (${era}): within ${BUDGET_TOKENS} tokens, with and without a Kagi key, in both profiles`, async () => {
    const plain = await listed({ unpinned });
    const keyed = await listed({ unpinned, env: { KAGI_API_KEY: KAGI_KEY } });
    const code = await listed({ unpinned, args: ["--profile", "code"] });
    assert.ok(plain.length >= 13, `all tools listed (${plain.length})`);
    assert.ok(tokens(plain) <= BUDGET_TOKENS, `default list: ${tokens(plain)} tokens`);
    assert.ok(tokens(keyed) <= BUDGET_TOKENS, `with a Kagi key: ${tokens(keyed)} tokens`);
    assert.ok(tokens(code) <= BUDGET_TOKENS, `code profile: ${tokens(code)} tokens`);
  });

  Deno.test(`tools/list (${era}): no zod artefacts, no repeated titles`, async () => {
    const tools = await listed({ unpinned });
    const json = JSON.stringify(tools);
    assert.doesNotMatch(json, /9007199254740991/, "no ±MAX_SAFE_INTEGER bounds");
    assert.doesNotMatch(json, /"\$schema"/, "no $schema");
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, "object", tool.name);
      assert.equal(
        (tool.annotations as Record<string, unknown> | undefined)?.title,
        undefined,
        `${tool.name}: the title is listed once`,
      );
      assert.ok(tool.title, `${tool.name} has a title`);
      assert.ok(!/\{tool:/.test(tool.description ?? ""), `${tool.name}: references resolved`);
    }
  });
}

Deno.test("tools/list: descriptions say when to use a tool and what it returns", async () => {
  const tools = await listed();
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const name of ["web_fetch_sections", "web_fetch_incisive"]) {
    const text = byName.get(name)?.description ?? "";
    for (const source of ["Reddit", "GitHub", "arXiv", "wiki", "Discourse", "Hugging Face"]) {
      assert.ok(text.includes(source), `${name} says it reads ${source} through its API`);
    }
    assert.match(text, /through their APIs/);
  }
  const incisive = byName.get("web_fetch_incisive")!.description!;
  assert.match(incisive, /instead of web_fetch/, "when to use it");
  assert.match(incisive, /frontmatter/, "what it returns");
  assert.match(incisive, /parkour:\/\/help\/search/, "where the search syntax is");
  // Every view and every page parameter is still described in the schema.
  const props = (byName.get("web_fetch_incisive")!.inputSchema.properties ?? {}) as Record<
    string,
    { description?: string }
  >;
  for (const key of ["section", "search", "slices", "query", "max_tokens", "requires_js"]) {
    assert.ok(props[key]?.description, `${key} is described`);
  }
  for (const tool of tools) {
    assert.ok((tool.description ?? "").length >= 100, `${tool.name} says what it does`);
  }
});

Deno.test("tools/list: the search syntax is a resource the description names", async () => {
  const client = await connectServer({ replay: false });
  try {
    const { resources } = await client.listResources();
    assert.ok(resources.some((r) => r.uri === "parkour://help/search"));
    const read = await client.readResource({ uri: "parkour://help/search" });
    const text = (read.contents[0] as { text: string }).text;
    assert.match(text, /"exact phrase"/);
    assert.match(text, /fuzzy/);
    assert.match(text, /without stemming/);
  } finally {
    await client.close();
  }
});

Deno.test("tools/list: Kagi is one line without a key and fully described with one", async () => {
  const plain = (await listed()).find((t) => t.name === "kagi_search");
  const keyed = (await listed({ env: { KAGI_API_KEY: KAGI_KEY } })).find((t) =>
    t.name === "kagi_search"
  );
  assert.ok(plain && keyed, "listed both ways");
  assert.ok(!plain.description!.includes("\n"), "one line without a key");
  assert.match(plain.description!, /KAGI_API_KEY/);
  assert.match(plain.description!, /small_web/, "says what still works");
  assert.ok(keyed.description!.length > plain.description!.length);
  assert.match(keyed.description!, /enrich_web/);
  assert.doesNotMatch(keyed.description!, /no Kagi API key/);
});

Deno.test("tools/list: PARKOUR_TOOLS and --tools list only the chosen groups and tools", async () => {
  const web = await listed({ env: { PARKOUR_TOOLS: "web" } });
  assert.deepEqual(web.map((t) => t.name), ["web_fetch_sections", "web_fetch_incisive"]);
  const mixed = await listed({ args: ["--tools", "scholarly, shelf,GitHub"] });
  assert.deepEqual(mixed.map((t) => t.name), ["arxiv", "research_shelf", "ietf", "github"]);
  // The flag wins over the environment; the code profile's names are accepted too.
  const code = await listed({
    args: ["--tools", "WebFetchIncisive", "--profile", "code"],
    env: { PARKOUR_TOOLS: "community" },
  });
  assert.deepEqual(code.map((t) => t.name), ["WebFetchIncisive"]);
  // A listed tool still names the tools it was kept from.
  assert.match(code[0].description!, /WebFetchSections/);
  const all = await listed({ env: { PARKOUR_TOOLS: "all" } });
  assert.ok(all.length >= 13);
  for (const [group, keys] of Object.entries(TOOL_GROUPS)) {
    const tools = await listed({ env: { PARKOUR_TOOLS: group } });
    assert.ok(tools.length > 0, `${group} lists tools`);
    for (const t of tools) assert.ok(keys.includes(t.name), `${t.name} is in ${group}`);
  }
});

Deno.test("tools/list: an unknown group is refused at start with the valid ones", async () => {
  const bad = await runCli(["serve", "--tools", "web,nonsense"]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--tools: unknown tool or group 'nonsense'/);
  assert.match(bad.stderr, /groups: web, scholarly, code, community, search, shelf/);
  const env = await runCli(["serve"], { PARKOUR_TOOLS: "bogus" });
  assert.equal(env.code, 2, env.stderr);
  assert.match(env.stderr, /PARKOUR_TOOLS: unknown tool or group 'bogus'/);
});

Deno.test("tools/list: a bound left out of the listing is still enforced, and the error states it", async () => {
  const client = await connectServer({ replay: false });
  try {
    const tools = (await client.listTools()).tools;
    const url = (tools.find((t) =>
      t.name === "web_fetch_incisive"
    )!.inputSchema.properties as Record<string, Record<string, unknown>>).url;
    assert.equal(url.maxLength, undefined, "the 8192-character cap is not listed");
    const result = await client.callTool({
      name: "web_fetch_incisive",
      arguments: { url: `https://example.org/${"a".repeat(9000)}` },
    });
    assert.equal(result.isError, true);
    assert.match((result.content as { text: string }[])[0].text, /8192 characters/);
  } finally {
    await client.close();
  }
});

/** Runs `install` as its task does, against the temporary home `home`. */
async function install(home: string, args: string[]): Promise<{ code: number; output: string }> {
  const words = meta.tasks.install.command.split(/\s+/);
  const flags = words.slice(2, words.indexOf("main.ts"));
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, MAIN, "install", ...args],
    env: childEnv({ HOME: home, XDG_CONFIG_HOME: `${home}/.config` }),
    clearEnv: true,
    cwd: home,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, output: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

Deno.test("tools/list: install --tools writes a launch line whose server lists only those tools", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "parkour-tools-install-" }));
  try {
    const bad = await install(home, ["--target", "cursor", "--tools", "web,nonsense"]);
    assert.equal(bad.code, 2, bad.output);
    assert.match(bad.output, /--tools: unknown tool or group 'nonsense'/);
    await assert.rejects(Deno.stat(`${home}/.cursor/mcp.json`), Deno.errors.NotFound);

    const run = await install(home, ["--target", "cursor", "--tools", "web, GitHub"]);
    assert.equal(run.code, 0, run.output);
    const config = JSON.parse(await Deno.readTextFile(`${home}/.cursor/mcp.json`));
    const entry = config.mcpServers.parkour as { command: string; args: string[] };
    assert.deepEqual(entry.args.slice(-3), ["serve", "--tools", "web,github"]);
    // Start the server exactly as written (Deno named by this test's executable).
    const args = entry.args.slice(entry.args.indexOf("run"));
    const client = new Client({ name: "tools-install-test", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args,
        env: childEnv({ HOME: home }),
        stderr: "pipe",
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.deepEqual(names, ["web_fetch_sections", "web_fetch_incisive", "github"]);
    } finally {
      await client.close();
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
