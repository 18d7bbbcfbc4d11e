/**
 * The page's interactive elements, listed so an agent can plan its next
 * action: visible selects (with options), text-like inputs, buttons, table
 * of contents links and navigation links, each with a CSS selector that
 * finds it (`#id`, `tag[name=…]`, `[data-testid=…]`, `tag.class`, `tag`).
 *
 * The listing runs inside the page; its output is page text (untrusted).
 *
 * @module
 */

/** One interactive element. */
export interface InteractiveElement {
  /** select, input, button, toc link or nav link. */
  type: string;
  /** A CSS selector for it. */
  selector: string;
  /** Visible label, placeholder or text. */
  label?: string;
  /** Input placeholder. */
  placeholder?: string;
  /** Select options (first 10). */
  options?: string[];
  /** Link target. */
  href?: string;
}

/** The script evaluated in the page; returns every element (the caller caps the list). */
export const LIST_ELEMENTS_SCRIPT = `(() => {
  const out = [];
  const seen = new Set();
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none";
  };
  const clean = (t, n) => (t || "").replace(/\\s+/g, " ").trim().slice(0, n);
  const selectorOf = (el) => {
    const tag = el.tagName.toLowerCase();
    if (el.id && /^[A-Za-z][\\w-]*$/.test(el.id)) return "#" + el.id;
    const name = el.getAttribute("name");
    if (name) return tag + "[name='" + name.replace(/'/g, "\\\\'") + "']";
    const testid = el.getAttribute("data-testid");
    if (testid) return "[data-testid='" + testid.replace(/'/g, "\\\\'") + "']";
    const cls = (el.getAttribute("class") || "").split(/\\s+/).find((c) => /^[A-Za-z][\\w-]*$/.test(c));
    return cls ? tag + "." + cls : tag;
  };
  const labelOf = (el) => {
    if (el.id) {
      const l = document.querySelector("label[for='" + CSS.escape(el.id) + "']");
      if (l) return clean(l.textContent, 80);
    }
    const wrap = el.closest("label");
    if (wrap) return clean(wrap.textContent, 80);
    return clean(el.getAttribute("aria-label"), 80);
  };
  const add = (el, item) => {
    if (seen.has(el)) return;
    seen.add(el);
    out.push(item);
  };
  for (const el of document.querySelectorAll("select")) {
    if (!visible(el)) continue;
    add(el, { type: "select", selector: selectorOf(el), label: labelOf(el),
      options: [...el.options].slice(0, 10).map((o) => clean(o.value || o.textContent, 40)) });
  }
  const textTypes = ["text", "search", "email", "number", "tel", "url", "password", ""];
  for (const el of document.querySelectorAll("input:not([type=hidden]), textarea")) {
    const t = (el.getAttribute("type") || "").toLowerCase();
    if (el.tagName === "INPUT" && !textTypes.includes(t)) continue;
    if (!visible(el)) continue;
    add(el, { type: "input", selector: selectorOf(el), label: labelOf(el),
      placeholder: clean(el.getAttribute("placeholder"), 80) });
  }
  for (const el of document.querySelectorAll("button, input[type=submit], input[type=button], [role=button]")) {
    if (!visible(el)) continue;
    add(el, { type: "button", selector: selectorOf(el),
      label: clean(el.textContent || el.getAttribute("value") || el.getAttribute("aria-label"), 50) });
  }
  const tocHrefs = new Set();
  for (const el of document.querySelectorAll("[class*='toc'] a[href^='#'], nav a[href^='#'], [role='navigation'] a[href^='#'], .sidebar a[href^='#']")) {
    if (!visible(el)) continue;
    tocHrefs.add(el.getAttribute("href"));
    add(el, { type: "toc link", selector: selectorOf(el), label: clean(el.textContent, 120), href: el.getAttribute("href") });
  }
  for (const el of document.querySelectorAll("nav a, [role=navigation] a, .nav a, .tabs a, .menu a")) {
    if (!visible(el) || tocHrefs.has(el.getAttribute("href"))) continue;
    add(el, { type: "nav link", selector: selectorOf(el), label: clean(el.textContent, 50), href: el.href });
  }
  return out;
})()`;

/** The elements as a Markdown list, with a note when the list was cut. */
export function renderElements(all: InteractiveElement[], max: number): string {
  const shown = all.slice(0, max);
  const lines = ["## Interactive elements (for follow-up actions)", ""];
  if (shown.length < all.length) {
    lines.push(
      `_Showing ${shown.length} of ${all.length} elements; raise max_elements to see more._`,
      "",
    );
  }
  for (const e of shown) {
    lines.push(`- **${e.type}**: \`${e.selector.replace(/`/g, "'")}\``);
    if (e.label) lines.push(`  Label: ${e.label}`);
    if (e.placeholder) lines.push(`  Placeholder: ${e.placeholder}`);
    if (e.options?.length) lines.push(`  Options: ${e.options.join(", ")}`);
    if (e.href) lines.push(`  Href: ${e.href}`);
  }
  if (all.length === 0) lines.push("(none)");
  return lines.join("\n");
}
