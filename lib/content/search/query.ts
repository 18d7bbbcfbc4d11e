/**
 * The `search=` query language, parsed leniently.
 *
 * ```
 * foo bar             any term (whitespace is OR)
 * +foo +bar           both terms required
 * foo -bar            exclude bar
 * "exact phrase"      adjacent words in order
 * "some words"~3      phrase with up to 3 words between
 * (foo OR bar) baz    grouping, AND / OR / NOT
 * foo~  foo~2         fuzzy: edit distance 1 (or 2)
 * ```
 *
 * Matching is case-insensitive. A word that the tokenizer splits (`e-mail`,
 * `don't`) becomes a phrase of its pieces. What cannot be parsed (an
 * unbalanced parenthesis or quote, a dangling operator, an empty group) is
 * dropped and reported, so a natural-language question still searches.
 *
 * @module
 */
import { queryPieces } from "./words.ts";

/** A parsed query. */
export type QueryNode =
  | { type: "term"; term: string; fuzzy: number }
  | { type: "phrase"; terms: string[]; slop: number }
  | { type: "substring"; text: string; grams: string[] }
  | { type: "bool"; must: QueryNode[]; should: QueryNode[]; not: QueryNode[] };

/** A parse result with what was dropped. */
export interface ParsedQuery {
  /** The query tree (an empty bool when nothing remained). */
  root: QueryNode & { type: "bool" };
  /** What was dropped and why. */
  warnings: string[];
}

type Token =
  | { t: "word"; v: string; fuzzy?: number }
  | { t: "phrase"; v: string; slop: number }
  | { t: "open" }
  | { t: "close" }
  | { t: "plus" }
  | { t: "minus" }
  | { t: "and" }
  | { t: "or" }
  | { t: "not" };

function lex(input: string, warnings: string[]): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = input.length;
  while (i < n) {
    const c = input[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "(") {
      out.push({ t: "open" });
      i++;
      continue;
    }
    if (c === ")") {
      out.push({ t: "close" });
      i++;
      continue;
    }
    if ((c === "+" || c === "-") && i + 1 < n && !/\s/.test(input[i + 1])) {
      out.push({ t: c === "+" ? "plus" : "minus" });
      i++;
      continue;
    }
    if (c === '"' || c === "“" || c === "”") {
      let j = i + 1;
      while (j < n && input[j] !== '"' && input[j] !== "”" && input[j] !== "“") j++;
      if (j >= n) {
        warnings.push(
          `unclosed quote: searched ${JSON.stringify(input.slice(i + 1).trim())} as words`,
        );
        i++;
        continue;
      }
      const text = input.slice(i + 1, j);
      let slop = 0;
      let k = j + 1;
      const m = /^~(\d{1,2})/.exec(input.slice(k));
      if (m) {
        slop = Number(m[1]);
        k += m[0].length;
      }
      out.push({ t: "phrase", v: text, slop });
      i = k;
      continue;
    }
    let j = i;
    while (j < n && !/[\s()"“”]/.test(input[j])) j++;
    let word = input.slice(i, j);
    i = j;
    if (word === "AND" || word === "&&") out.push({ t: "and" });
    else if (word === "OR" || word === "||") out.push({ t: "or" });
    else if (word === "NOT") out.push({ t: "not" });
    else {
      let fuzzy: number | undefined;
      const m = /~(\d)?$/.exec(word);
      if (m && word.length > m[0].length) {
        fuzzy = m[1] === undefined ? 1 : Math.min(2, Number(m[1]));
        word = word.slice(0, -m[0].length);
      }
      out.push({ t: "word", v: word, fuzzy });
    }
  }
  return out;
}

function piecesNode(
  text: string,
  fuzzy: number | undefined,
  slop: number,
  warnings: string[],
): QueryNode | undefined {
  const pieces = queryPieces(text);
  if (pieces.length === 0) {
    if (text.trim() !== "") {
      warnings.push(`ignored ${JSON.stringify(text)}: no searchable characters`);
    }
    return undefined;
  }
  const nodes: QueryNode[] = pieces.map((p) =>
    p.kind === "word"
      ? { type: "term", term: p.term, fuzzy: 0 }
      : { type: "substring", text: p.text, grams: p.grams }
  );
  if (nodes.length === 1) {
    const only = nodes[0];
    if (only.type === "term" && fuzzy) only.fuzzy = fuzzy;
    return only;
  }
  if (fuzzy) {
    warnings.push(
      `fuzzy matching applies to single words; searched ${JSON.stringify(text)} exactly`,
    );
  }
  if (pieces.every((p) => p.kind === "word")) {
    return { type: "phrase", terms: pieces.map((p) => (p as { term: string }).term), slop };
  }
  return { type: "bool", must: nodes, should: [], not: [] };
}

/** Parses a query. Never throws. */
export function parseQuery(input: string): ParsedQuery {
  const warnings: string[] = [];
  const tokens = lex(input, warnings);
  let pos = 0;

  const parseGroup = (depth: number): QueryNode & { type: "bool" } => {
    const node: QueryNode & { type: "bool" } = { type: "bool", must: [], should: [], not: [] };
    // Clauses with their occurrence; AND/OR between them adjust it.
    const clauses: { node: QueryNode; occur: "must" | "should" | "not"; explicit: boolean }[] = [];
    let pendingAnd = false;
    while (pos < tokens.length) {
      const tok = tokens[pos];
      if (tok.t === "close") {
        if (depth === 0) {
          warnings.push("dropped an unmatched ')'");
          pos++;
          continue;
        }
        break;
      }
      if (tok.t === "and") {
        pos++;
        if (clauses.length === 0) warnings.push("dropped a leading AND");
        else pendingAnd = true;
        continue;
      }
      if (tok.t === "or") {
        pos++;
        if (clauses.length === 0) warnings.push("dropped a leading OR");
        continue;
      }
      let occur: "must" | "should" | "not" = "should";
      let explicit = false;
      while (
        pos < tokens.length &&
        (tokens[pos].t === "plus" || tokens[pos].t === "minus" || tokens[pos].t === "not")
      ) {
        const t = tokens[pos].t;
        occur = t === "plus" ? "must" : "not";
        explicit = true;
        pos++;
      }
      if (pos >= tokens.length) {
        warnings.push("dropped an operator at the end of the query");
        break;
      }
      const cur = tokens[pos];
      let child: QueryNode | undefined;
      if (cur.t === "open") {
        pos++;
        const inner = parseGroup(depth + 1);
        if (pos < tokens.length && tokens[pos].t === "close") pos++;
        else warnings.push("closed an unclosed '('");
        if (inner.must.length + inner.should.length + inner.not.length === 0) {
          warnings.push("dropped an empty group");
        } else child = inner;
      } else if (cur.t === "word") {
        pos++;
        child = piecesNode(cur.v, cur.fuzzy, 0, warnings);
      } else if (cur.t === "phrase") {
        pos++;
        child = piecesNode(cur.v, undefined, cur.slop, warnings);
        if (!child && cur.v.trim() === "") warnings.push("dropped an empty phrase");
      } else {
        pos++;
        continue;
      }
      if (!child) continue;
      if (pendingAnd) {
        const prev = clauses[clauses.length - 1];
        if (prev && prev.occur === "should") prev.occur = "must";
        if (occur === "should") occur = "must";
        pendingAnd = false;
      }
      clauses.push({ node: child, occur, explicit });
    }
    if (pendingAnd) warnings.push("dropped a trailing AND");
    for (const c of clauses) node[c.occur].push(c.node);
    return node;
  };

  const root = parseGroup(0);
  if (root.must.length === 0 && root.should.length === 0 && root.not.length > 0) {
    warnings.push("a query of exclusions alone matches nothing; add a term to search for");
  }
  return { root, warnings };
}

/** Every plain term of a query (for highlighting and ranking helpers). */
export function queryTerms(node: QueryNode): string[] {
  if (node.type === "term") return [node.term];
  if (node.type === "phrase") return [...node.terms];
  if (node.type === "substring") return [...node.grams];
  return [...node.must, ...node.should].flatMap(queryTerms);
}
