/**
 * References of a MediaWiki article, from its rendered HTML: numbered
 * footnotes (the largest `ol.references`, numbered by position) and inline
 * author-date citations (`#CITEREF…` links resolved to their bibliography
 * entries).
 *
 * @module
 */
import { walkHtml } from "../../content/html/tokenizer.ts";

interface Node {
  tag: string;
  attrs: Record<string, string>;
  children: (Node | string)[];
  parent?: Node;
}

const ATTRS = new Set(["class", "id", "href"]);

function tree(html: string): Node {
  const root: Node = { tag: "#root", attrs: {}, children: [] };
  let current = root;
  walkHtml(html, {
    open(name, attrs) {
      const node: Node = { tag: name, attrs, children: [], parent: current };
      current.children.push(node);
      current = node;
    },
    text(text) {
      current.children.push(text);
    },
    close() {
      if (current.parent) current = current.parent;
    },
  }, ATTRS);
  return root;
}

function hasClass(node: Node, cls: string): boolean {
  return (node.attrs.class ?? "").split(/\s+/).includes(cls);
}

function* walk(node: Node): Generator<Node> {
  for (const child of node.children) {
    if (typeof child === "string") continue;
    yield child;
    yield* walk(child);
  }
}

function textOf(node: Node): string {
  let out = "";
  for (const child of node.children) {
    if (typeof child === "string") out += child;
    else if (child.tag === "style" || child.tag === "script") continue;
    else out += textOf(child);
  }
  return out;
}

function clean(text: string): string {
  return text.replace(/\s+/g, " ").replace(/^\^\s*/, "").trim();
}

function firstExternal(node: Node): { url: string; title: string } | undefined {
  for (const n of walk(node)) {
    if (n.tag === "a" && hasClass(n, "external") && /^https?:\/\//.test(n.attrs.href ?? "")) {
      return { url: n.attrs.href, title: clean(textOf(n)) };
    }
  }
  return undefined;
}

/** A bibliography entry a CITEREF link points to. */
export interface Source {
  /** Its text. */
  text: string;
  /** Its first external link. */
  link?: { url: string; title: string };
}

/** One numbered footnote. */
export interface Footnote {
  /** Number (position in the list). */
  n: number;
  /** Text. */
  text: string;
  /** First external link. */
  link?: { url: string; title: string };
  /** Bibliography entries its CITEREF links resolve to. */
  sources: Source[];
}

/** One inline author-date citation. */
export interface Citation {
  /** The CITEREF key (without `#`). */
  key: string;
  /** The link's text, as the article shows it (Smith 2007). */
  shorthand: string;
  /** The bibliography entry. */
  source: Source;
}

/** The references of an article. */
export interface References {
  /** Footnotes in order. */
  footnotes: Footnote[];
  /** Inline citations, first occurrence order, deduplicated. */
  citations: Citation[];
}

/** Extracts footnotes and inline citations from an article's HTML. */
export function extractReferences(html: string): References {
  const root = tree(html);
  const byId = new Map<string, Node>();
  for (const n of walk(root)) if (n.attrs.id && !byId.has(n.attrs.id)) byId.set(n.attrs.id, n);
  const resolve = (key: string): Source | undefined => {
    const target = byId.get(key);
    if (!target) return undefined;
    const holder = target.parent && target.parent.tag !== "#root" ? target.parent : target;
    const text = clean(textOf(holder));
    return text ? { text, link: firstExternal(holder) } : undefined;
  };
  let list: Node | undefined;
  let most = 0;
  for (const n of walk(root)) {
    if (n.tag !== "ol" || !hasClass(n, "references")) continue;
    const items = n.children.filter((c) => typeof c !== "string" && c.tag === "li").length;
    if (items > most) [list, most] = [n, items];
  }
  const footnotes: Footnote[] = [];
  if (list) {
    const items = list.children.filter((c): c is Node => typeof c !== "string" && c.tag === "li");
    items.forEach((li, i) => {
      const body = [...walk(li)].find((n) => hasClass(n, "reference-text")) ?? li;
      const sources: Source[] = [];
      for (const a of walk(body)) {
        const href = a.tag === "a" ? a.attrs.href ?? "" : "";
        if (!href.startsWith("#CITEREF")) continue;
        const source = resolve(decodeKey(href.slice(1)));
        if (source) sources.push(source);
      }
      footnotes.push({ n: i + 1, text: clean(textOf(body)), link: firstExternal(body), sources });
    });
  }
  const citations: Citation[] = [];
  const seen = new Set<string>();
  const visit = (node: Node): void => {
    for (const child of node.children) {
      if (typeof child === "string") continue;
      if (hasClass(child, "mw-references-wrap") || hasClass(child, "references")) continue;
      const href = child.tag === "a" ? child.attrs.href ?? "" : "";
      if (href.startsWith("#CITEREF")) {
        const key = decodeKey(href.slice(1));
        if (!seen.has(key)) {
          seen.add(key);
          const source = resolve(key);
          if (source) citations.push({ key, shorthand: clean(textOf(child)), source });
        }
      }
      visit(child);
    }
  };
  visit(root);
  return { footnotes, citations };
}

function decodeKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** Normalises a requested citation (`#CITEREFFoo2005`, `CITEREFFoo2005` or `Foo2005`) to its key. */
export function citationKey(asked: string): string {
  const k = asked.trim().replace(/^#/, "");
  return k.startsWith("CITEREF") ? k : `CITEREF${k}`;
}

function md(text: string): string {
  return text.replace(/([[\]*_`])/g, "\\$1");
}

function linkMd(link: { url: string; title: string }): string {
  return `[${md(link.title || link.url)}](${link.url.replace(/[()\s]/g, encodeURIComponent)})`;
}

/** One footnote as Markdown. */
export function renderFootnote(f: Footnote): string {
  let line = `[^${f.n}]: ${md(f.text)}`;
  if (f.link) line += ` (${linkMd(f.link)})`;
  for (const s of f.sources) {
    line += s.link ? ` — **${linkMd(s.link)}** ${md(s.text)}` : ` — *${md(s.text)}*`;
  }
  return line;
}

/** One inline citation as Markdown. */
export function renderCitation(c: Citation): string {
  const lines = [`[${md(c.shorthand || c.key)}](#${c.key})`, `: ${md(c.source.text)}`];
  if (c.source.link) lines.push(`: **${linkMd(c.source.link)}**`);
  return lines.join("\n");
}
