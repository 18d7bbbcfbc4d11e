/**
 * The conversion deadline through the public faces, and every hostile shape
 * of page (tests/support/hostile_pages.ts: links, entities, unclosed and
 * misnested tags, nesting to the cap, one huge row or cell, one huge text
 * run, tiny sections, attributes by the thousand, ...) at 4 MB, served on
 * 127.0.0.1, answered or refused with an error that says why, nothing else,
 * through MCP (pages converted in a worker) and through the CLI (converted
 * on its own thread). The deadline is set short here
 * (`PARKOUR_CONVERT_DEADLINE_MS`), so that the refusal is exercised as well
 * as the answer; how fast each shape converts, at 4 and 16 MB, is measured
 * by bench/hostile_pages.ts, not here.
 */
import assert from "node:assert/strict";
import { callTool, startServer } from "../support/mcp_client.ts";
import { runCli } from "../support/process.ts";
import { HOSTILE_SHAPES } from "../support/hostile_pages.ts";

/** The pages, made on request; `/small` is an ordinary page. */
const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const [, name, mb] = new URL(req.url).pathname.split("/");
  if (name === "small") {
    return new Response(
      "<!doctype html><title>Small</title><h1>Small page</h1><p>An ordinary paragraph.</p>",
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  }
  const shape = HOSTILE_SHAPES.find((s) => s.name === name);
  if (!shape) return new Response("no", { status: 404 });
  return new Response(shape.page(Number(mb) * 1e6), {
    headers: { "content-type": "text/html; charset=utf-8" },
  });
});
const BASE = `http://127.0.0.1:${upstream.addr.port}`;

/** The refusal's text for a deadline of `ms`: what happened, and what to try. */
function refusal(ms: number): RegExp {
  return new RegExp(
    `did not convert within ${
      ms / 1000
    } s, so its conversion was stopped and nothing of it was kept;.*Try a smaller page.*PARKOUR_CONVERT_DEADLINE_MS allows more time \\(now ${ms} ms\\)`,
  );
}

const envOf = (ms: number) => ({
  MCP_ALLOW_PRIVATE_IPS: "1",
  PARKOUR_CONVERT_DEADLINE_MS: `${ms}`,
});

function cli(args: string[], ms: number) {
  return runCli(args, envOf(ms), undefined, ["--allow-net=127.0.0.1"]);
}

Deno.test("deadline: a page past it is refused with too_slow over MCP, and the server goes on", async () => {
  // 100 ms, the least that may be set: 200,000 links (6.8 MB) take seconds.
  const { client } = await startServer({ env: envOf(100), replay: false });
  try {
    const url = `${BASE}/links/6.8`;
    const slow = await callTool(client, "web_fetch_sections", { url }, { timeout: 120_000 });
    assert.equal(slow.isError, true, slow.text);
    assert.match(slow.text, refusal(100));
    assert.match(
      slow.text,
      /the page at http:\/\/127\.0\.0\.1:\d+\/links\/6\.8 \(6\.8 MB of HTML\)/,
    );
    // Nothing of it was kept: asked again, it is converted again and refused again.
    const again = await callTool(client, "web_fetch_incisive", { url, search: "link" });
    assert.equal(again.isError, true);
    assert.match(again.text, refusal(100));
    // The worker was replaced: the next pages are answered.
    const small = await callTool(client, "web_fetch_incisive", { url: `${BASE}/small` });
    assert.equal(small.isError, false, small.text);
    assert.ok(small.body.some((l) => l.includes("An ordinary paragraph.")));
  } finally {
    await client.close();
  }
});

Deno.test("deadline: a page past it is refused with too_slow by the CLI; a malformed setting fails at start", async () => {
  const slow = await cli(["fetch", `${BASE}/links/6.8`, "--format", "envelope"], 100);
  assert.equal(slow.code, 1, slow.stderr);
  assert.equal(slow.stdout, "");
  assert.match(slow.stderr, refusal(100));
  const small = await cli(["fetch", `${BASE}/small`, "--format", "markdown"], 100);
  assert.equal(small.code, 0, small.stderr);
  assert.match(small.stdout, /An ordinary paragraph\./);
  for (const bad of ["abc", "50", "2.5", "99999999"]) {
    const out = await runCli(
      ["fetch", `${BASE}/small`],
      {
        MCP_ALLOW_PRIVATE_IPS: "1",
        PARKOUR_CONVERT_DEADLINE_MS: bad,
      },
      undefined,
      ["--allow-net=127.0.0.1"],
    );
    assert.equal(out.code, 2, `${bad}: ${out.stderr}`);
    assert.match(
      out.stderr,
      new RegExp(`invalid PARKOUR_CONVERT_DEADLINE_MS '${bad.replace(".", "\\.")}'; give a whole`),
    );
  }
});

/** The deadline of the shapes' runs: short enough that some shapes are refused on a busy machine. */
const SHAPES_DEADLINE_MS = 2000;

/** How a page went: answered, refused at the deadline, or refused as a page without text. */
type Outcome = "answered" | "too slow" | "no text";

/**
 * An answer (frontmatter and a fence of page text) or a refusal that says
 * why: the deadline's, or that the page holds no text (one element of
 * repeated attributes); nothing else.
 */
function outcomeOf(label: string, text: string, isError: boolean): Outcome {
  if (isError) {
    if (/no text could be extracted/.test(text)) {
      assert.match(text, /no text could be extracted from http:\/\/127\.0\.0\.1:\d+\//, label);
      return "no text";
    }
    assert.match(text, refusal(SHAPES_DEADLINE_MS), label);
    return "too slow";
  }
  assert.match(text, /^---\n/, label);
  assert.match(text, /\n┌─ untrusted content \[[0-9a-f]{8}\]\n/, label);
  assert.match(text, /\n└─ untrusted content \[[0-9a-f]{8}\]$/, label);
  return "answered";
}

/** The outcomes, counted, and the shapes of each but the answered ones. */
function summary(outcomes: [string, Outcome][]): string {
  const of = (o: Outcome) => outcomes.filter(([, got]) => got === o).map(([name]) => name);
  return `answered ${of("answered").length}; too slow: ${of("too slow").join(", ") || "none"}; ` +
    `no text: ${of("no text").join(", ") || "none"}`;
}

Deno.test("deadline: each hostile shape at 4 MB is answered or refused over MCP", async () => {
  const { client } = await startServer({ env: envOf(SHAPES_DEADLINE_MS), replay: false });
  const outcomes: [string, Outcome][] = [];
  try {
    for (const { name } of HOSTILE_SHAPES) {
      const a = await callTool(
        client,
        "web_fetch_incisive",
        { url: `${BASE}/${name}/4`, max_tokens: 600 },
        { timeout: 120_000 },
      );
      outcomes.push([name, outcomeOf(name, a.text, a.isError)]);
    }
    // The server is still there after all of them.
    const small = await callTool(client, "web_fetch_sections", { url: `${BASE}/small` });
    assert.equal(small.isError, false, small.text);
  } finally {
    await client.close();
  }
  assert.equal(outcomes.length, HOSTILE_SHAPES.length);
  console.log(`MCP: ${summary(outcomes)}`);
});

Deno.test("deadline: each hostile shape at 4 MB is answered or refused by the CLI", async () => {
  const outcomes: [string, Outcome][] = [];
  // Two at a time: each is a process of its own.
  for (let i = 0; i < HOSTILE_SHAPES.length; i += 2) {
    await Promise.all(
      HOSTILE_SHAPES.slice(i, i + 2).map(async ({ name }) => {
        const out = await cli(
          ["fetch", `${BASE}/${name}/4`, "--max-tokens", "600", "--format", "envelope"],
          SHAPES_DEADLINE_MS,
        );
        const text = out.code === 0 ? out.stdout.trimEnd() : out.stderr.trim();
        const got = outcomeOf(name, text, out.code !== 0);
        assert.equal(out.code, got === "answered" ? 0 : 1, name);
        outcomes.push([name, got]);
      }),
    );
  }
  assert.equal(outcomes.length, HOSTILE_SHAPES.length);
  console.log(`CLI: ${summary(outcomes)}`);
});

Deno.test({
  name: "deadline: shutdown",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await upstream.shutdown();
  },
});
