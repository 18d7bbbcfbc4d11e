/**
 * Pages whose content arrives after the network goes quiet: app frameworks
 * that open a WebSocket and draw from it (Gradio, Streamlit), and pages that
 * hold their content in an embedded frame (a Hugging Face Space's page is a
 * header around the app's iframe).
 *
 * - {@link contentFrame}: when the top document holds little text and one
 *   of its frames holds much more, that frame is the content (its requests
 *   passed the same proxy and address checks as the page's).
 * - {@link waitForApp}: on a Gradio or Streamlit app, waits (within a
 *   bound) until the app has drawn its interface and is no longer running
 *   or loading; on other pages it returns at once.
 *
 * @module
 */
import type { Frame, Page } from "playwright-core";

/** The app frameworks recognised. */
export type AppFramework = "gradio" | "streamlit";

/** Text below which a top document is "thin" (characters of visible text). */
const THIN_TEXT = 400;

const DETECT = `(() => {
  if (document.querySelector("gradio-app") || window.gradio_config) return "gradio";
  if (document.querySelector('[data-testid="stApp"], .stApp')) return "streamlit";
  return "";
})()`;

const TEXT_LENGTH = `(() => (document.body ? document.body.innerText.trim().length : 0))()`;

/** A Gradio app is ready when its container has text and nothing shows a pending state. */
const GRADIO_READY = `(() => {
  const app = document.querySelector("gradio-app");
  const root = (app && app.shadowRoot) || document;
  const container = root.querySelector(".gradio-container") || app || document.body;
  const text = (container.innerText || "").trim();
  const busy = root.querySelector(
    ".pending, .generating, .eta-bar, .progress-text, [data-testid='status-tracker'] .loading, .loading-spinner"
  );
  return text.length > 40 && !busy;
})()`;

/** A Streamlit app is ready when its main area has text and its status widget is gone. */
const STREAMLIT_READY = `(() => {
  const running = document.querySelector('[data-testid="stStatusWidget"]');
  const skeleton = document.querySelector('[data-testid="stSkeleton"], .stSkeleton');
  const main = document.querySelector(
    '[data-testid="stMain"], [data-testid="stAppViewContainer"], section.main, .main'
  );
  const text = main ? (main.innerText || "").trim() : "";
  return !running && !skeleton && text.length > 40;
})()`;

/** The framework of the document in `target`, if it is a known app. */
export async function detectApp(target: Page | Frame): Promise<AppFramework | undefined> {
  try {
    const found = await target.evaluate(DETECT) as string;
    return found === "gradio" || found === "streamlit" ? found : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Waits until the app in `target` is ready, at most `ms`; resolves to the
 * framework it found (undefined for other pages), and whether it became
 * ready in time.
 */
export async function waitForApp(
  target: Page | Frame,
  ms: number,
): Promise<{ framework?: AppFramework; ready: boolean }> {
  const framework = await detectApp(target);
  if (!framework) return { ready: true };
  try {
    await target.waitForFunction(
      framework === "gradio" ? GRADIO_READY : STREAMLIT_READY,
      undefined,
      {
        timeout: Math.max(1, ms),
        polling: 200,
      },
    );
    return { framework, ready: true };
  } catch {
    return { framework, ready: false };
  }
}

async function textLength(target: Page | Frame): Promise<number> {
  try {
    return await target.evaluate(TEXT_LENGTH) as number;
  } catch {
    return 0;
  }
}

/**
 * The frame that holds the page's content: undefined while the top document
 * has text of its own, else the http(s) frame with the most text, when it
 * has clearly more than the top (three times, and more than the thin
 * bound). An app still drawing (a known framework) counts as content too.
 */
export async function contentFrame(page: Page): Promise<Frame | undefined> {
  const top = await textLength(page);
  if (top >= THIN_TEXT) return undefined;
  let best: { frame: Frame; length: number } | undefined;
  for (const frame of page.frames()) {
    if (frame === page.mainFrame() || !/^https?:/.test(frame.url())) continue;
    const length = await textLength(frame);
    const app = length < THIN_TEXT && (await detectApp(frame)) !== undefined;
    const score = app ? Math.max(length, THIN_TEXT + 1) : length;
    if (!best || score > best.length) best = { frame, length: score };
  }
  if (!best || best.length <= THIN_TEXT || best.length < 3 * top) return undefined;
  return best.frame;
}
