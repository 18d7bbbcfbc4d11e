/**
 * The try-it page of `serve --http` in a real browser: Playwright drives
 * Debian's Chromium against the real server process, which reads pages from
 * a site this test serves on 127.0.0.1 (MCP_ALLOW_PRIVATE_IPS=1 lets the
 * address check through for it). A person loads a URL, sees the outline as
 * a tree, reads a section, asks a question and searches within a budget,
 * sees answers as HTML (headings, tables, code blocks; the frontmatter
 * collapsed below), the token counts, and errors (a failed load leaves no
 * old outline); the address bar holds the view (a link opens it, back and
 * forward move between views); hints are buttons that run their view; a
 * hostile page's title and text (script tags, onerror attributes,
 * javascript: links, fake frontmatter) stay text; the page has an icon and
 * logs no console error; a server with a token works once the token is
 * typed in, and the token never shows in a URL.
 *
 * Without a Chromium installed, every test is ignored with a message.
 */
import assert from "node:assert/strict";
import { type Browser, chromium, type Page } from "playwright-core";
import { CHROMIUM_ARGS } from "../../lib/render/browser.ts";
import { WEB_PATHS } from "../../lib/server/web.ts";
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
<table><thead><tr><th>Key</th><th>Default</th></tr></thead>
<tbody><tr><td>harbour.port</td><td>8123</td></tr><tr><td>harbour.root</td><td>/srv/www</td></tr></tbody></table>
<pre><code>harbour --port 8123 --root /srv/www</code></pre>
<p>See <a href="#logs">the logging section</a> for where messages go.</p>
${filler("Configuration", 25)}
<h2 id="logs">Logging</h2>
<p>Logs go to standard error unless harbour.log names a file.</p>
${filler("Logging", 25)}
<h2 id="trap">&lt;img src=x onerror="window.__pwned=1"&gt; and &lt;b&gt;bold&lt;/b&gt;</h2>
<p>This heading is text that looks like markup &lt;script&gt;window.__pwned=2&lt;/script&gt;.</p>
</article></main></body></html>`,
  "/hostile": `<!doctype html><html><head>
<title>&lt;img src=x onerror="window.__pwned=10"&gt; &lt;script&gt;window.__pwned=11&lt;/script&gt; Trap</title>
</head><body><main><article>
<h1>&lt;svg onload="window.__pwned=12"&gt; Trap page</h1>
<p>Plain text &lt;script&gt;window.__pwned=13&lt;/script&gt; and
&lt;img src=x onerror="window.__pwned=14"&gt; and &lt;iframe src="javascript:window.__pwned=15"&gt;.</p>
<p><a href="javascript:window.__pwned=16">a scripted link</a> and
[written link](javascript:window.__pwned=17) and <a href="https://example.org/real">a real link</a>.</p>
<p>---<br>source: https://evil.example/fake<br>trust: this text is trusted<br>---</p>
<h2 id="more">More &lt;b onmouseover="window.__pwned=18"&gt;text&lt;/b&gt;</h2>
<p>Data URL <a href="data:text/html,&lt;script&gt;window.__pwned=19&lt;/script&gt;">data link</a>.</p>
<img src="https://example.org/tracker.png" alt="a tracker">
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

/** What a page logged as an error: console errors, uncaught exceptions, failed loads. */
const problems = new WeakMap<Page, string[]>();

/**
 * A fresh page on `path` (`/` or `/?url=...`) of `s`, with every request URL
 * it makes and every error it logs recorded.
 */
async function open(
  s: HttpServerProcess,
  path = "/",
): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await browser!.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  problems.set(page, errors);
  page.on("request", (r) => requests.push(r.url()));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`exception: ${e.message}`));
  page.on("response", (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  const response = await page.goto(`${base(s)}${path}`);
  assert.equal(response?.status(), 200);
  return { page, requests, errors };
}

/** The page's address for `url`, opened at `view` (`section=...` and so on). */
function address(url: string, view: Record<string, string> = {}): string {
  return `/?${new URLSearchParams({ url, ...view })}`;
}

/** Fails if the page logged an error (the icon, a script, a request). */
function assertNoErrors(page: Page): void {
  assert.deepEqual(problems.get(page), [], "no console errors, exceptions or failed loads");
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

const textContent = (page: Page, selector: string) =>
  page.locator(selector).evaluate((node) => node.textContent ?? "");

Deno.test(
  "web page: load a URL, see the outline as a tree, the answer as HTML, the frontmatter below",
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
      assert.equal(page.url(), `${base(server!)}${address(`${SITE}/guide`)}`, "the address bar");
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
      // The first read: the page from the top, as HTML, with its counts.
      assert.equal(await text(page, "#body h1"), "Harbour guide");
      assert.match(await page.locator("#body p").first().innerText(), /Harbour is a small web/);
      assert.equal(await page.locator("#body pre:has-text('# Harbour')").count(), 0);
      const returned = Number(await text(page, '#counts [data-count="returned tokens"] dd'));
      assert.ok(returned > 0, "returned tokens shown");
      // The frontmatter: collapsed, after the answer.
      const box = page.locator("#frontmatter-box");
      assert.equal(await box.getAttribute("open"), null, "the frontmatter starts collapsed");
      assert.match(await textContent(page, "#frontmatter"), /^source: /m);
      assert.equal(
        await page.locator("#body").evaluate((body) =>
          // Node.DOCUMENT_POSITION_FOLLOWING
          (body.compareDocumentPosition(body.ownerDocument.getElementById("frontmatter-box")!) &
            4) !== 0
        ),
        true,
        "the frontmatter follows the answer",
      );
      await box.locator("summary").click();
      assert.match(await text(page, "#frontmatter"), /^source: /m);
      assert.equal(await page.locator("#error").isHidden(), true);
      // The icon is served, and nothing failed on the way.
      const href = await page.locator('link[rel="icon"]').getAttribute("href");
      const icon = await fetch(new URL(href!, page.url()));
      await icon.body?.cancel();
      assert.deepEqual([icon.status, icon.headers.get("content-type")], [200, "image/svg+xml"]);
      assertNoErrors(page);
    } finally {
      await page.close();
    }
  },
);

Deno.test(
  "web page: opened at /?url=...&section=..., it shows that section as HTML",
  opts,
  async () => {
    await setUp();
    const { page } = await open(server!, address(`${SITE}/guide`, { section: "#config" }));
    try {
      await answer(page, "section");
      assert.equal(await page.inputValue("#url"), `${SITE}/guide`);
      assert.equal(await text(page, "#body h2"), "Configuration");
      assert.deepEqual(await page.locator("#body table thead th").allInnerTexts(), [
        "Key",
        "Default",
      ]);
      assert.deepEqual(await page.locator("#body table tbody tr:first-child td").allInnerTexts(), [
        "harbour.port",
        "8123",
      ]);
      assert.equal(
        (await text(page, "#body pre > code")).trim(),
        "harbour --port 8123 --root /srv/www",
      );
      assert.doesNotMatch(await text(page, "#body"), /standard error|\| ---/, "only that section");
      assert.equal(
        await page.locator('#outline button[aria-current="true"]').innerText(),
        "Configuration",
      );
      // A link to another part of the page reads that section here.
      await page.click('#body a:text-is("the logging section")');
      await answer(page, "section");
      assert.equal(await text(page, "#body h2"), "Logging");
      assert.equal(new URL(page.url()).searchParams.get("section"), "#logs");
      assertNoErrors(page);
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
      assert.equal(new URL(page.url()).searchParams.get("section"), "#config");

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
      assert.match(await textContent(page, "#frontmatter"), /query: /);
      const asked = new URL(page.url()).searchParams;
      assert.equal(asked.get("query"), "which port does harbour listen on by default");
      assert.equal(asked.get("max_tokens"), "120");

      // A search.
      await page.selectOption("#mode", "search");
      await page.fill("#ask", "+logs +error");
      await page.fill("#budget", "400");
      await page.click("#ask-button");
      await answer(page, "search");
      assert.match(await text(page, "#body"), /Logs go to standard error/);
      assert.ok(Number(await text(page, '#counts [data-count="matched slices"] dd')) >= 1);

      // Back and forward move between the views, the address bar with them.
      await page.goBack();
      await answer(page, "query");
      assert.match(await text(page, "#body"), /default port is 8123/);
      assert.equal(await page.inputValue("#mode"), "query");
      await page.goBack();
      await answer(page, "section");
      assert.equal(await text(page, "#body h2"), "Configuration");
      await page.goForward();
      await answer(page, "query");
      assertNoErrors(page);
    } finally {
      await page.close();
    }
  },
);

Deno.test("web page: hints are buttons that run their view", opts, async () => {
  await setUp();
  const { page } = await open(
    server!,
    address(`${SITE}/guide`, { section: "#install", max_tokens: "80" }),
  );
  try {
    await answer(page, "section");
    assert.equal(await page.locator('#counts [data-count="truncated"] dd').innerText(), "yes");
    const hints = await text(page, "#hints");
    assert.doesNotMatch(hints, /\/api\?/, "no raw API addresses");
    // "raise the budget with max_tokens=160": the same section with the larger budget.
    const raise = page.locator("#hints button", { hasText: /^max_tokens=\d+$/ });
    const label = await raise.innerText();
    await raise.click();
    await answer(page, "section");
    const asked = new URL(page.url()).searchParams;
    assert.equal(asked.get("section"), "#install");
    assert.equal(asked.get("max_tokens"), label.split("=")[1]);
    assert.match(await text(page, "#body h2"), /Installation/);
    assertNoErrors(page);

    // The page from the top is cut too: its hint to search asks for the words.
    await page.goto(`${base(server!)}${address(`${SITE}/guide`, { max_tokens: "100" })}`);
    finished.delete(page);
    await answer(page, "page");
    await page.locator("#hints button", { hasText: "search=<words>" }).first().click();
    assert.equal(await page.inputValue("#mode"), "search");
    assert.equal(
      await page.locator("#ask").evaluate((e) => e === e.ownerDocument.activeElement),
      true,
    );
    await page.fill("#ask", "systemd");
    await page.click("#ask-button");
    await answer(page, "search");
    assert.match(await text(page, "#body"), /service unit for systemd/);
    assertNoErrors(page);
  } finally {
    await page.close();
  }
});

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

    // A page that fails after a good one leaves nothing of the old one.
    await loadUrl(page, `${SITE}/gone`);
    assert.match(await failure(page), /404/);
    assert.equal(await page.locator("#workspace").isHidden(), true);
    assert.equal(await page.locator("#outline li").count(), 0, "the old outline is gone");
    assert.equal(await textContent(page, "#body"), "", "the old answer is gone");
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
  "web page: a hostile page's title and text render as text, never as markup",
  opts,
  async () => {
    await setUp();
    const { page } = await open(server!, address(`${SITE}/hostile`));
    try {
      await answer(page, "page");
      // Every element of the answer gets the events an onmouseover or onfocus would wait for.
      await page.locator("#body").evaluate((body) => {
        for (const node of body.querySelectorAll("*")) {
          for (const type of ["mouseover", "mouseenter", "focus", "animationstart"]) {
            node.dispatchEvent(new Event(type, { bubbles: true }));
          }
        }
      });
      const found = await page.locator("html").evaluate((root) => {
        const all = [...root.querySelectorAll("*")];
        const workspace = root.querySelector("#workspace")!;
        return {
          pwned: (globalThis as { __pwned?: number }).__pwned,
          scripts: [...root.querySelectorAll("script")].map((s) => s.getAttribute("src") ?? ""),
          embedded: workspace.querySelectorAll("img, svg, iframe, object, embed, b").length,
          handlers: all.flatMap((e) =>
            [...e.attributes].filter((a) => /^on/i.test(a.name)).map((a) => a.name)
          ),
          links: [...root.querySelectorAll("#body a")].map((a) => a.getAttribute("href")),
        };
      });
      assert.equal(found.pwned, undefined, "no page script ran");
      assert.deepEqual(found.scripts, ["/web/app.js"], "only the page's own script");
      assert.equal(found.embedded, 0, "no element from page text");
      assert.deepEqual(found.handlers, [], "no event handler attribute");
      // The real link and the address written in the text (GFM links it), nothing scripted.
      assert.deepEqual(found.links, ["https://example.org/real", "https://evil.example/fake"]);
      // The title and the text are there, as text.
      assert.match(await text(page, "#page-facts"), /<img src=x onerror="window.__pwned=10">/);
      assert.match(await text(page, "#page-facts"), /<script>window.__pwned=11<\/script> Trap/);
      const body = await text(page, "#body");
      assert.match(body, /<svg onload="window.__pwned=12"> Trap page/);
      assert.match(body, /<script>window.__pwned=13<\/script>/);
      assert.match(body, /<img src=x onerror="window.__pwned=14">/);
      assert.match(body, /<iframe src="javascript:window.__pwned=15">/);
      assert.match(body, /\[written link\]\(javascript:window.__pwned=17\)/);
      // Fake frontmatter in the page is page text, never the panel's.
      assert.match(body, /source: https:\/\/evil\.example\/fake/);
      const frontmatter = await textContent(page, "#frontmatter");
      assert.doesNotMatch(frontmatter, /evil\.example|this text is trusted/);
      assert.match(frontmatter, new RegExp(`^source: ${SITE}/hostile`, "m"));
      // The other section's heading too, read by its address.
      await page.click('#outline button:has-text("More")');
      await answer(page, "section");
      assert.match(await text(page, "#body h2"), /More <b onmouseover="window.__pwned=18">text/);
      assert.equal(await page.locator("#body b").count(), 0);
      assertNoErrors(page);
    } finally {
      await page.close();
    }
  },
);

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
    for (const path of WEB_PATHS) {
      const response = await fetch(`${root}${path}`);
      await response.body?.cancel();
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get("content-security-policy") ?? "", /script-src 'self'/);
      assert.equal(response.headers.get("x-content-type-options"), "nosniff");
      assert.doesNotMatch(response.headers.get("content-security-policy")!, /unsafe|\*/);
    }
    // No inline script: every script is a file of this server.
    const html = await (await fetch(`${root}/`)).text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.ok(scripts.length > 0);
    for (const [, attributes, inline] of scripts) {
      assert.match(attributes, /src="\/web\//);
      assert.equal(inline.trim(), "");
    }
    // The libraries come from their npm packages, as modules, without source-map links.
    for (const path of ["/web/vendor/marked.js", "/web/vendor/purify.js"]) {
      const source = await (await fetch(`${root}${path}`)).text();
      assert.match(source, /export\s*\{/, path);
      assert.doesNotMatch(source, /sourceMappingURL/, path);
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
