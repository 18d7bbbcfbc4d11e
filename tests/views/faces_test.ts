/**
 * One request, one view, four faces: the same page requests through the MCP
 * tool (the real server over stdio, driven by the SDK client), the HTTP API
 * (the real `serve --http` process), the CLI (the real `fetch` command) and
 * the library (`fetchPage().read()`), on pages served by this test on
 * 127.0.0.1. Each case asserts that the four bodies are the same; then
 * unknown parameters and the hints are checked face by face.
 */
import assert from "node:assert/strict";
import { callTool, startServer } from "../support/mcp_client.ts";
import { childEnv, HttpServerProcess, runCli } from "../support/process.ts";

const LIBRARY = new URL("../support/library_read.ts", import.meta.url).pathname;

const LONG = "<html><head><title>Long page</title></head><body><h1>Long page</h1>" +
  Array.from(
    { length: 30 },
    (_, i) =>
      `<h2 id="part-${i}">Part ${i}</h2><p>Notes on part ${i}: the widget number ${i} is ${
        i * 7
      } millimetres wide. ${"Filler text about nothing in particular. ".repeat(30)}</p>` +
      (i % 5 === 0 ? `<h3 id="detail-${i}">Detail ${i}</h3><p>Detail text ${i}.</p>` : ""),
  ).join("") + "</body></html>";
const HUGE = "<html><head><title>Huge page</title></head><body>" +
  Array.from(
    { length: 400 },
    (_, i) =>
      `<h2 id="s-${i}">Section ${i}</h2><p>${`Sentence ${i} of the huge page. `.repeat(60)}</p>`,
  ).join("") + "</body></html>";
const SHELL =
  '<html><head><title>App</title><script src="/app.js"></script></head><body><noscript>Enable JavaScript.</noscript><div id="root"></div></body></html>';

const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const path = new URL(req.url).pathname;
  const html = { headers: { "content-type": "text/html; charset=utf-8" } };
  if (path === "/long") return new Response(LONG, html);
  if (path === "/shell") return new Response(SHELL, html);
  if (path === "/huge") return new Response(HUGE, html);
  return new Response("not here", { status: 404 });
});
const BASE = `http://127.0.0.1:${upstream.addr.port}`;
const PAGE = `${BASE}/long`;

const env = { MCP_ALLOW_PRIVATE_IPS: "1" };
const mcp = await startServer({ env, replay: false });
const http = await HttpServerProcess.start(undefined, [], env);

type Request = Record<string, unknown>;

/**
 * The page's title: the envelope's fence and REST show it as the body's first
 * line (once: not before the page's own heading); the fence's markers hold
 * only the label and the id.
 */
const TITLE_LINE = "# Long page\n\n";

/** The body each face returns for `request` (page text only), and whether it found what was asked. */
interface Reading {
  body: string;
  found: boolean;
  /** MCP: the fence's whole text, its title line included. */
  fenced?: string;
}

async function viaMcp(request: Request): Promise<Reading> {
  const a = await callTool(mcp.client, "web_fetch_incisive", { url: PAGE, ...request });
  assert.equal(a.isError, false, a.text);
  const notFound = a.fm.sections_not_found !== undefined && a.fm.sections_returned === undefined;
  const fenced = notFound ? "" : (a.fences[0] ?? []).join("\n");
  if (!notFound) {
    assert.equal(a.blocks[0].label, "untrusted content");
    assert.ok(fenced.startsWith(TITLE_LINE), fenced.slice(0, 60));
  }
  return { body: fenced, found: !notFound && a.fm.slices_not_found === undefined, fenced };
}

async function viaRest(request: Request): Promise<Reading> {
  const url = new URL("/api", http.url);
  url.searchParams.set("url", PAGE);
  url.searchParams.set("format", "json");
  for (const [k, v] of Object.entries(request)) {
    if (Array.isArray(v)) {
      if (k === "slices") url.searchParams.set(k, v.join(","));
      else for (const x of v) url.searchParams.append(k, String(x));
    } else url.searchParams.set(k, String(v));
  }
  const res = await fetch(url);
  const json = await res.json();
  if (res.status === 404) return { body: "", found: false };
  assert.equal(res.status, 200, JSON.stringify(json));
  return { body: json.markdown, found: json.slices_not_found === undefined };
}

function cliArgs(request: Request): string[] {
  const args: string[] = [];
  for (const [k, v] of Object.entries(request)) {
    const flag = `--${k.replaceAll("_", "-")}`;
    if (v === true) args.push(flag);
    else if (Array.isArray(v)) {
      if (k === "slices") args.push(flag, v.join(","));
      else for (const x of v) args.push(flag, String(x));
    } else args.push(flag, String(v));
  }
  return args;
}

async function viaCli(request: Request): Promise<Reading> {
  const r = await runCli(["fetch", PAGE, ...cliArgs(request), "--format", "json"], env);
  const json = JSON.parse(r.stdout);
  const fm = json.frontmatter;
  const notFound = fm.sections_not_found !== undefined && fm.sections_returned === undefined;
  assert.equal(r.code, notFound || fm.slices === undefined && fm.slices_not_found ? 1 : 0);
  const body = notFound ? "" : json.content[0] ?? "";
  return { body, found: !notFound && !fm.slices_not_found };
}

/** `fetchPage(PAGE).read(request)` in a process of its own. */
async function libraryRead(request: Request): Promise<Record<string, unknown>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", LIBRARY, PAGE, JSON.stringify(request)],
    env: childEnv({ MCP_ALLOW_PRIVATE_IPS: "1" }),
    clearEnv: true,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

async function viaLibrary(request: Request): Promise<Reading> {
  const r = await libraryRead(request);
  return { body: r.found ? String(r.text) : "", found: r.found === true };
}

/** The table of view cases: each view, a not-found, paging, a cut at the budget. */
const CASES: { name: string; request: Request; expect: (body: string) => void }[] = [
  {
    name: "page cut at the budget, its section list inside the budget",
    request: { max_tokens: 600 },
    expect: (body) => {
      assert.match(body, /^Sections:$/m);
      assert.match(body, /^\(… \d+ more sections in the outline\)$/m);
    },
  },
  {
    name: "one section by name",
    request: { section: "Part 3", max_tokens: 5000 },
    expect: (body) =>
      assert.match(body, /^## Part 3\n\nNotes on part 3: the widget number 3 is 21/),
  },
  {
    name: "several sections, with subsections",
    request: { section: ["Part 5", "part-6"], auto_expand: true, max_tokens: 5000 },
    expect: (body) => {
      assert.match(body, /^### Detail 5$/m);
      assert.match(body, /^## Part 6$/m);
    },
  },
  {
    name: "a section cut at its budget",
    request: { section: "Part 4", max_tokens: 50 },
    expect: (body) => assert.ok(body.length > 0 && body.length < 400, body),
  },
  {
    name: "search",
    request: { search: '"widget number 12"', max_tokens: 5000 },
    expect: (body) => assert.match(body, /^--- slice \d+ \(.*Part 12.*\) ---$/m),
  },
  {
    name: "slices from the start and the end",
    request: { slices: [0, -1], max_tokens: 5000 },
    expect: (body) => assert.equal(body.match(/^--- slice \d+ /gm)?.length, 2),
  },
  {
    name: "a question within a small budget",
    request: { query: "how wide is widget number 9?", max_tokens: 200 },
    expect: (body) => assert.match(body, /widget number 9 is 63 millimetres/),
  },
  {
    name: "a section that does not exist",
    request: { section: "Prat 3", max_tokens: 5000 },
    expect: (body) => assert.equal(body, ""),
  },
];

Deno.test("views: MCP, REST, CLI and the library return the same body for the same request", async (t) => {
  for (const c of CASES) {
    await t.step(c.name, async () => {
      const [m, r, cli, lib] = await Promise.all([
        viaMcp(c.request),
        viaRest(c.request),
        viaCli(c.request),
        viaLibrary(c.request),
      ]);
      // The CLI's json and the library give the page text alone; the envelope's fence and
      // REST open it with the title line, unless the text opens with that heading already.
      c.expect(cli.body);
      const titled = cli.body === "" || cli.body.startsWith(TITLE_LINE)
        ? cli.body
        : TITLE_LINE + cli.body;
      assert.equal(m.fenced, titled, "MCP fence = the title line and the CLI body");
      assert.equal(r.body, m.fenced, "REST body = MCP fence");
      assert.equal(lib.body, cli.body, "library body = CLI body");
      assert.equal(r.found, m.found);
      assert.equal(cli.found, m.found);
    });
  }
});

Deno.test("views: a missing section's suggestions are the same on every face", async () => {
  const a = await callTool(mcp.client, "web_fetch_incisive", { url: PAGE, section: "Prat 3" });
  assert.match(a.text, /Closest matches for "Prat 3":\n.*- Part 3 \(#part-3\)/);
  const url = new URL("/api", http.url);
  url.search = new URLSearchParams({ url: PAGE, section: "Prat 3" }).toString();
  const res = await fetch(url);
  const json = await res.json();
  assert.equal(res.status, 404);
  assert.equal(json.sections_not_found[0].suggestions[0], "Part 3");
  const lib = await libraryRead({ section: "Prat 3" });
  assert.equal(lib.found, false);
  assert.equal((lib.notFound as { suggestions: string[] }[])[0].suggestions[0], "Part 3");
  const cli = await runCli(["fetch", PAGE, "--section", "Prat 3"], env);
  assert.equal(cli.code, 1, "not found is not success");
  assert.match(cli.stdout, /- Part 3 \(#part-3\)/);
});

Deno.test("views: unknown and misspelled parameters are refused with the closest name", async () => {
  const a = await callTool(mcp.client, "web_fetch_incisive", {
    url: PAGE,
    sections: "Part 1",
    max_token: 300,
  });
  assert.equal(a.isError, true);
  assert.match(a.text, /unknown parameter 'max_token'; did you mean 'max_tokens'\?/);
  assert.match(a.text, /unknown parameter 'sections'; did you mean 'section'\?/);
  const o = await callTool(mcp.client, "web_fetch_sections", { url: PAGE, slices: 1 });
  assert.equal(o.isError, true);
  assert.match(o.text, /unknown parameter 'slices'; did you mean 'slice'\?/);

  const rest = await fetch(
    new URL(`/api?url=${encodeURIComponent(PAGE)}&fromat=json`, http.url),
  );
  const body = await rest.json();
  assert.equal(rest.status, 400);
  assert.equal(body.kind, "unknown_parameter");
  assert.match(body.error, /unknown parameter 'fromat'; did you mean 'format'\?/);
  const restOutline = await fetch(
    new URL(`/api/sections?url=${encodeURIComponent(PAGE)}&max_tokens=5`, http.url),
  );
  assert.equal(restOutline.status, 400);
  assert.match((await restOutline.json()).error, /unknown parameter 'max_tokens'/);

  const cli = await runCli(["fetch", PAGE, "--max-token", "300"], env);
  assert.equal(cli.code, 2);
  assert.match(cli.stderr, /unknown flag '--max-token' for 'fetch'; did you mean '--max-tokens'\?/);
  const cliRange = await runCli(["fetch", PAGE, "--max-tokens", "20"], env);
  assert.equal(cliRange.code, 2);
  assert.match(cliRange.stderr, /--max-tokens must be a whole number from 50 to 25000 \(got 20\)/);

  const lib = await libraryRead({ max_token: 300 });
  assert.match(String(lib.error), /unknown parameter 'max_token'; did you mean 'max_tokens'\?/);
});

// A tool parameter written the MCP way (`name=`), and a command-line flag.
const MCP_PARAM = /\b(section|search|slices?|max_tokens|requires_js|full_page|auto_expand)=/;
const CLI_FLAG = /(^|\s)--[a-z][a-z-]+/;

function hintsOf(fm: Record<string, unknown>): string {
  return [fm.hint, fm.note].flat().filter(Boolean).join("\n");
}

Deno.test("views: each face shows its own way forward and none shows another's names", async (t) => {
  await t.step("a cut page", async () => {
    const a = await callTool(mcp.client, "web_fetch_incisive", { url: PAGE, max_tokens: 300 });
    assert.match(hintsOf(a.fm), /read one with section=<name or #id>/);
    assert.doesNotMatch(a.text, CLI_FLAG);
    const cli = await runCli(["fetch", PAGE, "--max-tokens", "300", "--format", "json"], env);
    const hints = hintsOf(JSON.parse(cli.stdout).frontmatter);
    assert.match(hints, /fetch http:\/\/127\.0\.0\.1:\d+\/long --section '<name or #id>'/);
    assert.doesNotMatch(hints, MCP_PARAM);
    const rest = await (await fetch(
      new URL(`/api?url=${encodeURIComponent(PAGE)}&max_tokens=300&format=json`, http.url),
    )).json();
    assert.match(
      rest.hints.join("\n"),
      /\/api\?url=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Flong&section=/,
    );
    assert.doesNotMatch(rest.hints.join("\n"), CLI_FLAG);
  });

  await t.step("a missing section", async () => {
    const a = await callTool(mcp.client, "web_fetch_incisive", { url: PAGE, section: "Nothing" });
    assert.match(hintsOf(a.fm), /full outline with web_fetch_sections/);
    assert.doesNotMatch(a.text, CLI_FLAG);
    const cli = await runCli(["fetch", PAGE, "--section", "Nothing", "--format", "json"], env);
    const hints = hintsOf(JSON.parse(cli.stdout).frontmatter);
    assert.match(hints, /full outline with \S.* sections http:\/\/127\.0\.0\.1:\d+\/long/);
    assert.doesNotMatch(hints, MCP_PARAM);
    assert.doesNotMatch(hints, /web_fetch_/);
  });

  await t.step("a JavaScript shell", async () => {
    const url = `${BASE}/shell`;
    const a = await callTool(mcp.client, "web_fetch_incisive", { url });
    assert.match(hintsOf(a.fm), /retry with requires_js=true/);
    const outline = await callTool(mcp.client, "web_fetch_sections", { url });
    assert.match(hintsOf(outline.fm), /retry with web_fetch_incisive with requires_js=true/);
    const cli = await runCli(["fetch", url, "--format", "json"], env);
    const hints = hintsOf(JSON.parse(cli.stdout).frontmatter);
    assert.match(hints, /retry with \S.* fetch http:\/\/127\.0\.0\.1:\d+\/shell --requires-js/);
    assert.doesNotMatch(hints, MCP_PARAM);
  });

  await t.step("the outline's paging", async () => {
    const a = await callTool(mcp.client, "web_fetch_sections", { url: PAGE });
    assert.match(hintsOf(a.fm), /read a section: web_fetch_incisive with section=<name or #id>/);
    const cli = await runCli(["sections", PAGE, "--format", "json"], env);
    const hints = hintsOf(JSON.parse(cli.stdout).frontmatter);
    assert.match(hints, /read a section: \S.* fetch http:\/\/127\.0\.0\.1:\d+\/long --section/);
    assert.doesNotMatch(hints, MCP_PARAM);
  });
});

Deno.test("views: budgets include everything the view returns", async () => {
  for (const max_tokens of [200, 600, 2000]) {
    const a = await callTool(mcp.client, "web_fetch_incisive", { url: PAGE, max_tokens });
    assert.ok(
      (a.fm.returned_tokens as number) <= max_tokens,
      `returned ${a.fm.returned_tokens} > ${max_tokens}`,
    );
  }
  const miss = await callTool(mcp.client, "web_fetch_incisive", {
    url: PAGE,
    section: ["Part 2", "Nothing at all"],
    max_tokens: 100,
  });
  assert.equal(typeof miss.fm.returned_tokens, "number");
  assert.ok((miss.fm.returned_tokens as number) <= 100, String(miss.fm.returned_tokens));
  // At the largest budget the response cap does not cut what the hint promises.
  const huge = await callTool(mcp.client, "web_fetch_incisive", {
    url: `${BASE}/huge`,
    max_tokens: 25000,
  });
  assert.equal(huge.fm.truncated, true);
  assert.match(hintsOf(huge.fm), /its sections are listed at the end/);
  assert.doesNotMatch(hintsOf(huge.fm), /cut to fit the size cap/);
  assert.equal(huge.fm.original_tokens, undefined, "the response cap did not apply");
  assert.ok(huge.body.includes("Sections:"), "the section list is there");
  assert.match(huge.body.at(-1) ?? "", /more sections in the outline\)$|^- Section 399 /);
});

Deno.test("views: shutdown", async () => {
  await mcp.client.close();
  await http.stop();
  await upstream.shutdown();
});
