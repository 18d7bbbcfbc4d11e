/**
 * Hints never point at a tool that is off. The real server over stdio,
 * replaying fixtures/http, is walked through every source answer that names
 * another tool in a hint, a note or a see_also (DOI, IETF, GitHub, Hugging
 * Face, MediaWiki), with Semantic Scholar off and on, in both profiles: each
 * tool a message names must be in the server's own tools/list, spelt as the
 * profile spells it. The source modules are then read for any message that
 * still names a tool in prose instead of as a tool call (which the check
 * could not gate).
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { asList, callTool, connectServer } from "../support/mcp_client.ts";
import { TOOLS } from "../../lib/tools/catalog.ts";
import { semanticScholar } from "../../lib/tools/semantic_scholar.ts";
import { ROOT_DIR } from "../support/process.ts";

/** Every tool the server can ship, whatever is active (Semantic Scholar included). */
const ALL = [...TOOLS.filter((t) => t.key !== "semantic_scholar"), semanticScholar];

/** The calls whose answers name other tools (source, tool, arguments). */
const WALK: [string, Record<string, unknown>][] = [
  ["web_fetch_incisive", { url: "https://doi.org/10.5555/retracted.1" }],
  ["ietf", { action: "rfc", query: "RFC 2119" }],
  ["web_fetch_incisive", { url: "https://www.rfc-editor.org/rfc/rfc2119" }],
  ["github", { action: "repo", query: "octo-org/widget" }],
  ["github", { action: "issue", query: "octo-org/widget#7", limit: 2 }],
  ["huggingface", { action: "model", query: "acme/tiny-llama-awq" }],
  ["mediawiki", { action: "page", title: "Lovelace" }],
];

const MESSAGE_KEYS = ["hint", "note", "see_also", "warning"];

interface Setting {
  profile: "desktop" | "code";
  s2: boolean;
}

async function walk(setting: Setting) {
  const client: Client = await connectServer({
    args: ["--profile", setting.profile],
    env: { HOME: "/nonexistent", ...(setting.s2 ? { S2_ACCEPT_TOS: "1" } : {}) },
    name: "hints-test",
  });
  try {
    const listed = new Set((await client.listTools()).tools.map((t) => t.name));
    const messages: string[] = [];
    for (const [tool, args] of WALK) {
      const name = ALL.find((t) => t.key === tool)!.names[setting.profile];
      const a = await callTool(client, name, args);
      assert.equal(a.isError, false, `${tool} ${JSON.stringify(args)}: ${a.text}`);
      for (const key of MESSAGE_KEYS) {
        if (a.fm[key] !== undefined) messages.push(...asList(a.fm[key]).map(String));
      }
    }
    return { listed, messages };
  } finally {
    await client.close();
  }
}

/** The tools a message names: a tool's name (either profile) where a call of it is written. */
function named(message: string): { key: string; name: string }[] {
  const out: { key: string; name: string }[] = [];
  for (const m of message.matchAll(/([A-Za-z][A-Za-z0-9_]*) (?:with |\(|)action=/g)) {
    for (const t of ALL) {
      if (Object.values(t.names).includes(m[1])) out.push({ key: t.key, name: m[1] });
    }
  }
  return out;
}

for (
  const setting of [
    { profile: "desktop", s2: false },
    { profile: "desktop", s2: true },
    { profile: "code", s2: false },
  ] as Setting[]
) {
  Deno.test(
    `hints: every tool a source's message names is active (${setting.profile}, Semantic Scholar ${
      setting.s2 ? "on" : "off"
    })`,
    async () => {
      const { listed, messages } = await walk(setting);
      assert.equal(listed.has(semanticScholar.names[setting.profile]), setting.s2);
      let toolCalls = 0;
      for (const m of messages) {
        // No prose pointer the check cannot see.
        assert.doesNotMatch(m, /Semantic Scholar|the \w+ tool\b|\w+ tool's/i, m);
        for (const { name } of named(m)) {
          assert.ok(listed.has(name), `'${m}' names ${name}, which is not in tools/list`);
          toolCalls++;
        }
      }
      // The walk reaches hints that name tools (IETF subseries, GitHub, Hugging Face, MediaWiki).
      assert.ok(toolCalls >= 5, `only ${toolCalls} tool calls in ${messages.join("\n")}`);
      const s2 = semanticScholar.names[setting.profile];
      const pointers = messages.filter((m) => m.includes(`${s2} with action=paper query=DOI:`));
      // With Semantic Scholar on, the DOI and the RFC records (tool and page) point at it.
      assert.equal(pointers.length, setting.s2 ? 3 : 0, messages.join("\n"));
    },
  );
}

Deno.test("hints: no source module names another tool in prose inside a message", async () => {
  // A tool in a hint is a call part (callTool in lib/hint.ts), which the view checks against the
  // active tools; prose ("the IETF tool", "with Semantic Scholar") escapes that check.
  const offenders: string[] = [];
  const prose =
    /\b(the (IETF|github|mediawiki|huggingface|arxiv|youtube|Semantic Scholar) tool|\w+ tool's|with Semantic Scholar)\b/i;
  let templates = 0;
  for await (const file of walkTs(`${ROOT_DIR}/lib/sources`)) {
    const text = await Deno.readTextFile(file);
    // Trusted text templates are what facts (hints, notes, see_also) are made of; thrown errors
    // are plain strings and may name a tool.
    for (const m of text.matchAll(/\.text`((?:[^`\\]|\\.)*)`/g)) {
      templates++;
      if (prose.test(m[1])) {
        offenders.push(`${file.slice(ROOT_DIR.length + 1)}: ${m[1].slice(0, 120)}`);
      }
    }
  }
  assert.ok(templates > 100, `only ${templates} trusted templates found`);
  assert.deepEqual(offenders, []);
});

async function* walkTs(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walkTs(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}
