/**
 * web_fetch_incisive and web_fetch_sections end to end: the real server over
 * stdio, driven by the SDK v2 client, fetching pages from an HTTP server on
 * 127.0.0.1 (MCP_ALLOW_PRIVATE_IPS=1 lets the address check through for it).
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { ROOT_DIR } from "../support/process.ts";
import { makePdf } from "../support/pdf.ts";
import { callTool, connectServer } from "../support/mcp_client.ts";

const GUIDE = await Deno.readTextFile(`${ROOT_DIR}/fixtures/pages/guide.html`);
const ARTICLE = await Deno.readTextFile(`${ROOT_DIR}/fixtures/pages/news_article.html`);
const LONG = "<html><head><title>Long page</title></head><body>" +
  Array.from(
    { length: 40 },
    (_, i) =>
      `<h2 id="part-${i}">Part ${i}</h2><p>${"Filler words about part " + i + ". ".repeat(1)}${
        "lorem ipsum ".repeat(80)
      }</p>`,
  ).join("") +
  "</body></html>";
const SHELL =
  '<html><head><title>App</title><script src="/app.js"></script></head><body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>';

const hits = new Map<string, number>();
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const path = new URL(req.url).pathname;
  hits.set(path, (hits.get(path) ?? 0) + 1);
  const type = (t: string) => ({ headers: { "content-type": t } });
  switch (path) {
    case "/guide":
      return new Response(GUIDE, type("text/html; charset=utf-8"));
    case "/slow":
      return new Promise((resolve) =>
        setTimeout(() => resolve(new Response(LONG, type("text/html"))), 400)
      );
    case "/long":
      return new Response(LONG, type("text/html"));
    case "/article":
      return new Response(ARTICLE, type("text/html; charset=utf-8"));
    case "/shell":
      return new Response(SHELL, type("text/html"));
    case "/data.json":
      return new Response('{"b":[1,2],"a":{"c":"x"}}', type("application/json"));
    case "/feed.xml":
      return new Response(
        '<?xml version="1.0"?><rss><channel><title>Feed title</title><item>one</item></channel></rss>',
        type("application/rss+xml"),
      );
    case "/notes.txt":
      return new Response("# not a heading in plain text\nline two", type("text/plain"));
    case "/README.md":
      return new Response("# Readme\n\nIntro.\n\n## Usage\n\nRun it.", type("text/plain"));
    case "/doc.pdf":
      return new Response(
        makePdf(["First page about widgets", "Second page about sockets"], "Widget PDF"),
        type("application/pdf"),
      );
    case "/image.png":
      return new Response(new Uint8Array([137, 80, 78, 71]), type("image/png"));
    default:
      return new Response("<h1>Not here</h1>", {
        status: 404,
        headers: { "content-type": "text/html" },
      });
  }
});
const BASE = `http://127.0.0.1:${server.addr.port}`;

const connect = (profile = "desktop"): Promise<Client> =>
  connectServer({
    args: ["--profile", profile],
    env: { MCP_ALLOW_PRIVATE_IPS: "1" },
    replay: false,
    name: "page-tools",
  });
const call = callTool;

const client = await connect();
const clientCode = await connect("code");

Deno.test("web_fetch_sections: the outline with addresses, then the section by address", async () => {
  const outline = await call(client, "web_fetch_sections", { url: `${BASE}/guide` });
  assert.equal(outline.isError, false);
  assert.equal(outline.fm.total_sections, 6);
  assert.equal(outline.fm.content_type, "html");
  // The page's title is the fence's first line, inside it; the markers hold only the label.
  assert.equal(outline.blocks[0].label, "untrusted content");
  assert.deepEqual(outline.body, [
    "# Widget Field Guide",
    "",
    "- Widget Field Guide (#top)",
    "  - Choosing a widget (#choosing)",
    "    - Sizes (#sizes)",
    "  - Fitting a widget (#fitting)",
    "    - Care (#care)",
    "  - Frequently asked (#faq)",
  ]);
  assert.match(
    String(outline.fm.hint),
    /read a section: web_fetch_incisive with section=<name or #id>/,
  );
  const section = await call(client, "web_fetch_incisive", {
    url: `${BASE}/guide`,
    section: "#sizes",
  });
  assert.equal(section.fm.cached, true, "the outline call cached the page");
  assert.ok(section.body.includes("| S | 10 | toys |"));
  assert.equal(hits.get("/guide"), 1, "one fetch for both calls");
});

Deno.test("web_fetch_incisive: sections by name, slug, fragment, several, auto_expand, not found", async () => {
  const url = `${BASE}/guide`;
  const byName = await call(client, "web_fetch_incisive", { url, section: "Choosing a widget" });
  assert.ok(byName.body.some((l) => l.includes("is a small mechanical part")));
  assert.ok(
    !byName.body.some((l) => l.includes("| S | 10")),
    "subsections not included by default",
  );
  assert.match(String(byName.fm.note), /subsections are separate/);
  const expanded = await call(client, "web_fetch_incisive", {
    url,
    section: "choosing",
    auto_expand: true,
  });
  assert.ok(expanded.body.some((l) => l.includes("| S | 10")));
  const fragment = await call(client, "web_fetch_incisive", { url: `${url}#dfn-widget` });
  assert.ok(
    fragment.body.includes("## Choosing a widget"),
    "an id inside a section resolves to the section",
  );
  const both = await call(client, "web_fetch_incisive", {
    url,
    section: ["Care", "Frequently asked"],
  });
  assert.equal(both.fm.sections_returned, 2);
  const ignored = await call(client, "web_fetch_incisive", { url: `${url}#faq`, section: "Care" });
  assert.match(String(ignored.fm.warning), /fragment was ignored/);
  assert.ok(ignored.body.includes("### Care"));
  const missing = await call(client, "web_fetch_incisive", {
    url,
    section: ["Sizing", "Zebra crossing"],
  });
  assert.deepEqual(missing.fm.sections_not_found, ["Sizing", "Zebra crossing"]);
  assert.ok(missing.body.includes('Closest matches for "Sizing":'));
  assert.ok(missing.body.some((l) => l.includes("Sizes (#sizes)")));
});

Deno.test("web_fetch_incisive: search and slices, and their conflicts", async () => {
  const url = `${BASE}/long`;
  const found = await call(client, "web_fetch_incisive", { url, search: '"part 17"' });
  assert.equal(found.isError, false);
  const matched = found.fm.matched_slices as number[];
  assert.ok(matched.length >= 1);
  assert.ok(
    found.body.some((l) => /^--- slice \d+ \(Part 17/.test(l)),
    found.body.slice(0, 5).join("\n"),
  );
  const neighbours = await call(client, "web_fetch_incisive", {
    url,
    slices: [matched[0] + 1, 999],
  });
  assert.deepEqual(neighbours.fm.slices, [matched[0] + 1]);
  assert.deepEqual(neighbours.fm.slices_not_found, [999]);
  const none = await call(client, "web_fetch_incisive", { url, search: "zebra" });
  assert.equal(none.fm.matched_slices, "none");
  assert.match(String(none.fm.hint), /no slice matched/);
  const dropped = await call(client, "web_fetch_incisive", { url, search: 'part ) "unclosed' });
  assert.match(String(dropped.fm.warning), /search: /);
  const conflict = await call(client, "web_fetch_incisive", { url, search: "x", slices: [1] });
  assert.equal(conflict.isError, true);
  assert.match(conflict.text, /^Error: search and slices cannot be combined/);
  const conflict2 = await call(client, "web_fetch_incisive", { url: `${url}#part-3`, search: "x" });
  assert.equal(
    conflict2.isError,
    false,
    "a fragment is not a section request when search is given",
  );
  const conflict3 = await call(client, "web_fetch_incisive", {
    url,
    search: "x",
    section: "Part 1",
  });
  assert.match(conflict3.text, /^Error: section and search cannot be combined: use one of/);
});

Deno.test("web_fetch_incisive: a long page is cut at a block boundary and lists its sections", async () => {
  const cut = await call(client, "web_fetch_incisive", { url: `${BASE}/long`, max_tokens: 600 });
  assert.equal(cut.fm.truncated, true);
  assert.ok((cut.fm.returned_tokens as number) <= 600);
  assert.ok((cut.fm.total_tokens as number) > 5000);
  assert.match(String(cut.fm.hint), /sections are listed at the end/);
  const at = cut.body.indexOf("Sections:");
  assert.ok(at > 0);
  assert.equal(cut.body[at + 1], "- Part 0 (#part-0)");
  // The section list is inside the budget: as many as fit, then where the rest are.
  const listed = cut.body.filter((l) => l.startsWith("- Part ")).length;
  assert.ok(listed >= 10 && listed < 40, `listed ${listed}`);
  assert.equal(cut.body.at(-1), `(… ${40 - listed} more sections in the outline)`);
});

Deno.test("web_fetch_incisive: JavaScript shells, requires_js and actions", async () => {
  const shell = await call(client, "web_fetch_incisive", { url: `${BASE}/shell` });
  assert.equal(shell.isError, false);
  assert.match(String(shell.fm.hint), /requires_js=true/);
  // The start task has no permission to run a browser: rendering says which flags it needs
  // (tests/render/ renders for real with the start:render task).
  const js = await call(client, "web_fetch_incisive", { url: `${BASE}/guide`, requires_js: true });
  assert.equal(js.isError, true);
  assert.match(js.text, /--allow-run/);
  const actions = await call(client, "web_fetch_incisive", {
    url: `${BASE}/guide`,
    actions: [{ type: "click", selector: "#go" }],
  });
  assert.equal(actions.isError, true);
  assert.match(actions.text, /--allow-run/);
});

Deno.test("web_fetch_incisive: JSON, XML, text, Markdown and PDF; other types are refused", async () => {
  const json = await call(client, "web_fetch_incisive", { url: `${BASE}/data.json` });
  assert.equal(json.fm.content_type, "json");
  assert.equal(json.blocks[0].label, "untrusted content");
  assert.deepEqual(json.body, [
    "# data.json",
    "",
    "```json",
    "{",
    '  "b": [',
    "    1,",
    "    2",
    "  ],",
    '  "a": {',
    '    "c": "x"',
    "  }",
    "}",
    "```",
  ]);
  const xml = await call(client, "web_fetch_incisive", { url: `${BASE}/feed.xml` });
  assert.equal(xml.fm.content_type, "xml");
  assert.equal(xml.blocks[0].label, "untrusted content");
  assert.equal(xml.body[0], "# Feed title");
  const text = await call(client, "web_fetch_sections", { url: `${BASE}/notes.txt` });
  assert.equal(text.fm.total_sections, 0, "plain text lines are not headings");
  const md = await call(client, "web_fetch_sections", { url: `${BASE}/README.md` });
  assert.equal(md.fm.content_type, "markdown");
  assert.equal(md.fm.total_sections, 2);
  const pdf = await call(client, "web_fetch_incisive", {
    url: `${BASE}/doc.pdf`,
    section: "Page 2",
  });
  assert.equal(pdf.fm.content_type, "pdf");
  assert.equal(pdf.fm.pages, 2);
  assert.ok(pdf.body.includes("Second page about sockets"));
  const png = await call(client, "web_fetch_incisive", { url: `${BASE}/image.png` });
  assert.equal(png.isError, true);
  assert.match(
    png.text,
    /image\/png, which cannot be read as text; supported: HTML, XHTML, Markdown, plain text, JSON, XML \(including RSS and Atom\) and PDF/,
  );
  const missing = await call(client, "web_fetch_incisive", { url: `${BASE}/nowhere` });
  assert.equal(missing.isError, true);
  assert.match(missing.text, /^Error: HTTP 404 for .*\/nowhere; check the URL/);
  assert.match(missing.text, /│ Not here/);
});

Deno.test("page tools in the code profile name their siblings in PascalCase", async () => {
  const tools = (await clientCode.listTools()).tools;
  const names = tools.map((t) => t.name);
  assert.deepEqual(names.slice(0, 2), ["WebFetchSections", "WebFetchIncisive"]);
  for (const name of names) assert.match(name, /^[A-Z][A-Za-z]+$/, `${name} is PascalCase`);
  const outline = await call(clientCode, "WebFetchSections", { url: `${BASE}/long` });
  assert.match(String(outline.fm.hint), /WebFetchIncisive/);
  const description = tools[1].description!;
  assert.match(description, /call WebFetchSections\s+first/);
  assert.ok(!description.includes("{tool:"));
});

Deno.test("page tools: main content by default, the whole page with full_page=true", async () => {
  const main = await call(client, "web_fetch_incisive", { url: `${BASE}/article` });
  assert.equal(main.isError, false);
  const text = main.body.join("\n");
  assert.match(text, /The harbour bridge reopened to traffic/);
  assert.doesNotMatch(text, /School roof fixed|About time!|Most read/);
  assert.ok((main.fm.dropped_text_share as number) > 0.3);
  assert.match(String(main.fm.note), /left out \d+% of the page's text.*full_page=true/);
  assert.equal(main.fm.full_page, undefined);

  const whole = await call(client, "web_fetch_incisive", {
    url: `${BASE}/article`,
    full_page: true,
  });
  assert.equal(whole.isError, false);
  const all = whole.body.join("\n");
  for (
    const t of ["The harbour bridge reopened", "School roof fixed", "About time!", "Most read"]
  ) {
    assert.ok(all.includes(t), t);
  }
  assert.equal(whole.fm.full_page, true);
  assert.equal(whole.fm.dropped_text_share, undefined);
  // The two conversions are cached apart: each was fetched once, then both are cached.
  assert.equal(hits.get("/article"), 2);
  const again = await call(client, "web_fetch_incisive", {
    url: `${BASE}/article`,
    search: "comments",
  });
  assert.equal(again.fm.cached, true);
  assert.equal(again.fm.matched_slices, "none");
  const againWhole = await call(client, "web_fetch_incisive", {
    url: `${BASE}/article`,
    search: "comments",
    full_page: true,
  });
  assert.equal(againWhole.fm.cached, true);
  assert.ok(Array.isArray(againWhole.fm.matched_slices));
  assert.equal(hits.get("/article"), 2);

  const outline = await call(client, "web_fetch_sections", { url: `${BASE}/article` });
  assert.doesNotMatch(outline.body.join("\n"), /Most read|12 comments/);
  assert.match(outline.body.join("\n"), /What changes for commuters/);
  const fullOutline = await call(client, "web_fetch_sections", {
    url: `${BASE}/article`,
    full_page: true,
  });
  assert.match(fullOutline.body.join("\n"), /Most read/);
  assert.match(fullOutline.body.join("\n"), /12 comments/);
  assert.equal(fullOutline.fm.full_page, true);
});

Deno.test("web_fetch_incisive: query returns the answering sections with extract fields", async () => {
  const url = `${BASE}/long`;
  const answer = await call(client, "web_fetch_incisive", {
    url,
    query: "what is said about part 27?",
    max_tokens: 200,
  });
  assert.equal(answer.isError, false, answer.text);
  assert.equal(answer.fm.extracted, true);
  assert.equal(answer.fm.extract_confidence, "high");
  assert.ok(Number(answer.fm.sections_selected) >= 1);
  assert.ok(Number(answer.fm.original_tokens) > 5000);
  assert.ok(Number(answer.fm.returned_tokens) <= 200);
  assert.ok(answer.body.some((l) => l.includes("Filler words about part 27.")), answer.text);
  assert.ok(answer.body.includes("## Part 27"), "with its heading");
  assert.ok(answer.body.includes("[…]"), "gaps are marked");
  assert.equal(answer.fm.query, "what is said about part 27?");

  const none = await call(client, "web_fetch_incisive", { url, query: "zebra xylophone" });
  assert.equal(none.fm.extracted, false);
  assert.equal(none.fm.extract_confidence, "low");
  assert.match(String(none.fm.note), /no part of the page matched the question/);
  assert.equal(
    none.fm.truncated,
    true,
    "the whole-page fallback still honours the response budget",
  );

  const small = await call(client, "web_fetch_incisive", {
    url: `${BASE}/guide`,
    query: "how do I care for a widget",
  });
  assert.equal(small.fm.extracted, false);
  assert.equal(small.fm.extract_confidence, undefined, "no confidence for a page returned whole");
  assert.match(String(small.fm.note), /the page is short/);
});

Deno.test("web_fetch_incisive: query's budget range and its conflicts with other views", async () => {
  const url = `${BASE}/long`;
  for (const max_tokens of [49, 25001]) {
    const bad = await call(client, "web_fetch_incisive", { url, query: "part", max_tokens });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /max_tokens must be a whole number from 50 to 25000/);
  }
  const both = await call(client, "web_fetch_incisive", { url, query: "part", search: "part" });
  assert.equal(both.isError, true);
  assert.match(both.text, /query and search cannot be combined/);
  const fragment = await call(client, "web_fetch_incisive", {
    url: `${url}#part-3`,
    query: "part 5",
    max_tokens: 100,
  });
  assert.match(String(fragment.fm.warning), /fragment was ignored because query was given/);
});

Deno.test("page tools: concurrent calls for one uncached page share one fetch", async () => {
  const before = hits.get("/slow") ?? 0;
  const answers = await Promise.all([
    call(client, "web_fetch_incisive", { url: `${BASE}/slow`, query: "part 3", max_tokens: 100 }),
    call(client, "web_fetch_incisive", { url: `${BASE}/slow`, search: "part" }),
    call(clientCode, "WebFetchIncisive", { url: `${BASE}/slow`, section: "Part 4" }),
  ]);
  for (const a of answers.slice(0, 2)) assert.equal(a.isError, false, a.text);
  assert.equal(hits.get("/slow")! - before, 2, "one fetch per server process, not per call");
});

Deno.test({
  name: "page tools: shutdown",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await client.close();
    await clientCode.close();
    await server.shutdown();
  },
});
