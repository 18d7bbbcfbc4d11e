/**
 * Markdown to plain text, for `format=text` of the HTTP API.
 *
 * Line by line, without a parser: the Markdown it reads is what our own
 * converter writes (ATX headings, `**strong**`, `*em*`, `` `code` ``,
 * `~~del~~`, links, GFM tables, fenced code, block quotes, `\`-escapes), plus
 * what pages served as Markdown commonly hold (`_em_`, `![alt](src)`,
 * `<autolinks>`). Code blocks keep their text verbatim; structure markers go,
 * links become `text (url)`, table rows become tab-separated cells.
 *
 * @module
 */

import { ITEM_FENCE } from "./fence.ts";

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]+|$)(.*?)(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const TABLE_DIVIDER = /^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$/;
const QUOTE = /^ {0,3}>[ \t]?/;

// Code spans: a run of backticks, then anything up to the same run.
const CODE_SPAN = /(`+)([\s\S]*?[^`])\1(?!`)/g;
const IMAGE = /!\[((?:\\.|[^\]\\])*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"(?:\\.|[^"\\])*")?\)/g;
const LINK = /\[((?:\\.|[^\]\\])*)\]\(((?:[^()\s]|\([^()\s]*\))*)(?:\s+"(?:\\.|[^"\\])*")?\)/g;
const AUTOLINK = /<((?:https?|mailto|ftp):[^\s<>]+)>/g;
const STRONG = /(^|[^\w*])\*\*(?=\S)([\s\S]*?\S)\*\*(?![\w*])/g;
const STRONG_U = /(^|[^\w_])__(?=\S)([\s\S]*?\S)__(?![\w_])/g;
const EM = /(^|[^\w*])\*(?=[^\s*])([\s\S]*?[^\s*])\*(?![\w*])/g;
const EM_U = /(^|[^\w_])_(?=[^\s_])([\s\S]*?[^\s_])_(?![\w_])/g;
const DEL = /~~(?=\S)([\s\S]*?\S)~~/g;
const ESCAPE = /\\([!-/:-@[-`{-~])/g;
const BR = /<br\s*\/?>/gi;

function inlineText(segment: string): string {
  return segment
    .replace(IMAGE, (_, alt: string) => alt)
    .replace(LINK, (_, text: string, href: string) => {
      const label = text.trim();
      if (href === "" || label === href || label === "") return label || href;
      return href.startsWith("#") ? label : `${label} (${href})`;
    })
    .replace(AUTOLINK, "$1")
    .replace(STRONG, "$1$2")
    .replace(STRONG_U, "$1$2")
    .replace(EM, "$1$2")
    .replace(EM_U, "$1$2")
    .replace(DEL, "$1")
    .replace(BR, " ")
    .replace(ESCAPE, "$1");
}

/** Inline Markdown of one line to text; code spans keep their content as written. */
export function inlineToText(line: string): string {
  let out = "";
  let last = 0;
  for (const m of line.matchAll(CODE_SPAN)) {
    out += inlineText(line.slice(last, m.index));
    const code = m[2];
    // One leading and trailing space pad a span whose content touches a backtick.
    out += /^ .* $/.test(code) && code.trim() !== "" ? code.slice(1, -1) : code;
    last = m.index + m[0].length;
  }
  return out + inlineText(line.slice(last));
}

/** Splits a GFM table row on unescaped pipes. */
function tableCells(line: string): string[] {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  const cells: string[] = [];
  let cell = "";
  for (let i = 0; i < row.length; i++) {
    const c = row[i];
    if (c === "\\" && row[i + 1] === "|") {
      cell += "\\|";
      i++;
    } else if (c === "|") {
      cells.push(cell);
      cell = "";
    } else cell += c;
  }
  cells.push(cell);
  return cells.map((x) => inlineToText(x.trim()));
}

/** Converts Markdown to plain text. */
export function markdownToText(markdown: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const raw of markdown.split(/\r\n|\r|\n/)) {
    if (fence !== undefined) {
      const close = FENCE.exec(raw);
      if (
        close && close[1][0] === fence[0] && close[1].length >= fence.length &&
        raw.trim() === close[1]
      ) {
        fence = undefined;
      } else out.push(raw);
      continue;
    }
    const open = FENCE.exec(raw) ?? ITEM_FENCE.exec(raw);
    if (open) {
      fence = open[1];
      continue;
    }
    let line = raw;
    while (QUOTE.test(line)) line = line.replace(QUOTE, "");
    if (RULE.test(line)) {
      out.push("");
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      out.push(inlineToText(heading[1]));
      continue;
    }
    if (TABLE_DIVIDER.test(line) && line.includes("-")) continue;
    if (/^\s*\|/.test(line)) {
      out.push(tableCells(line).join("\t"));
      continue;
    }
    out.push(inlineToText(line));
  }
  return out.join("\n").replace(/\n{3,}/g, "\n\n").trim();
}
