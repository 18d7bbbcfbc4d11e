/**
 * The HTTP API end to end: `main.ts serve --http` as a real process
 * replaying the hand-written exchanges of `fixtures/http/rest`, driven by
 * plain `fetch` (and raw sockets for the Host rule); plus in-process checks
 * of cancellation and of the error table with a stand-in loader.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import meta from "../../deno.json" with { type: "json" };
import { Document } from "../../lib/content/document/document.ts";
import { envelopeReady, parseFrontmatter } from "../../lib/envelope/frontmatter.ts";
import { setLogLevel } from "../../lib/log.ts";
import { NetError } from "../../lib/net/errors.ts";
import { ContentError } from "../../lib/errors.ts";
import { markdownToText } from "../../lib/content/document/plain_text.ts";
import { API_PARAMS, createRestApi, REST_PATHS, SECTIONS_PARAMS } from "../../lib/server/rest.ts";
import type { LoadOptions } from "../../lib/sources/source.ts";
import { HttpServerProcess, replaySetup } from "../support/process.ts";
import { Validator } from "@seriousme/openapi-schema-validator";
import { MAX_MAX_TOKENS, MAX_QUERY_CHARS, MIN_MAX_TOKENS } from "../../lib/views/request.ts";

await envelopeReady();

const PAGES = "https://docs.example.org/rest";
const GUIDE = `${PAGES}/guide`;

async function startServer(env: Record<string, string> = {}): Promise<HttpServerProcess> {
  const replay = replaySetup();
  return await HttpServerProcess.start(undefined, [], { ...replay.env, ...env }, replay.flags);
}

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

function apiUrl(
  server: HttpServerProcess,
  path: string,
  params: Record<string, string | string[]> = {},
): string {
  const url = new URL(path, server.url);
  for (const [k, v] of Object.entries(params)) {
    for (const value of Array.isArray(v) ? v : [v]) url.searchParams.append(k, value);
  }
  return url.href;
}

async function get(
  server: HttpServerProcess,
  path: string,
  params: Record<string, string | string[]> = {},
  init: RequestInit = {},
): Promise<Reply> {
  const res = await fetch(apiUrl(server, path, params), init);
  const text = await res.text();
  let json = undefined;
  if (res.headers.get("content-type")?.startsWith("application/json")) json = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, json };
}

interface SseEvent {
  event: string;
  // deno-lint-ignore no-explicit-any
  data: any;
}

function parseSse(text: string): SseEvent[] {
  return text.split("\n\n").filter((b) => b.trim()).map((block) => {
    const lines = block.split("\n");
    const event = lines.find((l) => l.startsWith("event: "))?.slice(7) ?? "message";
    const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
    return { event, data: JSON.parse(data) };
  });
}

/** A raw GET, so the Host header can be anything. */
async function rawGet(port: number, host: string, path: string): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const hostLine = host === "" ? "" : `Host: ${host}\r\n`;
  await conn.write(
    new TextEncoder().encode(`GET ${path} HTTP/1.1\r\n${hostLine}Connection: close\r\n\r\n`),
  );
  const buf = new Uint8Array(4096);
  let text = "";
  while (!/^HTTP\/1\.1 \d{3}/.test(text)) {
    const n = await conn.read(buf);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  conn.close();
  const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
  if (!m) throw new Error(`no status line: ${text}`);
  return Number(m[1]);
}

function assertJsonError(reply: Reply, status: number, pattern: RegExp, kind?: string): void {
  assert.equal(reply.status, status, reply.text);
  assert.equal(reply.headers.get("content-type"), "application/json");
  assert.equal(typeof reply.json?.error, "string");
  assert.match(reply.json.error, pattern);
  if (kind) assert.equal(reply.json.kind, kind);
}

Deno.test("rest: /api formats (md, text, json), frontmatter, full_page and max_tokens", async (t) => {
  const server = await startServer();
  try {
    await t.step("md: the page's main content as raw Markdown", async () => {
      const r = await get(server, "/api", { url: GUIDE });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("content-type"), "text/markdown; charset=utf-8");
      assert.equal(r.headers.get("x-source"), "web");
      assert.equal(r.headers.get("x-cache"), "miss");
      assert.equal(r.headers.get("x-extracted"), null, "no extract headers without query");
      assert.equal(r.headers.get("access-control-allow-origin"), null);
      assert.ok(r.text.startsWith("# Lantern Field Guide\n"), r.text.slice(0, 80));
      assert.match(r.text, /^## Configuration$/m);
      assert.match(r.text, /^\| Key \| Default \| Meaning \|$/m);
      assert.match(r.text, /```sh\nlantern init/);
      assert.doesNotMatch(r.text, /┌─|│ /, "no fence");
      assert.doesNotMatch(r.text, /This page exists only for tests/, "footer dropped");
      assert.ok(r.text.includes("Does Lantern store photos?"), "the whole page, not a cut");
    });

    await t.step("X-Source names the source that read the page, not only the URL's", async () => {
      // A Discourse topic reached through the generic web path is re-read through the forum's API.
      const url = "https://discuss.example.org/t/welcome/42";
      const r = await get(server, "/api", { url, format: "json" });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers.get("x-source"), "discourse");
      assert.equal(r.json.source, "discourse");
      const s = await get(server, "/api/sections", { url });
      assert.equal(s.headers.get("x-source"), "discourse");
    });

    await t.step("text: Markdown stripped to plain text", async () => {
      const r = await get(server, "/api", { url: GUIDE, format: "text" });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("content-type"), "text/plain; charset=utf-8");
      assert.equal(r.headers.get("x-cache"), "hit");
      assert.ok(r.text.startsWith("Lantern Field Guide\n"), r.text.slice(0, 80));
      assert.match(r.text, /^Configuration$/m);
      assert.match(r.text, /^Key\tDefault\tMeaning$/m);
      assert.match(r.text, /^lantern init$/m, "code kept");
      assert.match(r.text, /keep a life list,/, "emphasis markers gone");
      for (const marker of [/^#/m, /\*\*/, /```/, /^\|/m, /`lantern`/]) {
        assert.doesNotMatch(r.text, marker);
      }
    });

    await t.step("json: the record with snake_case keys", async () => {
      const md = await get(server, "/api", { url: GUIDE });
      const r = await get(server, "/api", { url: GUIDE, format: "json" });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("content-type"), "application/json");
      assert.equal(r.json.markdown, md.text);
      assert.equal(r.json.title, "Lantern Field Guide");
      assert.equal(r.json.url, GUIDE);
      assert.equal(r.json.final_url, undefined, "no redirect");
      assert.equal(r.json.content_type, "html");
      assert.equal(r.json.source, "web");
      assert.equal(r.json.cached, true);
      assert.equal(r.json.full_page, false);
      assert.equal(r.json.total_sections, 10);
      assert.equal(r.json.view, "page");
      assert.equal(r.json.extract, undefined, "extract only with a query");
    });

    await t.step("frontmatter=true: a block of trusted values before the body", async () => {
      for (const format of ["md", "text"]) {
        const r = await get(server, "/api", { url: GUIDE, frontmatter: "true", format });
        assert.equal(r.status, 200);
        assert.ok(r.text.startsWith("---\n"), r.text.slice(0, 40));
        const fm = parseFrontmatter(r.text)!;
        assert.equal(fm.source, GUIDE);
        assert.equal(fm.adapter, "web");
        assert.equal(fm.content_type, "html");
        assert.equal(fm.cached, true);
        assert.equal(fm.view, "page");
        assert.equal(fm.total_sections, 10);
        assert.equal(fm.title, undefined, "page text stays out of the frontmatter");
        const body = r.text.slice(r.text.indexOf("\n---\n") + 5);
        assert.ok(
          body.startsWith(format === "md" ? "\n# Lantern Field Guide" : "\nLantern Field Guide"),
        );
      }
      const json = await get(server, "/api", { url: GUIDE, frontmatter: "1", format: "json" });
      assert.equal(parseFrontmatter(json.json.markdown)?.source, GUIDE);
      const q = await get(server, "/api", {
        url: GUIDE,
        frontmatter: "true",
        query: "how do I install lantern",
      });
      const fm = parseFrontmatter(q.text)!;
      assert.equal(fm.view, "query");
      assert.equal(fm.query, "how do I install lantern");
      assert.equal(typeof fm.extracted, "boolean");
      assert.equal(fm.original_tokens, Number(q.headers.get("x-extract-original-tokens")));
      assert.equal(fm.returned_tokens, Number(q.headers.get("x-extract-returned-tokens")));
      assert.equal(fm.sections_selected, Number(q.headers.get("x-extract-sections")));
      const bad = await get(server, "/api", { url: GUIDE, frontmatter: "maybe" });
      assertJsonError(bad, 400, /frontmatter must be true or false/);
    });

    await t.step("full_page=true keeps the furniture and is cached apart", async () => {
      for (const value of ["true", "1"]) {
        const r = await get(server, "/api", { url: GUIDE, full_page: value, format: "json" });
        assert.equal(r.status, 200);
        assert.equal(r.json.full_page, true);
        assert.match(r.json.markdown, /This page exists only for tests/);
        assert.equal(r.headers.get("x-cache"), value === "true" ? "miss" : "hit");
      }
    });

    await t.step("max_tokens without a view cuts the page at a block boundary", async () => {
      const r = await get(server, "/api", { url: GUIDE, max_tokens: "100", format: "json" });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("x-truncated"), "true");
      assert.equal(r.json.truncated, true);
      assert.ok(r.json.returned_tokens <= 100 && r.json.total_tokens > 500, JSON.stringify(r.json));
      assert.ok(r.json.markdown.startsWith("# Lantern Field Guide"));
      assert.ok(!r.json.markdown.includes("Troubleshooting"));
      // The hints as requests, and as pieces a client runs: text and calls with their parameters.
      const hints: string[] = r.json.hints;
      const steps: (string | { view: string; params: Record<string, unknown>; href: string })[][] =
        r.json.hint_steps;
      assert.ok(hints.length > 0 && steps.length === hints.length, JSON.stringify(r.json));
      steps.forEach((pieces, i) => {
        const joined = pieces.map((p) => (typeof p === "string" ? p : p.href)).join("");
        assert.equal(joined, hints[i], "the pieces spell the hint");
      });
      const calls = steps.flat().filter((p) => typeof p === "object");
      assert.ok(
        calls.some((c) =>
          c.view === "page" && c.href.startsWith(`/api?url=${encodeURIComponent(GUIDE)}&search=`) &&
          JSON.stringify(c.params) === '{"search":{"placeholder":"words"}}'
        ),
        JSON.stringify(calls),
      );
    });
  } finally {
    await server.stop();
  }
});

/** The page's title line every view's body starts with. */
const TITLE_LINE = "# Lantern Field Guide\n\n";

Deno.test("rest: /api views (section, search, slices, query) and their validation", async (t) => {
  const server = await startServer();
  try {
    await t.step("every view's body starts with the page's title line, once", async () => {
      const views: Record<string, string>[] = [
        {},
        { section: "Configuration" },
        { search: "kingfisher" },
        { slices: "2" },
        { query: "how do I install lantern", max_tokens: "120" },
      ];
      for (const view of views) {
        const r = await get(server, "/api", { url: GUIDE, format: "json", ...view });
        assert.equal(r.status, 200, r.text);
        const md: string = r.json.markdown;
        assert.ok(md.startsWith(TITLE_LINE), `${JSON.stringify(view)}: ${md.slice(0, 60)}`);
        assert.ok(!md.slice(TITLE_LINE.length).startsWith(TITLE_LINE), "not twice");
        // The line is counted in the budget.
        if (view.max_tokens) {
          assert.ok(r.json.returned_tokens <= 120, String(r.json.returned_tokens));
        }
        const text = await get(server, "/api", { url: GUIDE, format: "text", ...view });
        assert.ok(text.text.startsWith("Lantern Field Guide\n"), text.text.slice(0, 60));
      }
    });

    await t.step("section: by name, slug or #id, repeatable, and the URL fragment", async () => {
      const one = await get(server, "/api", { url: GUIDE, section: "Configuration" });
      assert.equal(one.status, 200);
      assert.ok(
        one.text.startsWith("# Lantern Field Guide\n\n## Configuration\n"),
        one.text.slice(0, 60),
      );
      assert.match(one.text, /hemisphere/);
      assert.doesNotMatch(one.text, /Troubleshooting|Introduction/);

      const two = await get(server, "/api", {
        url: GUIDE,
        section: ["introduction", "#steps"],
        format: "json",
      });
      assert.equal(two.status, 200);
      assert.deepEqual(two.json.sections_returned, [1, 4]);
      assert.match(two.json.markdown, /^## Introduction$/m);
      assert.match(two.json.markdown, /^### Steps$/m);
      assert.doesNotMatch(two.json.markdown, /^### Requirements$/m);

      const expanded = await get(server, "/api", {
        url: GUIDE,
        section: "Installation",
        auto_expand: "true",
      });
      assert.match(expanded.text, /^### Requirements$/m);
      assert.match(expanded.text, /^### Steps$/m);

      const fragment = await get(server, "/api", { url: `${GUIDE}#troubleshooting` });
      assert.ok(
        fragment.text.startsWith("# Lantern Field Guide\n\n## Troubleshooting\n"),
        fragment.text.slice(0, 60),
      );

      const partial = await get(server, "/api", {
        url: GUIDE,
        section: ["Configuration", "Nothing like this"],
        format: "json",
      });
      assert.equal(partial.status, 200);
      assert.equal(partial.json.sections_not_found[0].request, "Nothing like this");

      const none = await get(server, "/api", { url: GUIDE, section: "Troubleshootin tips" });
      assertJsonError(none, 404, /no section matched 'Troubleshootin tips'/, "section_not_found");
      assert.match(none.json.error, /\/api\/sections/);
    });

    await t.step("search: BM25 hits rendered as slice blocks", async () => {
      const r = await get(server, "/api", { url: GUIDE, search: "kingfisher", format: "json" });
      assert.equal(r.status, 200);
      assert.equal(r.json.view, "search");
      assert.ok(r.json.matched_slices.length > 0);
      assert.ok(r.json.total_slices >= 3, `slices: ${r.json.total_slices}`);
      assert.ok(r.json.markdown.startsWith(TITLE_LINE), r.json.markdown.slice(0, 60));
      const blocks = r.json.markdown.slice(TITLE_LINE.length).split(/\n\n(?=--- slice \d+ \()/);
      assert.equal(blocks.length, r.json.shown_slices.length);
      blocks.forEach((block: string, i: number) => {
        assert.ok(block.startsWith(`--- slice ${r.json.shown_slices[i]} (`), block.slice(0, 60));
        assert.match(block, /kingfisher/i);
      });
      const md = await get(server, "/api", { url: GUIDE, search: "+hemisphere +spring" });
      assert.equal(md.headers.get("content-type"), "text/markdown; charset=utf-8");
      assert.match(md.text, /^--- slice \d+ \(.*Configuration.*\) ---$/m);
      const miss = await get(server, "/api", { url: GUIDE, search: "zeppelin", format: "json" });
      assert.equal(miss.status, 200);
      assert.deepEqual(miss.json.matched_slices, []);
      assert.equal(miss.json.markdown, "");
    });

    await t.step("slices: by index, negative from the end", async () => {
      const r = await get(server, "/api", { url: GUIDE, slices: "0,-1,99", format: "json" });
      assert.equal(r.status, 200);
      const last = r.json.total_slices - 1;
      assert.deepEqual(r.json.shown_slices, [0, last]);
      assert.deepEqual(r.json.slices_not_found, [99]);
      assert.match(r.json.markdown, /^--- slice 0 \(Lantern Field Guide\) ---$/m);
      assert.match(r.json.markdown, new RegExp(`^--- slice ${last} \\(`, "m"));
      assertJsonError(
        await get(server, "/api", { url: GUIDE, slices: "999" }),
        404,
        /valid indexes are 0 to/,
        "slice_not_found",
      );
      assertJsonError(
        await get(server, "/api", { url: GUIDE, slices: "1,two" }),
        400,
        /comma-separated whole numbers/,
      );
    });

    await t.step("query: extraction headers agree with the JSON record", async () => {
      const r = await get(server, "/api", { url: GUIDE, query: "which hemisphere setting" });
      assert.equal(r.status, 200);
      assert.match(r.headers.get("x-extracted") ?? "", /^(true|false)$/);
      const confidence = r.headers.get("x-extract-confidence");
      assert.ok(confidence === null || ["high", "medium", "low"].includes(confidence));
      for (const h of ["sections", "original-tokens", "returned-tokens"]) {
        assert.match(r.headers.get(`x-extract-${h}`) ?? "", /^\d+$/, h);
      }
      assert.ok(Number(r.headers.get("x-extract-original-tokens")) > 500);
      const j = await get(server, "/api", {
        url: GUIDE,
        query: "which hemisphere setting",
        format: "json",
      });
      assert.deepEqual(Object.keys(j.json.extract).sort(), [
        "confidence",
        "extracted",
        "original_tokens",
        "returned_tokens",
        "sections_selected",
      ]);
      assert.equal(String(j.json.extract.extracted), r.headers.get("x-extracted"));
      assert.equal(j.json.extract.confidence, confidence);
      assert.equal(
        j.json.extract.returned_tokens,
        Number(r.headers.get("x-extract-returned-tokens")),
      );
      assert.equal(j.json.markdown, r.text);
      assert.equal(j.json.query, "which hemisphere setting");
      for (const ok of ["50", "25000"]) {
        const edge = await get(server, "/api", { url: GUIDE, query: "lantern", max_tokens: ok });
        assert.equal(edge.status, 200, `max_tokens=${ok}`);
      }
      const blank = await get(server, "/api", { url: GUIDE, query: "   " });
      assert.equal(blank.headers.get("x-extracted"), null, "a blank query counts as absent");
    });

    await t.step("query that matches nothing: the whole page, X-Extracted false", async () => {
      const page = await get(server, "/api", { url: GUIDE });
      const r = await get(server, "/api", { url: GUIDE, query: "zebra xylophone" });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("x-extracted"), "false");
      assert.equal(r.headers.get("x-extract-confidence"), "low");
      assert.ok(
        Number(r.headers.get("x-extract-original-tokens")) > 600,
        "larger than a default answer",
      );
      assert.equal(r.text, page.text, "the whole page, not its first 600 tokens");
      const j = await get(server, "/api", { url: GUIDE, query: "zebra xylophone", format: "json" });
      assert.equal(j.json.extract.extracted, false);
      assert.equal(j.json.markdown, page.text);
    });

    await t.step("bad max_tokens: 400 with a JSON error saying what is valid", async () => {
      for (const bad of ["49", "25001", "abc", "1.5", "-100", "0x40"]) {
        const r = await get(server, "/api", { url: GUIDE, query: "install", max_tokens: bad });
        assertJsonError(
          r,
          400,
          /max_tokens must be a whole number from 50 to 25000/,
          "bad_max_tokens",
        );
        assert.ok(r.json.error.includes(`(got ${bad})`), r.json.error);
      }
      const noQuery = await get(server, "/api", { url: GUIDE, max_tokens: "25001" });
      assert.equal(noQuery.status, 400);
    });

    await t.step("views are exclusive: more than one is a 400 saying to use one", async () => {
      const combos: Record<string, string>[] = [
        { query: "a", section: "Introduction" },
        { query: "a", search: "b" },
        { section: "Introduction", slices: "1" },
        { search: "a", slices: "1" },
      ];
      for (const combo of combos) {
        const r = await get(server, "/api", { url: GUIDE, ...combo });
        assertJsonError(r, 400, /use one of query, section, search or slices/, "conflicting_views");
      }
      const twice = await get(server, "/api", { url: GUIDE, query: ["a", "b"] });
      assertJsonError(twice, 400, /give query once/);
    });
  } finally {
    await server.stop();
  }
});

Deno.test("rest: errors map to statuses with helpful JSON bodies", async () => {
  const server = await startServer();
  try {
    assertJsonError(await get(server, "/api"), 400, /missing url.*\?url=/, "missing_url");
    assertJsonError(await get(server, "/api", { url: "  " }), 400, /missing url/);
    assertJsonError(await get(server, "/api/sections"), 400, /missing url/);

    const blocked = await get(server, "/api", { url: "http://127.0.0.1/" });
    assertJsonError(blocked, 403, /loopback address.*MCP_ALLOW_PRIVATE_IPS/, "blocked_address");
    const metadata = await get(server, "/api", { url: "http://169.254.169.254/latest/meta-data/" });
    assertJsonError(metadata, 403, /link-local/, "blocked_address");
    assertJsonError(
      await get(server, "/api", { url: "file:///etc/passwd" }),
      400,
      /only http and https/,
      "scheme",
    );
    assertJsonError(
      await get(server, "/api", { url: "https://user:pw@docs.example.org/" }),
      400,
      /remove the credentials/,
      "credentials",
    );
    assertJsonError(await get(server, "/api", { url: "not a url" }), 400, /not a valid URL/);

    const missing = await get(server, "/api", { url: `${PAGES}/missing` });
    assertJsonError(missing, 404, /answered HTTP 404 .*check the URL/, "status");
    assert.equal(missing.json.upstream_status, 404);
    assert.match(missing.json.upstream_excerpt, /moved to the archive/);

    const broken = await get(server, "/api", { url: `${PAGES}/broken`, query: "database" });
    assertJsonError(broken, 502, /answered HTTP 500 .*try again later/, "status");
    assert.equal(broken.json.upstream_status, 500);
    assert.match(broken.json.upstream_excerpt, /documentation database is offline/);

    const image = await get(server, "/api", { url: `${PAGES}/picture.png` });
    assertJsonError(image, 415, /image\/png.*supported: HTML/, "unsupported_type");
    const empty = await get(server, "/api", { url: `${PAGES}/empty` });
    assertJsonError(empty, 422, /no text could be extracted/, "no_text");
    assertJsonError(
      await get(server, "/api", { url: GUIDE, format: "xml" }),
      400,
      /format must be one of md, text, json/,
    );

    for (
      const [method, path] of [["POST", "/api"], ["PUT", "/api/sections"], ["DELETE", "/healthz"]]
    ) {
      const r = await get(server, path, { url: GUIDE }, {
        method,
        body: method === "POST" ? "{}" : undefined,
      });
      assertJsonError(r, 405, new RegExp(`${method} is not allowed`), "method_not_allowed");
      assert.equal(r.headers.get("allow"), "GET, HEAD");
    }
    const head = await fetch(apiUrl(server, "/api/sections", { url: GUIDE }), { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-type"), "text/markdown; charset=utf-8");
    assert.equal(await head.text(), "");
    const unknown = await get(server, "/api/other");
    assert.equal(unknown.status, 404);
  } finally {
    await server.stop();
  }
});

Deno.test("rest: /api/sections gives the outline as Markdown or JSON", async () => {
  const server = await startServer();
  try {
    const md = await get(server, "/api/sections", { url: GUIDE });
    assert.equal(md.status, 200);
    assert.equal(md.headers.get("content-type"), "text/markdown; charset=utf-8");
    assert.equal(md.headers.get("x-total-sections"), "10");
    const lines = md.text.split("\n");
    assert.equal(lines.length, 10);
    assert.equal(lines[0], "- Lantern Field Guide (#top)");
    assert.equal(lines[3], "    - Requirements (#requirements)");
    assert.ok(lines.includes("  - Frequently asked questions (#faq) [header only]"));

    const json = await get(server, "/api/sections", { url: GUIDE, format: "json" });
    assert.equal(json.status, 200);
    assert.equal(json.headers.get("x-cache"), "hit");
    assert.equal(json.json.total_sections, 10);
    assert.equal(json.json.sections.length, 10);
    assert.deepEqual(json.json.sections[3], {
      index: 3,
      level: 3,
      title: "Requirements",
      address: "#requirements",
      slug: "requirements",
      id: "requirements",
      parent: 2,
      header_only: false,
    });
    assert.equal(
      json.json.sections.find((s: { title: string }) => s.title.startsWith("Frequently"))
        .header_only,
      true,
    );

    const window = await get(server, "/api/sections", { url: GUIDE, format: "json", slice: "-1" });
    assert.equal(window.json.slice, 0);
    assert.equal(window.json.total_slices, 1);
    assertJsonError(
      await get(server, "/api/sections", { url: GUIDE, format: "text" }),
      400,
      /format must be one of md, json/,
    );
    assertJsonError(
      await get(server, "/api/sections", { url: `${PAGES}/missing` }),
      404,
      /HTTP 404/,
    );
  } finally {
    await server.stop();
  }
});

Deno.test("rest: /api/stream sends status events, then the result or an error", async () => {
  const server = await startServer();
  try {
    const url = `${PAGES}/stream-page`;
    const first = await fetch(apiUrl(server, "/api/stream", { url, query: "kingfisher" }));
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("content-type"), "text/event-stream; charset=utf-8");
    assert.equal(first.headers.get("cache-control"), "no-cache");
    const events = parseSse(await first.text());
    assert.deepEqual(events.map((e) => e.event === "status" ? e.data.stage : e.event), [
      "fetching",
      "converting",
      "extracting",
      "result",
    ]);
    assert.equal(events[0].data.url, url);
    const result = events.at(-1)!.data;
    const json = await get(server, "/api", { url, query: "kingfisher", format: "json" });
    assert.deepEqual({ ...result, cached: true }, json.json, "the format=json record");
    assert.equal(result.cached, false);
    assert.equal(typeof result.extract.original_tokens, "number");

    const again = parseSse(
      await (await fetch(apiUrl(server, "/api/stream", { url, section: "Steps" }))).text(),
    );
    assert.deepEqual(again.map((e) => e.data.stage ?? e.event), ["cached", "extracting", "result"]);
    assert.match(again[2].data.markdown, /^# .+\n\n### Steps/);

    const failed = parseSse(
      await (await fetch(apiUrl(server, "/api/stream", { url: `${PAGES}/missing` }))).text(),
    );
    assert.deepEqual(failed.map((e) => e.event), ["status", "error"]);
    assert.equal(failed[1].data.status, 404);
    assert.match(failed[1].data.error, /HTTP 404/);

    const blocked = parseSse(
      await (await fetch(apiUrl(server, "/api/stream", { url: "http://10.0.0.1/" }))).text(),
    );
    assert.equal(blocked.at(-1)!.event, "error");
    assert.equal(blocked.at(-1)!.data.status, 403);

    assertJsonError(await get(server, "/api/stream"), 400, /missing url/, "missing_url");
    assertJsonError(
      await get(server, "/api/stream", { url, query: "x", max_tokens: "5" }),
      400,
      /max_tokens/,
    );
  } finally {
    await server.stop();
  }
});

Deno.test("rest: several questions on one URL cost one fetch, shared with MCP", async () => {
  const server = await startServer();
  try {
    const url = `${PAGES}/cache-page`;
    const first = await get(server, "/api", { url, query: "how do I install it" });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("x-cache"), "miss");
    const second = await get(server, "/api", { url, query: "which hemisphere" });
    assert.equal(second.headers.get("x-cache"), "hit");
    const outline = await get(server, "/api/sections", { url });
    assert.equal(outline.headers.get("x-cache"), "hit");
    const json = await get(server, "/api", { url, search: "dedupe", format: "json" });
    assert.equal(json.json.cached, true);
    assert.equal(
      (await get(server, "/api", { url, full_page: "true" })).headers.get("x-cache"),
      "miss",
    );

    // REST first, then the MCP tool on the same URL: served from the same cache.
    const shared = `${PAGES}/shared-page`;
    assert.equal((await get(server, "/api", { url: shared })).headers.get("x-cache"), "miss");
    const client = new Client({ name: "rest-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      const result = await client.callTool({
        name: "web_fetch_incisive",
        arguments: { url: shared, section: "Configuration" },
      });
      const text = (result.content as { type: string; text: string }[])[0].text;
      assert.equal(result.isError, undefined, text);
      assert.equal(parseFrontmatter(text)?.cached, true, text.slice(0, 400));
    } finally {
      await client.close();
    }
  } finally {
    await server.stop();
  }
});

Deno.test("rest: /healthz and /openapi.json", async () => {
  const server = await startServer();
  try {
    const health = await get(server, "/healthz");
    assert.equal(health.status, 200);
    assert.deepEqual(health.json, { status: "ok", version: meta.version });

    const spec = await get(server, "/openapi.json");
    assert.equal(spec.status, 200);
    assert.equal(spec.json.openapi, "3.1.0");
    assert.equal(spec.json.info.version, meta.version);
    assert.deepEqual(Object.keys(spec.json.paths).sort(), [...REST_PATHS].sort());
    const names = (path: string) =>
      (spec.json.paths[path].get.parameters as { name: string }[]).map((p) => p.name).sort();
    assert.deepEqual(names("/api"), [...API_PARAMS].sort());
    assert.deepEqual(names("/api/stream"), [...API_PARAMS].sort());
    assert.deepEqual(names("/api/sections"), [...SECTIONS_PARAMS].sort());
    const api = spec.json.paths["/api"].get.responses;
    for (
      const h of [
        "X-Source",
        "X-Cache",
        "X-Extracted",
        "X-Extract-Confidence",
        "X-Extract-Sections",
        "X-Extract-Original-Tokens",
        "X-Extract-Returned-Tokens",
      ]
    ) {
      assert.ok(api["200"].headers[h], h);
    }
    for (const status of ["400", "403", "404", "415", "422", "502", "504"]) {
      assert.ok(api[status], status);
    }
    // A valid OpenAPI 3.1 document (checked against the official schema).
    const validator = new Validator();
    const checked = await validator.validate(spec.json);
    assert.deepEqual(checked, { valid: true }, JSON.stringify(checked.errors));
    assert.equal(validator.version, "3.1");
    // Ranges are the request schema's, not a second copy: max_tokens and the view bounds.
    const params = spec.json.paths["/api"].get.parameters as {
      name: string;
      schema: Record<string, unknown>;
      style?: string;
      explode?: boolean;
    }[];
    const byName = Object.fromEntries(params.map((p) => [p.name, p]));
    assert.equal(byName.max_tokens.schema.minimum, MIN_MAX_TOKENS);
    assert.equal(byName.max_tokens.schema.maximum, MAX_MAX_TOKENS);
    assert.equal(byName.section.schema.type, "array");
    assert.equal(byName.section.explode, true, "section repeats");
    assert.equal(byName.slices.explode, false, "slices are comma-separated");
    assert.equal(byName.query.schema.maxLength, MAX_QUERY_CHARS);
    assert.ok(!spec.text.includes("9007199254740991"), "no zod integer artefacts");
    assert.ok(!spec.text.includes('"$schema"'), "no $schema inside parameters");
    // Every $ref resolves.
    for (const ref of spec.text.matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)) {
      assert.ok(spec.json.components.schemas[ref[1]], ref[1]);
    }
  } finally {
    await server.stop();
  }
});

Deno.test("rest: the /mcp gates apply (Origin, Host); no CORS wildcard", async () => {
  const server = await startServer();
  try {
    for (const path of ["/api", "/api/sections", "/api/stream", "/openapi.json", "/healthz"]) {
      const foreign = await get(server, path, { url: GUIDE }, {
        headers: { origin: "https://evil.example" },
      });
      assertJsonError(foreign, 403, /Origin not allowed/, "forbidden_origin");
      assert.equal(foreign.headers.get("access-control-allow-origin"), null);
    }
    const local = await get(server, "/api", { url: GUIDE }, {
      headers: { origin: `http://localhost:${server.port}` },
    });
    assert.equal(local.status, 200);
    assert.equal(local.headers.get("access-control-allow-origin"), null);
    const path = `/api?url=${encodeURIComponent(GUIDE)}`;
    for (
      const [host, expected] of [
        ["evil.example", 403],
        [`rebind.evil.example:${server.port}`, 403],
        ["", 403],
        [`localhost:${server.port}`, 200],
        [`127.0.0.1:${server.port}`, 200],
      ] as const
    ) {
      assert.equal(await rawGet(server.port, host, path), expected, `host ${host} on /api`);
    }
    assert.equal(await rawGet(server.port, "evil.example", "/healthz"), 403);
    assert.equal(await rawGet(server.port, "evil.example", "/openapi.json"), 403);
  } finally {
    await server.stop();
  }
});

Deno.test("rest: PARKOUR_HTTP_TOKEN is required on every path but /healthz", async () => {
  const token = "rest-" + crypto.randomUUID();
  const server = await startServer({ PARKOUR_HTTP_TOKEN: token });
  try {
    for (const path of ["/api", "/api/sections", "/api/stream", "/openapi.json"]) {
      const none = await get(server, path, { url: GUIDE });
      assertJsonError(none, 401, /Bearer/, "unauthorized");
      assert.match(none.headers.get("www-authenticate") ?? "", /^Bearer/);
      const wrong = await get(server, path, { url: GUIDE }, {
        headers: { authorization: "Bearer nope" },
      });
      assert.equal(wrong.status, 401, path);
    }
    const ok = await get(server, "/api", { url: GUIDE }, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(ok.status, 200);
    assert.match(ok.text, /^# Lantern Field Guide/);
    const health = await get(server, "/healthz");
    assert.equal(health.status, 200);
    assert.equal(health.json.status, "ok");
    const foreignHealth = await get(server, "/healthz", {}, {
      headers: { origin: "https://evil.example" },
    });
    assert.equal(foreignHealth.status, 403, "the token exemption keeps the Origin gate");
  } finally {
    await server.stop();
  }
});

// In process, with a stand-in loader: cancellation and the error table.

const PAGE_HTML = new Document({
  url: "https://docs.example.org/in-process",
  kind: "markdown",
  title: "In process",
  markdown: "# In process\n\nSome text.\n\n## Part\n\nMore text.",
});

Deno.test("rest (in process): closing the stream aborts the load", async () => {
  let seen: AbortSignal | undefined;
  let aborted!: () => void;
  const abortedP = new Promise<void>((resolve) => (aborted = resolve));
  const api = createRestApi({
    load: (_url: string, options: LoadOptions) => {
      seen = options.signal;
      options.onStage?.("fetching");
      return new Promise((_, reject) => {
        options.signal?.addEventListener("abort", () => {
          aborted();
          reject(options.signal!.reason);
        });
      });
    },
  });
  const res = await api.fetch(
    new Request("http://localhost/api/stream?url=https://docs.example.org/slow"),
  );
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const { value } = await reader.read();
  assert.match(value!, /^event: status\ndata: \{"stage":"fetching"/);
  assert.equal(seen?.aborted, false);
  await reader.cancel();
  const timeout = new Promise<string>((r) => {
    const t = setTimeout(() => r("timeout"), 2000);
    abortedP.then(() => clearTimeout(t));
  });
  assert.notEqual(await Promise.race([abortedP.then(() => "aborted"), timeout]), "timeout");
  assert.equal(seen?.aborted, true);

  // /api passes the request's own signal.
  const controller = new AbortController();
  const pending = api.fetch(
    new Request("http://localhost/api?url=https://docs.example.org/slow", {
      signal: controller.signal,
    }),
  );
  await new Promise((r) => setTimeout(r, 10));
  controller.abort();
  const cancelled = await pending;
  assert.equal(cancelled.status, 499);
  await cancelled.body?.cancel();
});

Deno.test("rest (in process): the error table", async () => {
  const cases: [unknown, number, string][] = [
    [new NetError("timeout", "no complete response within 60 s"), 504, "timeout"],
    [new NetError("too_large", "the page is 9 MiB, over the 5 MiB limit"), 502, "too_large"],
    [new NetError("dns", "nowhere.example does not resolve to any address"), 502, "dns"],
    [new NetError("redirect", "redirect loop"), 502, "redirect"],
    [
      new NetError("status", "HTTP 410 for x; check the URL", "x", { remote: { status: 410 } }),
      410,
      "status",
    ],
    [
      new NetError("status", "HTTP 429 for x; wait", "x", { remote: { status: 429 } }),
      502,
      "status",
    ],
    [
      new ContentError("the PDF could not be read"),
      422,
      "unreadable_content",
    ],
    [
      new ContentError("the page did not convert within 20 s", { kind: "too_slow" }),
      422,
      "too_slow",
    ],
    [new Error("boom"), 500, "internal"],
  ];
  for (const [error, status, kind] of cases) {
    const api = createRestApi({ load: () => Promise.reject(error) });
    // The unexpected error is logged on purpose; keep the test output quiet.
    setLogLevel(kind === "internal" ? "off" : "info");
    const res = await api.fetch(new Request("http://localhost/api?url=https://x.example/p"));
    setLogLevel("info");
    const body = await res.json();
    assert.equal(res.status, status, JSON.stringify(body));
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.equal(typeof body.error, "string");
    if (kind) assert.equal(body.kind, kind);
  }
  const ok = createRestApi({
    load: () => Promise.resolve({ doc: PAGE_HTML, cached: false }),
    sourceOf: () => "example",
  });
  const res = await ok.fetch(new Request("http://localhost/api?url=https://x.example/p"));
  assert.equal(res.headers.get("x-source"), "example");
  assert.equal(await res.text(), PAGE_HTML.markdown);
});

Deno.test("rest: markdownToText", () => {
  assert.equal(
    markdownToText(
      "# Title\n\nSome **bold**, *em* and `a|b` with [a link](https://x.example/a) and 2*3*4.\n\n" +
        "> quoted \\[x\\]\n\n| a | b\\|c |\n| --- | --- |\n| 1 | 2 |\n\n```js\nlet x = **1**;\n```\n\n* * *\n\n- item ~~gone~~",
    ),
    "Title\n\nSome bold, em and a|b with a link (https://x.example/a) and 2*3*4.\n\nquoted [x]\n\n" +
      "a\tb|c\n1\t2\n\nlet x = **1**;\n\n- item gone",
  );
});

Deno.test("rest: markdownToText reads a fence opened on a list item's line", () => {
  // As the converter writes a list item whose first child is code (RFC 7616's parameters): the
  // fence after the marker opens code, so the indented fences after it close and open in turn.
  const md =
    "- ```\n  B2 = hour\n  ```\n\n  and if relayed\n\n  ```\n  B2 = hour:relay\n  ```\n\n" +
    "## 2. Signal Operation\n\nA keeper **checks** it.\n\n1. ```\n   replayed = first\n   ```\n2. Next.\n\n### 3.1. Storing\n";
  const text = markdownToText(md);
  assert.match(text, /^2\. Signal Operation$/m);
  assert.match(text, /^3\.1\. Storing$/m);
  assert.match(text, /A keeper checks it\./);
  assert.match(text, /^ {2}B2 = hour:relay$/m);
  for (const marker of [/^#/m, /```/, /\*\*/]) assert.doesNotMatch(text, marker);
});
