/**
 * The html5lib tree-construction inputs (vendored in fixtures/html5lib, MIT,
 * see its PROVENANCE.md) compared on the text they yield, which is what
 * conversion keeps. From each expected tree the comparator derives the
 * sequence of text runs with the block that holds them; the same sequence is
 * derived from what `walkHtml` reports. Two figures:
 *
 * - text in order: every run present, in order, under the same kind of
 *   nearest block (heading level, paragraph, list item, table cell, caption,
 *   preformatted, or none);
 * - block structure: the same, with the whole chain of headings, paragraphs,
 *   lists and tables above each run.
 *
 * Fragment cases (parsed in a context element) and `#script-off` cases are
 * left out: the converter always parses whole documents, as a browser with
 * scripting does. The test asserts the thresholds and prints the figures.
 *
 * Known differences (none drops text a browser shows):
 * - `<selectedcontent>` (webkit02.dat, 4 cases): a browser copies the chosen
 *   option into the select's button, so its text is there twice; we give it
 *   once;
 * - `<svg>` holding a NUL, then `<frameset>` (plain-text-unsafe.dat, 2): the
 *   frameset replaces a body whose text the walker has already passed on
 *   (it streams and takes nothing back), so we show more than a browser;
 * - `<template><col>Hello` (template.dat): a browser drops text in a
 *   template that began as a column group; we keep it;
 * - a `<caption>` after a `<select>` in a cell (template.dat, structure
 *   only): we leave the caption in the cell.
 */
import assert from "node:assert/strict";
import { walkHtml } from "../../../lib/content/html/tokenizer.ts";
import { ROOT_DIR } from "../../support/process.ts";

const DIR = `${ROOT_DIR}/fixtures/html5lib/tree-construction`;
const TEXT_THRESHOLD = 0.995;
const STRUCTURE_THRESHOLD = 0.97;

// Blocks a run of text is attributed to, and the containers the structure figure adds.
const BLOCKS = new Set([
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "p",
  "li",
  "td",
  "th",
  "caption",
  "pre",
  "dt",
  "dd",
]);
const CONTAINERS = new Set(["ul", "ol", "dl", "table", "tr"]);
// SVG and MathML elements whose content is HTML.
const INTEGRATION = new Set(["foreignobject", "desc", "title", "mi", "mo", "mn", "ms", "mtext"]);

/** One run: the nearest block kind, the structural chain, the text. */
interface Run {
  block: string;
  chain: string;
  text: string;
}

/** Accumulates text runs from a stream of opens, closes and text. */
class Runs {
  readonly runs: Run[] = [];
  #stack: { name: string; id: number }[] = [];
  #ids = 0;
  #owner = -2;

  open(name: string): void {
    this.#stack.push({ name, id: this.#ids++ });
  }

  close(): void {
    this.#stack.pop();
  }

  text(raw: string): void {
    let blockAt = -1;
    for (let i = this.#stack.length - 1; i >= 0; i--) {
      if (BLOCKS.has(this.#stack[i].name)) {
        blockAt = i;
        break;
      }
    }
    const owner = blockAt >= 0 ? this.#stack[blockAt].id : -1;
    const last = this.runs[this.runs.length - 1];
    if (last && owner === this.#owner) {
      last.text += raw;
      return;
    }
    this.#owner = owner;
    const chain = this.#stack.filter((e) => BLOCKS.has(e.name) || CONTAINERS.has(e.name))
      .map((e) => e.name).join(">");
    this.runs.push({ block: blockAt >= 0 ? this.#stack[blockAt].name : "", chain, text: raw });
  }

  /** The runs with whitespace collapsed, empty ones dropped and neighbours of one block merged. */
  result(): Run[] {
    const out: Run[] = [];
    for (const run of this.runs) {
      const text = run.text.replace(/[ \t\n\f\r]+/g, " ").trim();
      if (!text) continue;
      const last = out[out.length - 1];
      if (last && last.block === run.block && last.chain === run.chain && last.block === "") {
        last.text += " " + text;
      } else out.push({ ...run, text });
    }
    return out;
  }
}

interface TreeCase {
  file: string;
  input: string;
  document: string[];
  fragment: boolean;
  scriptOff: boolean;
}

function parseDat(file: string, source: string): TreeCase[] {
  const cases: TreeCase[] = [];
  const lines = source.split("\n");
  let i = 0;
  while (i < lines.length) {
    if (lines[i] !== "#data") {
      i++;
      continue;
    }
    const data: string[] = [];
    for (i++; i < lines.length && !lines[i].startsWith("#errors"); i++) data.push(lines[i]);
    const test: TreeCase = {
      file,
      input: data.join("\n"),
      document: [],
      fragment: false,
      scriptOff: false,
    };
    for (; i < lines.length && lines[i] !== "#document"; i++) {
      if (lines[i] === "#document-fragment") test.fragment = true;
      if (lines[i] === "#script-off") test.scriptOff = true;
    }
    for (i++; i < lines.length && lines[i] !== "#data"; i++) test.document.push(lines[i]);
    while (test.document.length && test.document[test.document.length - 1] === "") {
      test.document.pop();
    }
    cases.push(test);
  }
  return cases;
}

/** The runs of an expected tree (`| `-indented lines). */
function expectedRuns(document: string[]): Run[] {
  const runs = new Runs();
  const depths: number[] = []; // depth of each open element
  const closeTo = (depth: number) => {
    while (depths.length && depths[depths.length - 1] >= depth) {
      depths.pop();
      runs.close();
    }
  };
  for (let i = 0; i < document.length; i++) {
    const line = document[i];
    if (!line.startsWith("| ")) continue;
    const body = line.slice(2);
    const content = body.trimStart();
    const depth = (body.length - content.length) / 2;
    if (content.startsWith('"')) {
      let text = content.slice(1);
      while (!(text.endsWith('"') && (text.length > 0)) && i + 1 < document.length) {
        text += "\n" + document[++i];
      }
      closeTo(depth);
      runs.text(text.slice(0, -1));
    } else if (content.startsWith("<!--") || content.startsWith("<!DOCTYPE")) {
      // Comments may span lines too.
      while (!document[i].endsWith(">") && i + 1 < document.length) i++;
    } else if (content.startsWith("<") && content.endsWith(">")) {
      closeTo(depth);
      const name = content.slice(1, -1);
      const [first, second] = name.split(" ");
      // Foreign elements are "svg path"; only HTML names count as blocks.
      runs.open(second === undefined ? first : `${first}:${second}`);
      depths.push(depth);
    }
    // Attribute lines and "content" (template contents) add nothing.
  }
  closeTo(0);
  return runs.result();
}

/** The runs of what walkHtml reports. */
function ourRuns(input: string): Run[] {
  const runs = new Runs();
  // Whether each open element is SVG or MathML (walkHtml reports names only).
  const foreign: boolean[] = [];
  const points: boolean[] = [];
  walkHtml(input, {
    open(name) {
      const top = foreign.length - 1;
      const inside = top >= 0 && foreign[top] && !points[top];
      const isForeign = inside || name === "svg" || name === "math";
      foreign.push(isForeign);
      points.push(isForeign && INTEGRATION.has(name));
      runs.open(isForeign ? `x:${name}` : name);
    },
    close() {
      foreign.pop();
      points.pop();
      runs.close();
    },
    text: (text) => runs.text(text),
  });
  return runs.result();
}

const key = (runs: Run[], withChain: boolean) =>
  JSON.stringify(runs.map((r) => withChain ? [r.chain, r.text] : [r.block, r.text]));

Deno.test("html5lib tree construction: text in order and block structure", async () => {
  const files = [...Deno.readDirSync(DIR)].map((e) => e.name).filter((n) => n.endsWith(".dat"))
    .sort();
  assert.ok(files.length >= 50, `the vendored tree-construction tests are in ${DIR}`);
  let total = 0;
  let skipped = 0;
  let textOk = 0;
  let structureOk = 0;
  const textFailures: string[] = [];
  const structureFailures: string[] = [];
  for (const file of files) {
    for (const test of parseDat(file, await Deno.readTextFile(`${DIR}/${file}`))) {
      if (test.fragment || test.scriptOff) {
        skipped++;
        continue;
      }
      total++;
      const want = expectedRuns(test.document);
      const got = ourRuns(test.input);
      const line = () =>
        `${file}: ${JSON.stringify(test.input).slice(0, 100)}\n    want ${
          key(want, true).slice(0, 200)
        }\n    got  ${key(got, true).slice(0, 200)}`;
      if (key(want, false) === key(got, false)) textOk++;
      else textFailures.push(line());
      if (key(want, true) === key(got, true)) structureOk++;
      else structureFailures.push(line());
    }
  }
  const pct = (k: number) => `${(k / total * 100).toFixed(2)} %`;
  console.log(
    `html5lib tree construction: ${total} documents (${skipped} fragment or script-off cases left out)\n` +
      `  text in order:   ${textOk} / ${total} (${pct(textOk)})\n` +
      `  block structure: ${structureOk} / ${total} (${pct(structureOk)})\n` +
      `  text failures:\n  ${textFailures.slice(0, 60).join("\n  ")}\n` +
      `  structure-only failures:\n  ${
        structureFailures.filter((f) => !textFailures.includes(f)).slice(0, 60).join("\n  ")
      }`,
  );
  assert.ok(textOk / total >= TEXT_THRESHOLD, `text in order ${pct(textOk)} is below 99.5 %`);
  assert.ok(
    structureOk / total >= STRUCTURE_THRESHOLD,
    `block structure ${pct(structureOk)} is below 97 %`,
  );
});
