// An answer's Markdown as HTML a person reads: headings, lists, tables, code blocks, links. The
// Markdown holds page text, which is hostile: `marked` parses it with raw HTML turned back into
// the text it was (the converter writes page text that looks like markup as it stands, and no
// markup of its own but `<br>` in table cells), links and images only to http(s) and mail
// addresses, headings only where the converter writes them (`#`); then `DOMPurify` keeps only
// the elements and attributes Markdown makes, as a second line. The result is a fragment of
// nodes, never a string for innerHTML.
import { Marked } from "/web/vendor/marked.js";
import DOMPurify from "/web/vendor/purify.js";

const BREAK = /^<br\s*\/?>$/i;
const WEB_URL = /^(?:https?:|mailto:)/i;

/** The elements Markdown makes; nothing else survives sanitising. */
const TAGS = [
  "a",
  "blockquote",
  "br",
  "code",
  "del",
  "em",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "li",
  "ol",
  "p",
  "pre",
  "span",
  "strong",
  "table",
  "tbody",
  "td",
  "th",
  "thead",
  "tr",
  "ul",
];
const ATTRIBUTES = ["href", "title", "align", "start", "class", "data-section", "rel", "target"];

function escapeHtml(text) {
  return String(text)
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/**
 * Where a link of the page goes: `{ section }` for a part of the page itself (its `#id`),
 * `{ href }` for a web or mail address (relative ones resolved against the page), or null.
 */
export function linkTarget(href, pageUrl) {
  const raw = String(href ?? "").trim();
  if (raw.startsWith("#") && raw.length > 1) return { section: raw };
  let url;
  try {
    url = new URL(raw, pageUrl || undefined);
  } catch {
    return null;
  }
  if (!WEB_URL.test(url.protocol)) return null;
  if (pageUrl && url.hash.length > 1) {
    const page = new URL(pageUrl);
    if (
      url.origin === page.origin && url.pathname === page.pathname && url.search === page.search
    ) {
      return { section: url.hash };
    }
  }
  return { href: url.href };
}

/** A Markdown parser for the answers of the page at `pageUrl`. */
function parser(pageUrl) {
  return new Marked({ gfm: true, breaks: false, async: false }, {
    renderer: {
      // Raw HTML in the Markdown is page text: shown as the text it is.
      html({ text, block }) {
        if (!block && BREAK.test(text.trim())) return "<br>";
        return block ? `<p class="raw">${escapeHtml(text)}</p>\n` : escapeHtml(text);
      },
      // A heading underlined with = or - is page text followed by a rule-like line.
      heading({ tokens, raw }) {
        if (/^ {0,3}#/.test(raw)) return false;
        const lines = raw.trimEnd().split("\n");
        const underline = lines.pop() ?? "";
        return `<p>${this.parser.parseInline(tokens)}<br>${escapeHtml(underline)}</p>\n`;
      },
      link({ href, title, tokens, raw }) {
        const target = linkTarget(href, pageUrl);
        if (!target) return escapeHtml(raw);
        const text = this.parser.parseInline(tokens);
        const titled = title ? ` title="${escapeHtml(title)}"` : "";
        if (target.section) {
          return `<a href="${escapeHtml(target.section)}" data-section="${
            escapeHtml(target.section)
          }"${titled}>${text}</a>`;
        }
        return `<a href="${escapeHtml(target.href)}"${titled}>${text}</a>`;
      },
      // Images are not loaded (the page loads nothing from other hosts): a link to each instead.
      image({ href, text, raw }) {
        const target = linkTarget(href, pageUrl);
        const label = `[image${text ? `: ${escapeHtml(text)}` : ""}]`;
        if (!target?.href) return target ? `<span class="image">${label}</span>` : escapeHtml(raw);
        return `<a class="image" href="${escapeHtml(target.href)}">${label}</a>`;
      },
    },
  });
}

let hooked = false;

function hook() {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A" && node.hasAttribute("href") && !node.hasAttribute("data-section")) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    }
  });
}

/** The Markdown `markdown` of the page at `pageUrl` as a sanitised fragment of HTML nodes. */
export function renderMarkdown(markdown, pageUrl) {
  hook();
  const html = parser(pageUrl).parse(String(markdown ?? ""));
  return DOMPurify.sanitize(html, {
    ALLOWED_TAGS: TAGS,
    ALLOWED_ATTR: ATTRIBUTES,
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
    ALLOW_DATA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
}
