/**
 * A page read for a request as an MCP answer (the CLI's envelope too): the
 * page's frontmatter and the work it shelves, what a render did, then the
 * view's envelope, or, for a page JavaScript builds, how to render it.
 *
 * @module
 */
import type { Frontmatter } from "../envelope/frontmatter.ts";
import { RESPONSE_TOKEN_CAP, type ResponseSpec, type ToolResult } from "../envelope/response.ts";
import { estimateTokens, tokenizerLoaded, tokenizerReady } from "../content/tokens/count.ts";
import { registerTip } from "../envelope/tips.ts";
import { type HintContext, renderMessage } from "../hint.ts";
import { ENGINES } from "../render/browser.ts";
import { renderElements } from "../render/elements.ts";
import { trusted } from "../trust.ts";
import { bodyTitle, envelopeSpec, finalUrlLine, pageFrontmatter } from "../views/page.ts";
import type { PageRead, RenderedRead } from "../views/read.ts";
import { viewPage } from "../views/read.ts";
import {
  DEFAULT_MAX_ELEMENTS,
  MAX_MAX_TOKENS,
  type OutlineRequest,
  type PageRequest,
} from "../views/request.ts";
import { outline, shellHint, type ViewResult } from "../views/view.ts";
import { shelveCitation } from "./page_view.ts";
import type { ToolContext } from "./registry.ts";

registerTip(
  "incisive_premature_render",
  "requires_js starts a headless browser and takes seconds; the static fetch (without requires_js) is much cheaper and says when a page needs JavaScript",
);

/** An answer and the view it shows (none for a JavaScript shell). */
export interface PageAnswer {
  /** The tool result. */
  result: ToolResult;
  /** The view, for faces that print it in their own formats (the CLI). */
  view?: ViewResult;
  /**
   * The title line the body's fence opens with (`# <title>`), if any, for
   * faces that print the body without the fence.
   */
  title?: string;
}

/**
 * Body caps tried in turn so that the whole envelope (frontmatter, fences and
 * their margins) fits the response cap without the cap cutting what a hint
 * promises (the section list at the end).
 */
const ENVELOPE_CAPS = [Math.floor(MAX_MAX_TOKENS * 0.85), Math.floor(MAX_MAX_TOKENS * 0.7), 10_000];
const CAP_READ_ON = trusted
  .text`the response was cut to fit the size cap; ask for a narrower view (one section, a search, slices) or a smaller budget`;

/** The answer to a page request: its view in the envelope, within the response cap. */
export async function pageAnswer(
  read: PageRead,
  request: PageRequest,
  ctx: ToolContext,
  hints: HintContext,
): Promise<PageAnswer> {
  const { doc } = read;
  const actions = request.actions?.length ?? 0;
  const fm = await pageHead(read, hints, actions);
  let respond = ctx.respond;
  if (read.rendered) {
    describeRender(fm, read.rendered, actions);
    const max = request.max_elements ?? DEFAULT_MAX_ELEMENTS;
    if (read.view !== "search" && read.view !== "slices" && max > 0) {
      // The interactive elements end every answer, in a fence of their own.
      const content = renderElements(read.rendered.info.elements, max);
      respond = (spec: ResponseSpec) =>
        ctx.respond({ ...spec, fences: [...(spec.fences ?? []), { content }] });
    }
  }
  if (read.shell) return { result: shellAnswer(respond, fm, hints) };
  const lead = finalUrlLine(read.url, doc);
  let answer: PageAnswer | undefined;
  for (const cap of ENVELOPE_CAPS) {
    const view = viewPage(read, request, { lead, cap });
    const result = respond({
      ...envelopeSpec(fm.clone(), view, hints, doc.title, lead),
      readOn: CAP_READ_ON,
    });
    answer = { result, view, title: bodyTitle(view.body, doc.title) };
    if (!result.content[0]?.text.includes(CAP_READ_ON.toString())) break;
  }
  return answer!;
}

/** The answer to an outline request: a window of the page's sections. */
export async function outlineAnswer(
  read: PageRead,
  request: OutlineRequest,
  ctx: ToolContext,
  hints: HintContext,
  window?: number,
): Promise<PageAnswer> {
  const fm = await pageHead(read, hints, 0);
  if (read.shell) return { result: shellAnswer(ctx.respond, fm, hints) };
  const view = outline(read.doc, request, { fragment: read.url.fragment, window });
  // The response cap holds in real tokens: an outline that may come near it is counted.
  if (!tokenizerLoaded() && estimateTokens(view.body) > RESPONSE_TOKEN_CAP / 2) {
    await tokenizerReady();
  }
  const lead = finalUrlLine(read.url, read.doc);
  return {
    result: ctx.respond(envelopeSpec(fm, view, hints, read.doc.title, lead)),
    view,
    title: bodyTitle(view.body, read.doc.title),
  };
}

/**
 * The frontmatter every answer about the page starts with, and why a render
 * asked for (with `actions`) did not happen; shelves the work it describes.
 */
async function pageHead(read: PageRead, hints: HintContext, actions: number): Promise<Frontmatter> {
  const fm = pageFrontmatter(read.url, read.doc, read.cached, read.fullPage, hints);
  await shelveCitation(read.doc, fm);
  if (read.skipped && "source" in read.skipped) {
    fm.append(
      "warning",
      trusted
        .text`this URL is served from its source's API, so rendering and actions were not used`,
    );
  }
  if (read.skipped && "notForBrowser" in read.skipped) {
    fm.append(
      "note",
      trusted.text`the URL is ${
        trusted.echo(read.skipped.notForBrowser, 60)
      }, not a page for the browser: it was read without rendering${
        actions > 0 ? trusted.text`, and the actions were not run` : trusted.text``
      }`,
    );
  }
  return fm;
}

/** The answer for a page that is an empty JavaScript shell: how to render it. */
function shellAnswer(
  respond: ToolContext["respond"],
  fm: Frontmatter,
  hints: HintContext,
): ToolResult {
  fm.append("hint", trusted.echo(renderMessage(shellHint(), hints), 2000));
  return respond({ frontmatter: fm });
}

/** What a render did: its engine, actions, remarks, frame, app and refused requests. */
function describeRender(fm: Frontmatter, rendered: RenderedRead, actions: number): void {
  const { info } = rendered;
  fm.set("renderer", trusted.oneOf(ENGINES, info.engine));
  if (actions > 0) fm.set("actions_run", actions);
  if (info.remark) {
    fm.append(info.remark.kind, trusted.text`${trusted.echo(info.remark.text, 300)}`);
  }
  if (info.frame) {
    fm.set("rendered_frame", trusted.url(info.frame));
    fm.append(
      "note",
      trusted
        .text`the page itself holds little text: the content is its embedded frame rendered_frame`,
    );
  }
  if (info.app) {
    fm.set("app_framework", trusted.oneOf(["gradio", "streamlit"] as const, info.app.framework));
    if (!info.app.ready) {
      fm.append(
        "warning",
        trusted
          .text`the app was still loading when the wait ended; what it had drawn is below, try again for the rest`,
      );
    }
  }
  if (info.blocked.length > 0) {
    fm.set("blocked_requests", info.blocked.length);
    fm.append(
      "note",
      trusted
        .text`the address guard refused ${info.blocked.length} request(s) of the page (private addresses, other schemes, or navigation away from the host), e.g. ${
        trusted.echo(info.blocked[0].reason, 200)
      }`,
    );
  }
  if (rendered.premature) fm.tip("incisive_premature_render");
}
