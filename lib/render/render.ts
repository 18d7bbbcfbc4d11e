/**
 * One render: a fresh browser context on the shared browser, every
 * connection of it through the render's own proxy (`proxy.ts`, which checks
 * every address, each redirect hop and WebSocket included), the page loaded, the caller's actions run in order, then the
 * rendered HTML, title and interactive elements read, all within a deadline.
 *
 * @module
 */
import { env } from "../config.ts";
import { SourceError } from "../errors.ts";
import { userAgent } from "../net/fetch.ts";
import type { BrowserContext, Frame, Page } from "playwright-core";
import { type AppFramework, contentFrame, waitForApp } from "./apps.ts";
import { type Engine, type EngineChoice, withBrowser } from "./browser.ts";
import { type InteractiveElement, LIST_ELEMENTS_SCRIPT } from "./elements.ts";
import { type GuardOptions, guardOptionsFromEnv, refusal } from "./guard.ts";
import { type RenderProxy, startRenderProxy } from "./proxy.ts";

/** One step of an interaction chain. */
export interface Action {
  /** What to do. */
  type: "click" | "fill" | "select" | "wait";
  /** CSS selector of the element. */
  selector: string;
  /** Text to fill or option to select. */
  value?: string;
}

/** Options of a render. */
export interface RenderOptions {
  /** Actions to run after loading, in order. */
  actions?: Action[];
  /** Let the top frame leave the requested host (links, redirects after load). */
  allowOffsite?: boolean;
  /** Cancels the render. */
  signal?: AbortSignal;
  /** Stage reports, for progress notifications. */
  onStage?: (step: number, total: number, message: string) => void;
  /** Deadline of the whole render (ms); default {@link renderDeadlineMs}. */
  deadlineMs?: number;
  /** The guard's settings; default from the environment. */
  guard?: GuardOptions;
}

/** A rendered page. */
export interface Rendered {
  /** URL of the top frame at the end. */
  url: string;
  /** The rendered DOM as HTML. */
  html: string;
  /** The page title. */
  title: string;
  /** The interactive elements. */
  elements: InteractiveElement[];
  /** The engine that rendered it. */
  engine: Engine;
  /** The remark of the engine choice. */
  remark?: EngineChoice["remark"];
  /** Requests the guard refused (URL and why), first 20. */
  blocked: { url: string; reason: string }[];
  /** The embedded frame the content was read from, when the page itself held little. */
  frame?: string;
  /** The app framework waited for, and whether it was ready within the wait. */
  app?: { framework: AppFramework; ready: boolean };
}

/**
 * The URL is not a page for the browser (a PDF, a download): the caller
 * reads it through the static path instead.
 */
export class NotForBrowser extends Error {
  /** What it is (`a PDF (application/pdf)`, `a download`). */
  readonly what: string;
  /** Creates the signal. */
  constructor(url: string, what: string) {
    super(`${url} is ${what}, which the browser does not render`);
    this.name = "NotForBrowser";
    this.what = what;
  }
}

/** Longest wait for an app framework to draw after the network is quiet (ms). */
const APP_WAIT_MS = 15_000;

/** Most HTML kept from a rendered page (characters). */
export const MAX_HTML_CHARS = 10_000_000;

/** Deadline of a render (ms), from `MCP_RENDER_TIMEOUT_S` (default 60). */
export function renderDeadlineMs(): number {
  const s = Number(env("MCP_RENDER_TIMEOUT_S"));
  return Number.isFinite(s) && s > 0 ? s * 1000 : 60_000;
}

const ACTION_TIMEOUT_MS = 30_000;

/** Renders `url` in the shared headless browser. */
export function renderPage(url: string, options: RenderOptions = {}): Promise<Rendered> {
  const deadlineMs = options.deadlineMs ?? renderDeadlineMs();
  const guard = options.guard ?? guardOptionsFromEnv();
  return withBrowser(async (running) => {
    const proxy = startRenderProxy(guard);
    let context: BrowserContext;
    try {
      context = await running.browser.newContext({
        // Every URL through the proxy: `<-loopback>` removes Chromium's implicit loopback bypass.
        proxy: { server: proxy.server, bypass: "<-loopback>" },
        userAgent: userAgent(),
        viewport: { width: 1280, height: 720 },
        acceptDownloads: false,
        serviceWorkers: "block",
        javaScriptEnabled: true,
      });
    } catch (error) {
      proxy.close();
      throw error;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => void context.close().catch(() => {});
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const work = run(context, url, options, guard, deadlineMs, proxy);
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(
            new SourceError(
              `rendering ${url} did not finish within ${
                Math.round(deadlineMs / 1000)
              } s (the page kept loading, or an action waited for an element that never came); try without requires_js, or with fewer actions`,
              undefined,
              "render",
            ),
          );
          void context.close().catch(() => {});
        }, deadlineMs);
      });
      work.catch(() => {});
      const result = await Promise.race([work, deadline]);
      return { ...result, engine: running.engine, remark: running.remark };
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      await context.close().catch(() => {});
      proxy.close();
    }
  });
}

async function run(
  context: BrowserContext,
  url: string,
  options: RenderOptions,
  guard: GuardOptions,
  deadlineMs: number,
  proxy: RenderProxy,
): Promise<Omit<Rendered, "engine" | "remark">> {
  const host = new URL(url).hostname;
  const started = Date.now();
  const blocked: Rendered["blocked"] = [];
  let loaded = false;
  let refusedNavigation: string | undefined;
  await context.route("**/*", async (route) => {
    const request = route.request();
    const target = request.url();
    // A popup's first navigation has no frame yet (Playwright throws): it is not the top frame.
    const top = () => {
      try {
        return request.frame() === page.mainFrame();
      } catch {
        return false;
      }
    };
    let reason = await refusal(target, guard);
    if (
      !reason && loaded && !options.allowOffsite && request.isNavigationRequest() &&
      top() && new URL(target).hostname !== host
    ) {
      reason = `navigation away from ${host} (pass allow_offsite=true to follow it)`;
    }
    if (reason) {
      if (blocked.length < 20) blocked.push({ url: target, reason });
      if (loaded && request.isNavigationRequest() && top()) {
        refusedNavigation ??= `${target} (${reason})`;
      }
      await route.abort("blockedbyclient").catch(() => {});
    } else await route.continue().catch(() => {});
  });
  const page: Page = await context.newPage();
  let inFlight = 0;
  let lastChange = Date.now();
  const change = (d: number) => {
    inFlight = Math.max(0, inFlight + d);
    lastChange = Date.now();
  };
  page.on("request", () => change(1));
  page.on("requestfinished", () => change(-1));
  page.on("requestfailed", () => change(-1));
  // Waits until no request has been in flight for 500 ms, at most `ms`.
  const settle = async (ms: number) => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (inFlight === 0 && Date.now() - lastChange >= 500) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const actions = options.actions ?? [];
  const total = actions.length + 2;
  options.onStage?.(0, total, "loading the page");
  let response;
  try {
    response = await page.goto(url, { waitUntil: "domcontentloaded", timeout: 0 });
  } catch (error) {
    if (/Download is starting/i.test(shortMessage(error))) {
      throw new NotForBrowser(url, "a download");
    }
    const first = blocked[0] ?? proxy.refused[0];
    if (first && first.url.replace(/#.*/, "") === url.replace(/#.*/, "")) {
      throw new SourceError(`refused to render ${url}: ${first.reason}`, undefined, "render");
    }
    if (first) {
      throw new SourceError(
        `refused to render ${url}: loading it led to ${first.url}, and ${first.reason}`,
        undefined,
        "render",
      );
    }
    throw new SourceError(
      `the browser could not load ${url}: ${shortMessage(error)}`,
      undefined,
      "render",
    );
  }
  loaded = true;
  const proxyRefusal = (at: string) =>
    proxy.refused.find((r) => r.url.replace(/#.*/, "") === at.replace(/#.*/, ""));
  const landed = proxyRefusal(page.url());
  if (landed) {
    throw new SourceError(
      `refused to render ${url}: loading it led to ${landed.url}, and ${landed.reason}`,
      undefined,
      "render",
    );
  }
  if (response && response.status() >= 400) {
    throw new SourceError(
      `HTTP ${response.status()} for ${url}; check the URL, or try again later if the server is failing`,
      undefined,
      "render",
    );
  }
  const type = (response?.headers()["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/pdf") throw new NotForBrowser(url, "a PDF (application/pdf)");
  await settle(5_000);
  // Where the content is: the page, or the embedded frame that holds it (a Space's app).
  let target: Page | Frame = page;
  const frame = await contentFrame(page);
  if (frame) target = frame;
  const remaining = () => deadlineMs - (Date.now() - started) - 2_000;
  const waited = await waitForApp(target, Math.min(APP_WAIT_MS, remaining()));
  for (const [i, action] of actions.entries()) {
    options.onStage?.(i + 1, total, `action ${i + 1}: ${action.type}`);
    try {
      await runAction(target, action, Math.min(ACTION_TIMEOUT_MS, deadlineMs / 2));
    } catch (error) {
      throw new SourceError(
        `action ${i} (${action.type} on selector ${JSON.stringify(action.selector)}) failed: ${
          shortMessage(error)
        }; check the selector against the interactive elements of a render without actions`,
        undefined,
        "render",
      );
    }
    // Give what the action started (requests, timers) a moment to land.
    lastChange = Date.now();
    await settle(2_000);
    if (waited.framework) await waitForApp(target, Math.min(APP_WAIT_MS, remaining()));
    if (refusedNavigation) {
      // The browser now shows its own "blocked" page: say what happened instead.
      throw new SourceError(
        `action ${i} (${action.type} on selector ${
          JSON.stringify(action.selector)
        }) led the page to ${refusedNavigation}, which was refused; to follow links to other hosts pass allow_offsite=true`,
        undefined,
        "render",
      );
    }
  }
  // A navigation the proxy refused leaves its refusal as the page: say what happened instead.
  const away = proxyRefusal(page.url());
  if (away) {
    throw new SourceError(
      `the page ${url} navigated to ${away.url}, which was refused: ${away.reason}`,
      undefined,
      "render",
    );
  }
  options.onStage?.(total - 1, total, "reading the page");
  const html = (await target.content()).slice(0, MAX_HTML_CHARS);
  const title = (frame ? await frame.title().catch(() => "") : "") || await page.title();
  const elements = await target.evaluate(LIST_ELEMENTS_SCRIPT) as InteractiveElement[];
  for (const entry of proxy.refused) {
    if (blocked.length < 20) blocked.push(entry);
  }
  return {
    url: page.url(),
    html,
    title,
    elements,
    blocked,
    frame: frame?.url(),
    app: waited.framework ? { framework: waited.framework, ready: waited.ready } : undefined,
  };
}

async function runAction(page: Page | Frame, action: Action, timeout: number): Promise<void> {
  switch (action.type) {
    case "click":
      await page.click(action.selector, { timeout });
      return;
    case "fill":
      await page.fill(action.selector, action.value ?? "", { timeout });
      return;
    case "select":
      await page.selectOption(action.selector, action.value ?? "", { timeout });
      return;
    case "wait":
      await page.waitForSelector(action.selector, { timeout });
      return;
  }
}

function shortMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0].replace(/^\w+\.\w+: /, "").slice(0, 300);
}
