/**
 * The research shelf's writing actions (confirm, score, note, remove,
 * import, clear) are off unless the server is started with
 * `--enable-mutating-tools` or `PARKOUR_ENABLE_MUTATING_TOOLS=1`, as kagi
 * mcp's flag of that name keeps its mutation tools out: the real server
 * over stdio, driven by the SDK client in both protocol eras, lists the
 * tool read-only (its action enum, parameters, annotations and
 * description) and refuses a writing call with what to do; turned on, the
 * tool lists and runs every action. The library's `createServer` has the
 * same switch, and a tool's refused actions are refused even past its
 * schema.
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { z } from "zod";
import { callLenient, callTool, connectServer } from "../support/mcp_client.ts";
import { createServer } from "../../server.ts";
import { envelopeReady } from "../../mod.ts";
import { defineTool, ToolRegistry } from "../../lib/tools/registry.ts";
import { runTool } from "../../lib/server/mcp.ts";
import { READING_ACTIONS, WRITING_ACTIONS } from "../../lib/tools/research_shelf.ts";

await envelopeReady();

const WORK = JSON.stringify({
  active: {
    "10.5555/mutating.1": {
      doi: "10.5555/mutating.1",
      title: "A work to write",
      authors: ["Doe, Jane"],
      year: 2024,
      venue: "Journal of Tests",
    },
  },
});

type Era = "modern" | "legacy";

function connect(era: Era, options: { args?: string[]; env?: Record<string, string> } = {}) {
  return connectServer({
    replay: false,
    name: `mutating-${era}`,
    unpinned: era === "legacy",
    args: options.args,
    env: options.env,
  });
}

async function shelfTool(client: Client) {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === "research_shelf");
  assert.ok(tool, "the shelf tool is listed");
  const properties = tool.inputSchema.properties as Record<string, { enum?: string[] }>;
  return { tool, actions: properties.action.enum ?? [], parameters: Object.keys(properties) };
}

for (const era of ["modern", "legacy"] as Era[]) {
  Deno.test(`mutating tools (${era}): off by default: listed read-only, writing refused`, async () => {
    const client = await connect(era);
    try {
      const { tool, actions, parameters } = await shelfTool(client);
      assert.deepEqual(actions, [...READING_ACTIONS]);
      assert.deepEqual(parameters.sort(), [
        "action",
        "format",
        "page",
        "section",
        "with_retracted",
      ]);
      assert.equal(tool.annotations?.readOnlyHint, true);
      assert.notEqual(tool.annotations?.destructiveHint, true);
      assert.match(tool.description ?? "", /--enable-mutating-tools/);
      assert.doesNotMatch(tool.description ?? "", /import data=/);

      for (const action of WRITING_ACTIONS) {
        const a = await callLenient(client, "research_shelf", {
          action,
          ...(action === "import" ? { data: WORK } : {}),
        });
        assert.equal(a.isError, true, `${action} is refused`);
        assert.match(a.text, new RegExp(`'${action}' changes the shelf`));
        assert.match(a.text, /--enable-mutating-tools/);
      }
      // Reading works, and nothing was written.
      const listed = await callTool(client, "research_shelf", { action: "list" });
      assert.equal(listed.isError, false, listed.text);
      assert.equal(listed.fm.active, 0);
      const exported = await callTool(client, "research_shelf", {
        action: "export",
        format: "json",
      });
      assert.equal(exported.isError, false, exported.text);
    } finally {
      await client.close();
    }
  });
}

const WAYS: [string, { args?: string[]; env?: Record<string, string> }][] = [
  ["--enable-mutating-tools", { args: ["--enable-mutating-tools"] }],
  ["PARKOUR_ENABLE_MUTATING_TOOLS=1", { env: { PARKOUR_ENABLE_MUTATING_TOOLS: "1" } }],
];

for (const [how, options] of WAYS) {
  Deno.test(`mutating tools: ${how} lists and runs every action`, async () => {
    const client = await connect("modern", options);
    try {
      const { tool, actions } = await shelfTool(client);
      assert.deepEqual(actions.sort(), [...READING_ACTIONS, ...WRITING_ACTIONS].sort());
      assert.equal(tool.annotations?.destructiveHint, true);
      assert.doesNotMatch(tool.description ?? "", /are off/);
      const imported = await callTool(client, "research_shelf", { action: "import", data: WORK });
      assert.equal(imported.isError, false, imported.text);
      const scored = await callTool(client, "research_shelf", {
        action: "score",
        doi: "10.5555/mutating.1",
        score: 7,
      });
      assert.equal(scored.isError, false, scored.text);
      assert.equal((await callTool(client, "research_shelf", { action: "list" })).fm.active, 1);
      const cleared = await callTool(client, "research_shelf", { action: "clear" });
      assert.equal(cleared.fm.cleared, 1);
    } finally {
      await client.close();
    }
  });
}

Deno.test("mutating tools: createServer has the same switch", async () => {
  const off = createServer({ enableMutatingTools: false });
  const refused = await off.callTool("research_shelf", { action: "clear" });
  assert.equal(refused.isError, true);
  assert.match(refused.content[0].text, /--enable-mutating-tools/);
  const on = createServer({ enableMutatingTools: true });
  const cleared = await on.callTool("research_shelf", { action: "clear" });
  assert.equal(cleared.isError, undefined, cleared.content[0].text);
  await off.close();
  await on.close();
});

Deno.test("mutating tools: a refused action is refused before the handler, whatever the schema", async () => {
  let ran = 0;
  const schema = z.object({ action: z.enum(["look", "wipe"]) });
  const tool = defineTool({
    key: "test_store",
    names: { desktop: "test_store", code: "TestStore" },
    title: "TestStore",
    description: "Looks at or wipes a store.",
    inputSchema: schema,
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    mutating: {
      actions: ["wipe"],
      description: "Looks at a store (wiping is off).",
      inputSchema: z.object({ action: z.enum(["look"]) }),
      annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
    },
    handler: () => {
      ran++;
      throw new Error("the handler ran");
    },
  });
  const off = new ToolRegistry([tool], "desktop");
  const listed = off.list()[0];
  assert.equal(listed.description, "Looks at a store (wiping is off).");
  assert.deepEqual(listed.refused, ["wipe"]);
  assert.equal(listed.annotations.readOnlyHint, true);
  const result = await runTool(
    listed,
    { action: "wipe" },
    { registry: off, defaultOutput: "markdown" },
    new AbortController().signal,
  );
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /action=wipe changes what this server keeps/);
  assert.equal(ran, 0, "the handler never ran");
  const on = new ToolRegistry([tool], "desktop", { mutating: true }).list()[0];
  assert.deepEqual(on.refused, []);
  assert.equal(on.description, "Looks at or wipes a store.");
  assert.equal(on.inputSchema, schema);
});
