/**
 * The try-it page of `serve --http` in a real browser: Playwright drives
 * Debian's Chromium against the real server process, which reads pages from
 * a site this test serves on 127.0.0.1 (MCP_ALLOW_PRIVATE_IPS=1 lets the
 * address check through for it). A person loads a URL, sees the outline as
 * a tree, reads a section, asks a question and searches within a budget,
 * sees the frontmatter and token counts, and sees errors; page text stays
 * text; a server with a token works once the token is typed in, and the
 * token never shows in a URL.
 *
 * Without a Chromium installed, every test is ignored with a message.
 */
import assert from "node:assert/strict";
import { type Browser, chromium, type Page } from "playwright-core";
import { CHROMIUM_ARGS } from "../../lib/render/browser.ts";
import { HttpServerProcess } from "../support/process.ts";
import { installedChromium, NO_BROWSER } from "../support/render.ts";

const executable = installedChromium();
if (!executable) console.log(NO_BROWSER);
const ignore = executable === undefined;
const opts = { ignore, sanitizeResources: false, sanitizeOps: false };

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `<p>${topic} paragraph ${i + 1} says little of note.</p>`)
    .join("\n");

const PAGES: Record<string, string> = {
  "/guide": `<!doctype html><html><head><title>Harbour guide</title></head><body><main><article>
<h1>Harbour guide</h1>
<p>Harbour is a small web server for static sites, written for this test.</p>
<h2 id="install">Installation</h2>
<p>Download the archive and unpack it into a folder of your choice.</p>
${filler("Installation", 25)}
<h3 id="linux">On Linux</h3>
<p>Run the installer script as root; it writes a service unit for systemd.</p>
<h2 id="config">Configuration</h2>
<p>The listening port is set with the harbour.port key; the default port is 8123.</p>
<p>Set harbour.root to the folder the site lives in.</p>
${filler("Configuration", 25)}
<h2 id="logs">Logging</h2>
<p>Logs go to standard error unless harbour.log names a file.</p>
${filler("Logging", 25)}
<h2 id="trap">&lt;img src=x onerror="window.__pwned=1"&gt; and &lt;b&gt;bold&lt;/b&gt;</h2>
<p>This heading is text that looks like markup &lt;script&gt;window.__pwned=2&lt;/script&gt;.</p>
</article></main></body></html>`,
};

const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
  const path = new URL(request.url).pathname;
  const page = PAGES[path];
  return page
    ? new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } })
    : new Response("<html><body><h1>Not here</h1></body></html>", {
      status: 404,
      headers: { "content-type": "text/html" },
    });
});
const SITE = `http://127.0.0.1:${site.addr.port}`;
const TOKEN = "web-page-test-token-7c1e2a9b";

let server: HttpServerProcess | undefined;
let tokenServer: HttpServerProcess | undefined;
let browser: Browser | undefined;

async function setUp(): Promise<void> {
  server ??= await HttpServerProcess.start(undefined, [], { MCP_ALLOW_PRIVATE_IPS: "1" });
  browser ??= await chromium.launch({
    executablePath: executable,
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: 60_000,
  });
}

const base = (s: HttpServerProcess) => s.url.replace(/\/mcp$/, "");

/** A fresh page on `/` of `s`, with every request URL it makes recorded. */
async function open(s: HttpServerProcess): Promise<{ page: Page; requests: string[] }> {
  const page = await browser!.newPage();
  const requests: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  const response = await page.goto(`${base(s)}/`);
  assert.equal(response?.status(), 200);
  return { page, requests };
}

async function loadUrl(page: Page, url: string): Promise<void> {
  await page.fill("#url", url);
  await page.click("#load");
}

const text = (page: Page, selector: string) => page.locator(selector).innerText();

/** Requests each page has seen finish (the page counts them in `body[data-done]`). */
const finished = new WeakMap<Page, number>();

/** Waits until the page has finished one more request than before. */
async function settled(page: Page): Promise<void> {
  const n = (finished.get(page) ?? 0) + 1;
  finished.set(page, n);
  await page.locator(`body[data-done="${n}"]`).waitFor({ state: "attached" });
}

/**
 * Waits for the page's next answer and checks that the reader shows a view
 * of `view`; fails with the page's error if it shows one instead.
 */
async function answer(page: Page, view: string): Promise<void> {
  await settled(page);
  const error = page.locator("#error");
  if (await error.isVisible()) assert.fail(`the page showed an error: ${await error.innerText()}`);
  assert.equal(await text(page, '#counts [data-count="view"] dd'), view);
}

/** Waits for the page's next answer, which must be an error; returns its text. */
async function failure(page: Page): Promise<string> {
  await settled(page);
  const error = page.locator("#error");
  assert.ok(await error.isVisible(), "the page shows an error");
  return await error.innerText();
}

Deno.test(
  "web page: load a URL, see the outline as a tree, the frontmatter and token counts",
  opts,
  async () => {
    await setUp();
    const { page } = await open(server!);
    try {
      assert.equal(await page.title(), "Parkour");
      assert.equal(
        await page.locator("#workspace").isHidden(),
        true,
        "nothing shown before a load",
      );
      await loadUrl(page, `${SITE}/guide`);
      await answer(page, "page");
      // The tree: "On Linux" sits in the list under "Installation", which sits under the title.
      const linux = page.locator("#outline li", {
        has: page.locator("button", { hasText: "On Linux" }),
      })
        .last();
      const parentTitle = await linux.evaluate((li) =>
        li.parentElement?.closest("li")?.querySelector(":scope > button")?.textContent
      );
      assert.equal(parentTitle, "Installation");
      const top = await page.locator("#outline > li > button").allInnerTexts();
      assert.deepEqual(top, ["Harbour guide"]);
      assert.match(await text(page, "#page-facts"), /Harbour guide · \d+ sections · source web/);
      // The first read: the page from the top, with its frontmatter and counts.
      assert.match(await text(page, "#frontmatter"), /^source: /m);
      assert.match(await text(page, "#body"), /Harbour is a small web server/);
      const returned = Number(await text(page, '#counts [data-count="returned tokens"] dd'));
      assert.ok(returned > 0, "returned tokens shown");
      assert.equal(await page.locator("#error").isHidden(), true);
    } finally {
      await page.close();
    }
  },
);

Deno.test(
  "web page: clicking a section reads it; a question and a search answer within the budget",
  opts,
  async () => {
    await setUp();
    const { page } = await open(server!);
    try {
      await loadUrl(page, `${SITE}/guide`);
      await answer(page, "page");
      await page.click('#outline button:text-is("Configuration")');
      await answer(page, "section");
      const body = await text(page, "#body");
      assert.match(body, /harbour\.port key/);
      assert.doesNotMatch(body, /standard error/, "only that section");
      assert.equal(
        await page.locator('#outline button[aria-current="true"]').innerText(),
        "Configuration",
      );

      // A question with a budget.
      await page.selectOption("#mode", "query");
      await page.fill("#ask", "which port does harbour listen on by default");
      await page.fill("#budget", "120");
      await page.click("#ask-button");
      await answer(page, "query");
      assert.match(await text(page, "#body"), /default port is 8123/);
      const returned = Number(await text(page, '#counts [data-count="returned tokens"] dd'));
      assert.ok(returned > 0 && returned <= 120, `within the budget: ${returned}`);
      const whole = Number(await text(page, '#counts [data-count="page tokens"] dd'));
      assert.ok(whole > returned, `only part of the page (${returned} of ${whole} tokens)`);
      assert.doesNotMatch(
        await text(page, "#body"),
        /standard error/,
        "the logging section left out",
      );
      assert.match(await text(page, "#frontmatter"), /query: /);

      // A search.
      await page.selectOption("#mode", "search");
      await page.fill("#ask", "+logs +error");
      await page.fill("#budget", "400");
      await page.click("#ask-button");
      await answer(page, "search");
      assert.match(await text(page, "#body"), /Logs go to standard error/);
      assert.ok(Number(await text(page, '#counts [data-count="matched slices"] dd')) >= 1);
    } finally {
      await page.close();
    }
  },
);

Deno.test("web page: errors are shown to the person, with what to do", opts, async () => {
  await setUp();
  const { page } = await open(server!);
  try {
    await loadUrl(page, `${SITE}/nowhere`);
    const error = page.locator("#error");
    assert.match(await failure(page), /404/);
    assert.equal(await page.locator("#workspace").isHidden(), true);

    // A question left empty: the page says what to give.
    await loadUrl(page, `${SITE}/guide`);
    await answer(page, "page");
    assert.equal(await error.isHidden(), true, "a good load clears the error");
    await page.selectOption("#mode", "query");
    await page.fill("#ask", "");
    await page.click("#ask-button");
    assert.match(await failure(page), /Give a question/);
  } finally {
    await page.close();
  }
});

Deno.test("web page: page text that looks like markup stays text", opts, async () => {
  await setUp();
  const { page } = await open(server!);
  try {
    await loadUrl(page, `${SITE}/guide`);
    await answer(page, "page");
    const trap = page.locator("#outline button", { hasText: "onerror" });
    assert.match(await trap.innerText(), /<img src=x onerror=/);
    await trap.click();
    await answer(page, "section");
    assert.match(await text(page, "#body"), /<script>window.__pwned=2<\/script>/);
    assert.equal(await page.locator("#outline img, #body img, #body script, #body b").count(), 0);
    assert.equal(
      await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned),
      undefined,
    );
  } finally {
    await page.close();
  }
});

Deno.test(
  "web page: with a token the page asks for it, sends it as a header, never in a URL",
  opts,
  async () => {
    await setUp();
    tokenServer ??= await HttpServerProcess.start(undefined, [], {
      MCP_ALLOW_PRIVATE_IPS: "1",
      PARKOUR_HTTP_TOKEN: TOKEN,
    });
    const { page, requests } = await open(tokenServer);
    const headers: string[] = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname.startsWith("/api")) {
        headers.push(r.headers().authorization ?? "");
      }
    });
    try {
      await loadUrl(page, `${SITE}/guide`);
      const error = page.locator("#error");
      assert.match(await failure(page), /Token field/);
      assert.equal(await page.locator("#token-box").getAttribute("open"), "");
      await page.fill("#token", TOKEN);
      await page.click("#load");
      await answer(page, "page");
      assert.equal(await error.isHidden(), true);
      assert.ok(headers.includes(`Bearer ${TOKEN}`), "the token goes in the Authorization header");
      for (const url of [...requests, page.url()]) {
        assert.ok(!url.includes(TOKEN), `no token in ${url}`);
      }
    } finally {
      await page.close();
    }
  },
);

Deno.test(
  "web page: the page and its files carry a strict policy; other methods are refused",
  opts,
  async () => {
    await setUp();
    const root = base(server!);
    for (const path of ["/", "/web/app.js", "/web/style.css"]) {
      const response = await fetch(`${root}${path}`);
      await response.body?.cancel();
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get("content-security-policy") ?? "", /script-src 'self'/);
      assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    }
    const post = await fetch(`${root}/`, { method: "POST" });
    await post.body?.cancel();
    assert.equal(post.status, 405);
    // Foreign origins are refused, the page as much as the API.
    const foreign = await fetch(`${root}/`, { headers: { origin: "https://evil.example" } });
    await foreign.body?.cancel();
    assert.equal(foreign.status, 403);
  },
);

Deno.test({
  name: "web page: stop the servers and the browser",
  ...opts,
  fn: async () => {
    await browser?.close();
    await server?.stop();
    await tokenServer?.stop();
    await site.shutdown();
  },
});
