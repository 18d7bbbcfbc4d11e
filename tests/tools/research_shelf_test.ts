/**
 * research_shelf end to end: the real server over stdio, driven by the SDK
 * client in both protocol eras. Works reach the shelf through the import
 * action (passive tracking is tested on lib/shelf); the exports are parsed
 * by Citation.js; the `research://shelf` resource is read with a real
 * client; `--shelf kv:PATH` keeps the shelf across restarts, and two server
 * processes writing to one store at once lose nothing.
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/client";
import { Cite } from "@citation-js/core";
import "@citation-js/plugin-bibtex";
import "@citation-js/plugin-ris";
import { envelopeReady, parseFences, parseFrontmatter } from "../../mod.ts";
import { replaySetup, runCli } from "../support/process.ts";
import { callTool, connectServer } from "../support/mcp_client.ts";

// The frontmatter serializer loads on first need (the package entry awaits nothing).
await envelopeReady();

interface Options {
  profile?: string;
  era?: "modern" | "legacy";
  args?: string[];
  env?: Record<string, string>;
  flags?: string[];
}

// The writing actions (confirm, score, note, remove, import, clear) are off unless enabled.
const connect = (options: Options = {}): Promise<Client> =>
  connectServer({
    args: [
      "--profile",
      options.profile ?? "desktop",
      "--enable-mutating-tools",
      ...(options.args ?? []),
    ],
    env: options.env,
    replay: false,
    extraFlags: options.flags,
    name: options.era === "legacy" ? "shelf-legacy" : "shelf-modern",
    unpinned: options.era === "legacy",
  });
async function call(client: Client, args: Record<string, unknown>, name = "research_shelf") {
  const a = await callTool(client, name, args);
  return { ...a, body: a.fences };
}

function record(doi: string, title: string, extra: Record<string, unknown> = {}) {
  return { doi, title, authors: ["Doe, Jane"], year: 2020, venue: "Journal of Tests", ...extra };
}

const SAVED = JSON.stringify({
  active: {
    "10.1038/nature14539": record("10.1038/nature14539", "Deep learning", {
      authors: ["LeCun, Yann", "Bengio, Yoshua"],
      venue: "Nature",
      kind: "article",
      score: 8,
    }),
    "10.48550/arXiv.1706.03762": record(
      "10.48550/arXiv.1706.03762",
      "Attention Is All You Need | with {braces} & 100% _odd_ chars",
      { authors: ["Vaswani, Ashish"], venue: null, kind: "preprint", arxiv_id: "1706.03762" },
    ),
    "10.17487/RFC9110": record("10.17487/RFC9110", "HTTP Semantics", {
      authors: ["Fielding, R."],
      year: 2022,
      venue: "IETF",
      kind: "rfc",
      rfc_number: 9110,
      source_tool: "ietf",
    }),
  },
  retracted: {
    "10.1016/S0140-6736(20)31180-6": record("10.1016/S0140-6736(20)31180-6", "Retracted study", {
      retraction: {
        kind: "retraction",
        notice_doi: "10.1016/S0140-6736(20)31324-6",
        date: "2020-06-05",
        source: "retraction-watch",
      },
    }),
  },
});

const client = await connect();

Deno.test("research_shelf is listed as a destructive, closed-world tool", async () => {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === "research_shelf");
  assert.ok(tool);
  assert.equal(tool.annotations?.destructiveHint, true);
  assert.equal(tool.annotations?.readOnlyHint, false);
  assert.equal(tool.annotations?.openWorldHint, false);
});

Deno.test("research_shelf: import, list, annotate, export, remove, clear", async () => {
  const empty = await call(client, { action: "list" });
  assert.equal(empty.isError, false);
  assert.match(String(empty.fm.note), /the shelf is empty/);

  const imported = await call(client, { action: "import", data: SAVED });
  assert.equal(imported.isError, false, imported.text);
  assert.equal(imported.fm.created, 4);
  assert.equal(imported.fm.retracted, 1);
  assert.equal(
    imported.fm.shelf,
    "3 tracked (0 confirmed, 1 retracted) — use research_shelf to review",
  );

  const list = await call(client, { action: "list" });
  assert.equal(list.fm.active, 3);
  assert.equal(list.fm.retracted, 1);
  assert.match(String(list.fm.note), /1 retracted entries not shown/);
  const table = list.body[0].join("\n");
  assert.match(table, /^# Active \(citable\)/);
  assert.match(table, /\| # \| score \| status \| year \| title \| doi \| source \| note \|/);
  assert.match(table, /Attention Is All You Need \\\| with \{braces\}/, "pipes escaped in cells");
  assert.doesNotMatch(table, /Retracted study/, "the retracted work is not in the active list");
  // Titles stay out of the frontmatter.
  assert.doesNotMatch(list.text.split("\n---")[0], /Deep learning/);

  const retracted = await call(client, { action: "list", section: "retracted" });
  assert.match(retracted.body[0].join("\n"), /Retracted study.*10\.1016\/s0140-6736\(20\)31324-6/);
  const all = await call(client, { action: "list", section: "all" });
  assert.equal(all.body.length, 2);

  assert.equal(
    (await call(client, { action: "confirm", doi: "https://doi.org/10.1038/NATURE14539" })).fm
      .confirmed,
    true,
  );
  const scored = await call(client, {
    action: "score",
    doi: "10.48550/arxiv.1706.03762",
    score: 9,
  });
  assert.equal(scored.fm.score, 9);
  assert.equal(scored.fm.doi, "10.48550/arxiv.1706.03762");
  assert.equal(
    (await call(client, { action: "note", doi: "10.17487/rfc9110", text: "core spec" })).fm
      .note_set,
    true,
  );
  const annotated = await call(client, { action: "list" });
  const rows = annotated.body[0].join("\n");
  assert.match(rows, /\| 8 \| confirmed \| 2020 \| Deep learning \|/);
  assert.match(rows, /\| 9 \| +\| 2020 \| Attention/);
  assert.match(rows, /core spec/);

  // BibTeX: fenced lines are the file; Citation.js parses them.
  const bib = await call(client, { action: "export", format: "bibtex" });
  assert.equal(bib.fm.entries, 3);
  assert.equal(bib.fm.with_retracted, false);
  assert.match(String(bib.fm.note), /1 retracted entries left out/);
  const bibText = bib.body[0].join("\n");
  const parsed = new Cite(bibText).data as { id: string; type: string; title: string }[];
  assert.deepEqual(parsed.map((p) => p.type).sort(), ["article-journal", "document", "report"]);
  assert.ok(
    parsed.some((p) => p.title === "Attention Is All You Need | with {braces} & 100% _odd_ chars"),
  );
  assert.doesNotMatch(bibText, /Retracted study/);
  const withRetracted = await call(client, {
    action: "export",
    format: "bibtex",
    with_retracted: true,
  });
  assert.equal(withRetracted.fm.entries, 4);
  assert.match(withRetracted.body[0].join("\n"), /note = \{RETRACTED: notice/);

  const ris = await call(client, { action: "export", format: "ris" });
  const risParsed = new Cite(ris.body[0].join("\n")).data as { type: string; DOI?: string }[];
  assert.equal(risParsed.length, 3);
  assert.ok(risParsed.some((p) => p.type === "report" && p.DOI === "10.17487/RFC9110"));

  // JSON export round trip through import into a cleared shelf.
  const json = await call(client, { action: "export", format: "json", with_retracted: true });
  const jsonText = json.body[0].join("\n");
  assert.equal(JSON.parse(jsonText).format, "parkour-shelf");
  const removed = await call(client, { action: "remove", doi: "10.17487/RFC9110, 10.9999/none" });
  assert.equal(removed.fm.removed, 1);
  assert.equal((await call(client, { action: "clear" })).fm.cleared, 3);
  assert.equal((await call(client, { action: "import", data: jsonText })).fm.created, 4);
  const restored = await call(client, { action: "list", section: "all" });
  assert.equal(restored.fm.active, 3);
  assert.equal(restored.fm.confirmed, 1);
  assert.equal(restored.fm.retracted, 1);
  await call(client, { action: "clear" });
});

Deno.test("research_shelf: bad input gets errors that say what to do, and changes nothing", async () => {
  await call(client, { action: "import", data: SAVED });
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ action: "import", data: "{oops" }, /not valid JSON.*export format=json/],
    [
      { action: "import", data: '{"active": {"x": {"doi": "10.1234/x", "title": 5}}}' },
      /active\["x"\]\.title/,
    ],
    [{ action: "import" }, /import needs data=/],
    [{ action: "confirm" }, /confirm needs doi=/],
    [{ action: "confirm", doi: "not-a-doi" }, /is not a DOI; use the form 10\.NNNN\/suffix/],
    [{ action: "score", doi: "10.1038/nature14539" }, /score needs score=/],
    [
      { action: "note", doi: "10.9999/absent", text: "x" },
      /not on the shelf.*action=list section=all/,
    ],
    [
      { action: "remove", doi: "10.1038/nature14539, bogus" },
      /not a DOI: 'bogus'.*nothing was removed/,
    ],
    [{ action: "list", section: "everything" }, /invalid arguments for research_shelf/],
    [{ action: "score", doi: "10.1038/nature14539", score: 1.5 }, /invalid arguments/],
    [{ action: "explode" }, /invalid arguments/],
  ];
  for (const [args, message] of cases) {
    const answer = await call(client, args);
    assert.equal(answer.isError, true, JSON.stringify(args));
    assert.match(answer.text, /^Error: /);
    assert.match(answer.text, message, JSON.stringify(args));
  }
  const after = await call(client, { action: "list", section: "all" });
  assert.equal(after.fm.active, 3, "nothing was removed");
  assert.equal(after.fm.retracted, 1);
  await call(client, { action: "clear" });
});

Deno.test("research://shelf is listed and readable in both protocol eras", async () => {
  const legacy = await connect({ era: "legacy" });
  try {
    for (const c of [client, legacy]) {
      const { resources } = await c.listResources();
      const shelf = resources.find((r) => r.uri === "research://shelf");
      assert.ok(shelf, "listed");
      assert.equal(shelf.mimeType, "text/markdown");
      const emptyRead = await c.readResource({ uri: "research://shelf" });
      const emptyText = (emptyRead.contents[0] as { text: string }).text;
      assert.match(emptyText, /the research shelf is empty/);
    }
    await call(legacy, { action: "import", data: SAVED });
    const read = await legacy.readResource({ uri: "research://shelf" });
    const text = (read.contents[0] as { text: string }).text;
    const fm = parseFrontmatter(text)!;
    assert.equal(fm.active, 3);
    assert.equal(fm.retracted, 1);
    const fences = parseFences(text, String(fm.fence));
    assert.equal(fences.length, 2);
    assert.match(fences[0].lines.join("\n"), /Deep learning/);
    assert.match(fences[1].lines.join("\n"), /Retracted study/);
  } finally {
    await legacy.close();
  }
});

Deno.test("passive tracking: reading a retracted paper's DOI page shelves it in the retracted bucket only", async () => {
  const replay = replaySetup();
  const reader = await connect({ env: replay.env, flags: replay.flags });
  try {
    const page = await call(
      reader,
      { url: "https://doi.org/10.5555/retracted.1" },
      "web_fetch_incisive",
    );
    assert.equal(page.isError, false, page.text);
    assert.equal(
      page.fm.shelf,
      "0 tracked (0 confirmed, 1 retracted) — use research_shelf to review",
    );
    const notes = [page.fm.note].flat().map(String);
    assert.ok(notes.some((n) => /retracted shelf bucket/.test(n)), notes.join(" / "));
    const active = await call(reader, { action: "list" });
    assert.equal(active.fm.active, 0);
    const retracted = await call(reader, { action: "list", section: "retracted" });
    assert.match(retracted.body[0].join("\n"), /10\.5555\/retracted\.1/);
    const bib = await call(reader, { action: "export", format: "bibtex" });
    assert.equal(bib.fm.entries, 0, "a retracted work is not exported as citable");
  } finally {
    await reader.close();
  }
});

Deno.test("the code profile names the tool ResearchShelf in the status line", async () => {
  const code = await connect({ profile: "code" });
  try {
    const answer = await call(code, { action: "import", data: SAVED }, "ResearchShelf");
    assert.equal(
      answer.fm.shelf,
      "3 tracked (0 confirmed, 1 retracted) — use ResearchShelf to review",
    );
  } finally {
    await code.close();
  }
});

Deno.test("list follows --default-output: json gives the rows as structuredContent too", async () => {
  const json = await connect({ args: ["--default-output", "json"] });
  try {
    await call(json, { action: "import", data: SAVED });
    const result = await json.callTool({
      name: "research_shelf",
      arguments: { action: "list", section: "all" },
    });
    const structured = result.structuredContent as {
      active: { doi: string; score: unknown }[];
      retracted: { doi: string }[];
    };
    assert.equal(structured.active.length, 3);
    assert.equal(structured.retracted[0].doi, "10.1016/s0140-6736(20)31180-6");
    assert.ok(structured.active.some((r) => r.doi === "10.1038/nature14539" && r.score === 8));
  } finally {
    await json.close();
  }
});

Deno.test("--shelf kv:PATH keeps the shelf across restarts (PARKOUR_SHELF too)", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/shelf.kv`;
  const flags = [`--allow-read=${dir}`, `--allow-write=${dir}`];
  try {
    const first = await connect({ args: ["--shelf", `kv:${path}`], flags });
    await call(first, { action: "import", data: SAVED });
    await call(first, { action: "score", doi: "10.17487/RFC9110", score: 5 });
    await first.close();
    const second = await connect({ env: { PARKOUR_SHELF: `kv:${path}` }, flags });
    const list = await call(second, { action: "list" });
    assert.equal(list.fm.active, 3);
    assert.equal(list.fm.retracted, 1);
    assert.match(list.body[0].join("\n"), /\| 5 \| +\| 2022 \| HTTP Semantics/);
    await second.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two server processes writing to one KV store at once lose no write", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/shelf.kv`;
  const flags = [`--allow-read=${dir}`, `--allow-write=${dir}`];
  const args = ["--shelf", `kv:${path}`];
  const a = await connect({ args, flags });
  const b = await connect({ args, flags });
  try {
    const batch = (from: number) =>
      JSON.stringify({
        active: Object.fromEntries(
          Array.from({ length: 10 }, (_, i) => {
            const doi = `10.1234/w${from + i}`;
            return [doi, record(doi, `Work ${from + i}`)];
          }),
        ),
      });
    // Interleaved imports of disjoint works, then scores and notes on each other's works.
    const imports = [];
    for (let k = 0; k < 6; k++) {
      imports.push(call(k % 2 ? a : b, { action: "import", data: batch(k * 10) }));
    }
    const answers = await Promise.all(imports);
    for (const answer of answers) assert.equal(answer.isError, false, answer.text);
    const edits = [];
    for (let i = 0; i < 60; i += 3) {
      edits.push(call(i % 2 ? a : b, { action: "score", doi: `10.1234/w${i}`, score: i }));
      edits.push(call(i % 2 ? b : a, { action: "note", doi: `10.1234/w${i}`, text: `n${i}` }));
    }
    for (const answer of await Promise.all(edits)) assert.equal(answer.isError, false, answer.text);
    const json = await call(a, { action: "export", format: "json" });
    const active = JSON.parse(json.body[0].join("\n")).active as Record<
      string,
      { score: number | null; notes: string | null }
    >;
    assert.equal(Object.keys(active).length, 60);
    for (let i = 0; i < 60; i += 3) {
      assert.equal(active[`10.1234/w${i}`].score, i, `score of w${i}`);
      assert.equal(active[`10.1234/w${i}`].notes, `n${i}`, `note of w${i}`);
    }
  } finally {
    await a.close();
    await b.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a bad --shelf value or a store without permission ends with a clear usage error", async () => {
  const bad = await runCli(["serve", "--shelf", "redis"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /invalid --shelf 'redis'; valid values: memory, kv, kv:PATH/);
  const env = await runCli(["serve"], { PARKOUR_SHELF: "sqlite" });
  assert.equal(env.code, 2);
  assert.match(env.stderr, /invalid PARKOUR_SHELF 'sqlite'/);
  const denied = await runCli(["serve", "--shelf", "kv:/tmp/parkour-no-permission/shelf.kv"]);
  assert.equal(denied.code, 2);
  assert.match(denied.stderr, /cannot open the shelf store at .*--allow-read=.* --allow-write=/);
});

globalThis.addEventListener("unload", () => {
  client.close().catch(() => {});
});

Deno.test("research_shelf: a 400-record JSON export comes in pages that re-import as one", async () => {
  const big = await connect();
  const second = await connect();
  try {
    const active = Object.fromEntries(
      Array.from({ length: 400 }, (_, i) => {
        const doi = `10.5555/shelf.${i}`;
        return [doi, record(doi, `Work number ${i} on a long shelf`, { kind: "article" })];
      }),
    );
    const imported = await call(big, { action: "import", data: JSON.stringify({ active }) });
    assert.equal(imported.fm.created, 400, imported.text);
    const pages: string[] = [];
    for (let page = 1; page <= 20; page++) {
      const a = await call(big, { action: "export", format: "json", page });
      assert.equal(a.isError, false, a.text);
      assert.equal(a.fm.truncated, undefined, `page ${page} is whole`);
      pages.push(a.body[0].join("\n"));
      if (a.fm.next_page === undefined) break;
      assert.equal(a.fm.next_page, page + 1);
      assert.match(a.text, /page=\d+/, "the hint names the next page");
    }
    assert.ok(pages.length > 1, "more than one page");
    let created = 0;
    for (const data of pages) {
      const back = await call(second, { action: "import", data });
      assert.equal(back.isError, false, back.text);
      created += back.fm.created as number;
    }
    assert.equal(created, 400, "every record came back");
  } finally {
    await big.close();
    await second.close();
  }
});

Deno.test("research://shelf/export.json is the whole shelf as one file, past the response cap, and imports back as one", async () => {
  const c = await connect();
  try {
    const { resources } = await c.listResources();
    const listed = resources.find((r) => r.uri === "research://shelf/export.json");
    assert.ok(listed, "listed");
    assert.equal(listed.mimeType, "application/json");
    // 400 works with long titles: far more than one tool answer (25,000 tokens) can carry.
    const active: Record<string, unknown> = {};
    for (let i = 0; i < 400; i++) {
      const doi = `10.5555/export.${i}`;
      active[doi] = record(doi, `Work number ${i} on the long road of exporting a shelf whole`, {
        authors: ["Doe, Jane", "Roe, Richard", "Poe, Edgar"],
      });
    }
    const saved = JSON.parse(SAVED);
    const data = JSON.stringify({
      active: { ...saved.active, ...active },
      retracted: saved.retracted,
    });
    assert.equal((await call(c, { action: "import", data })).fm.created, 404);
    const paged = await call(c, { action: "export", format: "json" });
    assert.equal(paged.fm.pages, 5, "the tool pages the export");
    assert.match(String(paged.fm.hint), /research:\/\/shelf\/export\.json/);

    const read = await c.readResource({ uri: "research://shelf/export.json" });
    const content = read.contents[0] as { text: string; mimeType?: string };
    assert.equal(content.mimeType, "application/json");
    const file = JSON.parse(content.text);
    assert.equal(Object.keys(file.active).length, 403);
    assert.equal(Object.keys(file.retracted).length, 1);
    assert.equal(
      file.active["10.5555/export.399"].title,
      "Work number 399 on the long road of exporting a shelf whole",
    );

    // The file is what import takes: one call restores the whole shelf.
    await call(c, { action: "clear" });
    const restored = await call(c, { action: "import", data: content.text });
    assert.equal(restored.isError, false, restored.text);
    assert.equal(restored.fm.created, 404);
    assert.equal(restored.fm.retracted, 1);
    const again = await c.readResource({ uri: "research://shelf/export.json" });
    assert.deepEqual(
      Object.keys(JSON.parse((again.contents[0] as { text: string }).text).active).sort(),
      Object.keys(file.active).sort(),
    );
  } finally {
    await c.close();
  }
});
