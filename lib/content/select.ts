/**
 * Main-content selection: which blocks of a page are its content.
 *
 * Runs after the single parse, on the blocks the converter wrote and the
 * element table it kept (text and link-text sizes of every subtree, class
 * and id hints), so extraction costs no second parse.
 *
 * Every block weighs for or against the elements that contain it: prose
 * (sentences with few links), code and data tables count for; link lists,
 * fragments (bylines, labels, buttons) and anything under an element whose
 * class or id says comment, sidebar, footer, related, share, promo... count
 * against. The content is the element with the greatest net weight: the
 * tightest box holding the most prose and the least furniture. On an
 * article that is the article body; on documentation, a specification or a
 * thread, where prose is everywhere, it is the box holding all of it, so
 * nothing is lost.
 *
 * Then the box is tidied: its preceding and following siblings join it when
 * they are prose themselves (a lede printed outside the body box), and
 * widgets inside it (sharing bars, newsletter forms, related links) and
 * short link lists are dropped.
 *
 * @module
 */
import type { BlockRecord, ElementTable } from "./html.ts";

/** Weight of a word of furniture against a word of prose. */
export const FURNITURE_WEIGHT = 0.6;

// Class and id words of boxes that never hold the content: reader comments
// (a long thread can outweigh the article, so no amount of prose excuses them).
const HARD = /(^|[\s_-])(comments?|comment-list|commentlist|disqus)([\s_-]|$)/;
// Class and id words of boxes that are furniture unless they hold most of the
// prose (a layout container named "has-sidebar", "penci_sidebar" or
// "advertisement-off-canvas--pusher" can wrap the whole article).
const SOFT =
  /(^|[\s_-])(outbrain|taboola|newsletter|cookie|advert(isement)?|ad-slot|ad-container|ad-wrapper|ad-unit|adsbygoogle|nocontent|no-content|ads?|sidebar|side-bar|rail|footer|foot|masthead|menu|navbar|nav|breadcrumbs?|related|recommend(ed|ations)?|more-stories|read-?more|popular|trending|most-read|promo|sponsor(ed)?|share|sharing|social|subscribe|subscription|signup|paywall|widget|tags|tag-list|author-bio|byline|modal|popup)([\s_-]|$)/;
// ...unless they also say this is the article body.
const BODY =
  /article-?body|articlebody|entry-content|post-content|post-body|story-body|article-content|main-content/;

function isProse(b: BlockRecord): boolean {
  return b.kind === "text" && b.text >= 25 && b.links / b.text < 0.3;
}

/** Membership test for the subtrees of flagged elements, memoised along ancestor chains. */
function subtreeMembership(el: ElementTable, flagged: Uint8Array): (e: number) => boolean {
  const memo = new Int8Array(el.parent.length); // 0 unknown, 1 in, -1 out
  return (e: number) => {
    if (e < 0) return false;
    const path: number[] = [];
    let a = e;
    let result = false;
    while (a >= 0) {
      if (memo[a] !== 0) {
        result = memo[a] === 1;
        break;
      }
      if (flagged[a]) {
        result = true;
        break;
      }
      path.push(a);
      a = el.parent[a];
    }
    for (const p of path) memo[p] = result ? 1 : -1;
    return result;
  };
}

/** The text of the first heading inside each element ("" when none), lowercased. */
function firstHeadings(
  blocks: readonly BlockRecord[],
  el: ElementTable,
  markdown: string,
): string[] {
  const first = new Array<string>(el.parent.length);
  for (const b of blocks) {
    if (b.kind !== "heading" || b.owner < 0) continue;
    const text = markdown.slice(b.start, b.end).toLowerCase();
    // Ancestors already holding a heading got it from an earlier one, and so did theirs.
    for (let a = b.owner; a >= 0 && first[a] === undefined; a = el.parent[a]) first[a] = text;
  }
  return first;
}

/** The furniture word a class or id names, if any. */
function furnitureWord(hint: string, soft: boolean): string | undefined {
  const m = (soft ? SOFT : HARD).exec(hint);
  return m ? m[2].split("-")[0] : undefined;
}

/**
 * Elements whose class or id marks them as furniture (soft marks yield to
 * prose-heavy boxes). An id that only repeats the element's own heading
 * ("comments" on a section titled "Comments", "the-nav-element" on a
 * specification's heading) names a topic, not a widget, and is ignored.
 */
function hinted(
  blocks: readonly BlockRecord[],
  el: ElementTable,
  markdown: string,
  prose: Float64Array,
  totalProse: number,
): { any: (e: number) => boolean; hard: (e: number) => boolean } {
  const flagged = new Uint8Array(el.parent.length);
  const hardFlagged = new Uint8Array(el.parent.length);
  let headings: string[] | undefined;
  const topical = (e: number, word: string) => {
    if (/^h[1-6]$/.test(el.tag[e])) return true;
    headings ??= firstHeadings(blocks, el, markdown);
    const heading = headings[e];
    return heading !== undefined && heading.includes(word);
  };
  const marks = (e: number, soft: boolean) => {
    if (furnitureWord(el.hint[e], soft) !== undefined) return true;
    const word = el.id[e] === "" ? undefined : furnitureWord(el.id[e], soft);
    return word !== undefined && !topical(e, word);
  };
  for (let e = 0; e < el.parent.length; e++) {
    if (el.hint[e] === "" && el.id[e] === "") continue;
    if (BODY.test(el.hint[e]) || BODY.test(el.id[e])) continue;
    if (marks(e, false)) flagged[e] = hardFlagged[e] = 1;
    else if (prose[e] < totalProse * 0.5 && marks(e, true)) flagged[e] = 1;
  }
  const card = cards(blocks, el, prose, totalProse);
  for (let e = 0; e < flagged.length; e++) if (card[e]) flagged[e] = 1;
  return { any: subtreeMembership(el, flagged), hard: subtreeMembership(el, hardFlagged) };
}

/** Longest text of a teaser card. */
const CARD_TEXT = 1500;

/**
 * Teaser cards: three or more sibling elements of the same tag and class,
 * each led by a link off the page or titled by one (a headline list, "more
 * stories", a grid of related articles), short enough to be a summary, and
 * together most of their parent (callouts sprinkled through an article are
 * not a list of teasers). On a page that is mostly such cards (an index, a
 * search result page) they are the content, and none are flagged.
 */
function cards(
  blocks: readonly BlockRecord[],
  el: ElementTable,
  prose: Float64Array,
  totalProse: number,
): Uint8Array {
  const n = el.parent.length;
  const titled = new Uint8Array(n);
  for (const b of blocks) {
    if (b.kind !== "heading" || b.owner < 0 || b.links * 2 < b.text) continue;
    for (let a = b.owner; a >= 0 && !titled[a]; a = el.parent[a]) titled[a] = 1;
  }
  const count = new Map<string, number>();
  const text = new Map<string, number>();
  // Class words with digits number the items ("grid_2", "post-1792") and are left out.
  const keyOf = (e: number) =>
    `${el.parent[e]} ${el.tag[e]} ${
      el.hint[e].replace(/\S*\d\S*/g, "").replace(/\s+/g, " ").trim()
    }`;
  const candidate = (e: number) =>
    (el.lead[e] === 1 || titled[e] === 1) && el.parent[e] >= 0 && el.tag[e] !== "p" &&
    el.text[e] <= CARD_TEXT;
  for (let e = 0; e < n; e++) {
    if (!candidate(e)) continue;
    const k = keyOf(e);
    count.set(k, (count.get(k) ?? 0) + 1);
    text.set(k, (text.get(k) ?? 0) + el.text[e]);
  }
  const flagged = new Uint8Array(n);
  let cardProse = 0;
  for (let e = 0; e < n; e++) {
    if (!candidate(e)) continue;
    const k = keyOf(e);
    if (count.get(k)! < 3 || text.get(k)! < 0.6 * el.text[el.parent[e]]) continue;
    flagged[e] = 1;
    // Prose of outermost cards only (element numbers are in document order).
    let a = el.parent[e];
    while (a >= 0 && !flagged[a]) a = el.parent[a];
    if (a < 0) cardProse += prose[e];
  }
  if (cardProse > 2 * (totalProse - cardProse)) return new Uint8Array(n);
  return flagged;
}

/** The weight of a block: positive for content, negative for furniture. */
function weight(b: BlockRecord, furniture: boolean): number {
  if (b.kind === "heading" || b.kind === "rule" || b.text === 0) return 0;
  const ld = b.links / b.text;
  if (furniture) return -FURNITURE_WEIGHT * b.text;
  if (b.kind === "code") return b.text;
  if (b.kind === "table") return ld < 0.5 ? b.text : -FURNITURE_WEIGHT * b.text;
  if (isProse(b)) return b.text * (1 - ld);
  return -FURNITURE_WEIGHT * b.text;
}

/** Chooses the blocks to keep (undefined: keep everything). */
export function selectMainContent(
  blocks: readonly BlockRecord[],
  el: ElementTable,
  markdown: string,
): boolean[] | undefined {
  const n = el.parent.length;
  if (n === 0 || blocks.length === 0) return undefined;
  // Prose per subtree, to tell a furniture box from a layout box that wraps the article.
  const prose = new Float64Array(n);
  let totalProse = 0;
  for (const b of blocks) {
    if (b.owner < 0 || !isProse(b)) continue;
    totalProse += b.text;
    for (let a = b.owner; a >= 0; a = el.parent[a]) prose[a] += b.text;
  }
  const hints = hinted(blocks, el, markdown, prose, totalProse);
  const furniture = hints.any;
  // Code under a soft mark (a "nav-tabs" box of samples) is still code.
  const blockFurniture = (b: BlockRecord) =>
    b.kind === "code" ? hints.hard(b.owner) : furniture(b.owner);
  const gain = new Float64Array(n);
  const weights = new Float64Array(blocks.length);
  let positive = 0;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (b.owner < 0) continue;
    const w = weight(b, blockFurniture(b));
    weights[i] = w;
    if (w === 0) continue;
    if (w > 0) positive += w;
    for (let a = b.owner; a >= 0; a = el.parent[a]) gain[a] += w;
  }
  if (positive === 0) return undefined;
  // The best box; on ties the deeper (tighter) one.
  let core = -1;
  let best = 0;
  for (let e = 0; e < n; e++) {
    if (gain[e] >= best && gain[e] > 0) {
      best = gain[e];
      core = e;
    }
  }
  if (core < 0) return undefined;

  // Siblings of the core that are content themselves join it.
  const selected = new Uint8Array(n);
  selected[core] = 1;
  const parent = el.parent[core];
  if (parent >= 0) {
    for (let e = core + 1; e < n; e++) {
      if (el.parent[e] === parent && gain[e] > 0 && !furniture(e)) selected[e] = 1;
    }
    for (let e = 0; e < core; e++) {
      if (el.parent[e] === parent && gain[e] > 0 && !furniture(e)) selected[e] = 1;
    }
    // A heading right before the box is its heading.
    for (let e = core - 1; e > parent; e--) {
      if (el.parent[e] !== parent) continue;
      if (/^h[1-6]$/.test(el.tag[e]) && !furniture(e)) selected[e] = 1;
      break;
    }
  }
  const inside = subtreeMembership(el, selected);
  const keep = new Array<boolean>(blocks.length);
  let all = true;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    let k = b.owner >= 0 && inside(b.owner);
    // Inside the box: drop widgets and teaser cards.
    if (k && blockFurniture(b)) k = false;
    keep[i] = k;
    if (!k) all = false;
  }
  return all ? undefined : keep;
}
