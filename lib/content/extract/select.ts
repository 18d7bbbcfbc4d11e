/**
 * Main-content selection: which blocks of a page are its content.
 *
 * Runs after the single parse, on the blocks the converter wrote and the
 * element table it kept (text and off-page link text of every subtree,
 * class and id), so extraction costs no second parse.
 *
 * Every block weighs for or against the elements that contain it: its own
 * words for and its link text against, code and data tables for, short
 * fragments (bylines, labels, buttons) against, and everything under an
 * element marked as furniture against: a class or id naming comments, a
 * sidebar, related links, sharing, ads... (soft marks yield to a box holding
 * most of the page's prose, and an id that repeats the element's own
 * heading names a topic, not a widget), or a teaser card (one of three or
 * more like-classed siblings, each led by a link elsewhere, with a summary).
 * The content is the tightest element close to the greatest net weight: on
 * an article, the article body; on documentation, a specification or a
 * thread, where prose is everywhere, the box holding all of it.
 *
 * Then the box is tidied: siblings heavy enough join it, and so does the
 * article continuing right after it; the heading right before it heads it;
 * inside it, furniture, photo captions and one-link promotional paragraphs
 * go, and headings whose sections lost everything go with them. When the
 * result holds almost none of the page's content, the choice is made again
 * without the marks, and failing that the page is kept whole.
 *
 * Lengths are Latin-equivalent characters and words are counted in every
 * script (`width.ts`): a Japanese sentence of twenty characters is a
 * sentence, not a fragment, and a Thai line needs no full stop.
 *
 * @module
 */
import { type BlockRecord, type ElementTable, hintOf, idOf, tagOf } from "../html/markdown.ts";
import { endsSentence, nextWide, textWidth, wordCount } from "./width.ts";
import { plainText } from "./plain_text.ts";

/** Weight of a word of furniture against a word of prose. */
export const FURNITURE_WEIGHT = 0.6;

// Class and id words of boxes that never hold the content: reader comments
// (a long thread can outweigh the article, so no amount of prose excuses them).
const HARD = /(^|[\s_-])(comments?|comment-list|commentlist|disqus)([\s_-]|$)/i;
// Class and id words of boxes that are furniture unless they hold most of the
// prose (a layout container named "has-sidebar", "penci_sidebar" or
// "advertisement-off-canvas--pusher" can wrap the whole article). An
// author's box is named by its compound words ("author-box", "entry-author"):
// a bare "author-<name>" is the class WordPress gives the article itself.
const SOFT =
  /(^|[\s_-])(outbrain|taboola|newsletter|cookie|advert(isement)?|ad-slot|ad-container|ad-wrapper|ad-unit|adsbygoogle|nocontent|no-content|ads?|sidebar|side-bar|rail|footer|foot|masthead|menu|navbar|nav|breadcrumbs?|related|recommend(ed|ations)?|more-stories|read-?more|popular|trending|most-read|promo|sponsor(ed)?|share|sharing|social|subscribe|subscription|signup|widget|tags|tag-list|author-bio|author-?box|author-?info|about-(?:the-)?author|author-card|author-description|author-details|author-profile|entry-author|post-author|article-author|byline|modal|popup)([\s_-]|$)/i;
// Class words of a post embedded from a social network (a tweet, an
// Instagram or Facebook post, a TikTok, a Bluesky or Mastodon post): quoted
// by the article, so content, whatever the box around it is called.
const EMBEDDED_POST =
  /(^|[\s_-])(twitter-tweet|twitter-video|instagram-media|tiktok-embed|fb-post|fb-video|bluesky-embed|mastodon-embed|reddit-embed-bq|reddit-card|threads-embed|text-post-media|embedded-post)([\s_-]|$)/i;
// Class words of a photo's caption or credit.
const CAPTION = /(^|[\s_-])(caption|captions|credit|credits|photo-credit|image-credit)([\s_-]|$)/i;
// Class words of the box holding an article's own text.
const ARTICLE_BODY_WORDS =
  "article-?body|articlebody|entry-content|post-content|post-body|story-body|article-content";
const ARTICLE_BODY = new RegExp(`(^|[\\s_-])(${ARTICLE_BODY_WORDS})([\\s_-]|$)`, "i");
// A furniture mark yields when the class or id also says this is the body or the main content.
const BODY = new RegExp(`${ARTICLE_BODY_WORDS}|main-content`, "i");

function isProse(b: BlockRecord): boolean {
  return b.kind === "text" && b.text >= 25 && b.links / b.text < 0.3;
}

/**
 * Adds every element's value into its ancestors' in one pass from the last
 * element back (elements are numbered in document order, so a parent comes
 * before its children): a subtree's total without walking each element's
 * ancestor chain, which on a page nested ten thousand deep cost ten
 * thousand steps a block. With `only` (elements from the last back), just
 * those are added in: the rest add nothing (see `measured`).
 */
function addUp(
  values: Float64Array | Int32Array,
  parent: Int32Array,
  only?: Int32Array,
): void {
  if (only === undefined) {
    for (let e = values.length - 1; e > 0; e--) {
      const p = parent[e];
      if (p >= 0) values[p] += values[e];
    }
    return;
  }
  for (const e of only) {
    const p = parent[e];
    if (e > 0 && p >= 0) values[p] += values[e];
  }
}

/** Membership test for the subtrees of flagged elements, memoised along ancestor chains. */
function subtreeMembership(el: ElementTable, flagged: Uint8Array): (e: number) => boolean {
  const memo = new Int8Array(el.parent.length); // 0 unknown, 1 in, -1 out
  return (e: number) => {
    if (e < 0) return false;
    // Asked of every block's owner several times: answered without a path once known.
    if (memo[e] !== 0) return memo[e] === 1;
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

/**
 * The first heading block inside each element (-1 when none): numbers, not
 * texts, since the text is read of the few elements whose id names
 * furniture, not of the 270,000 elements of a specification.
 */
function firstHeadings(blocks: readonly BlockRecord[], el: ElementTable): Int32Array {
  const first = new Int32Array(el.parent.length).fill(-1);
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (b.kind !== "heading" || b.owner < 0) continue;
    // Ancestors already holding a heading got it from an earlier one, and so did theirs.
    for (let a = b.owner; a >= 0 && first[a] === -1; a = el.parent[a]) first[a] = i;
  }
  return first;
}

/** The furniture word a class or id names, if any. */
function furnitureWord(hint: string, soft: boolean): string | undefined {
  const m = (soft ? SOFT : HARD).exec(hint);
  return m ? m[2].split("-")[0].toLowerCase() : undefined;
}

/** The words of an id or a heading, lowercased, three letters or more. */
function words(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 3);
}

/**
 * Whether an id and a heading share a word besides the furniture word `word`
 * (its first five letters, or the whole of a shorter word): the id is then
 * the slug of a section of that topic ("sane-set-cookie-syntax" on
 * "Syntax", "cookie-date" on "Dates"), not the name of a widget.
 */
function sharesWord(id: string, heading: string, word: string): boolean {
  const inHeading = words(heading);
  return words(id).some((w) => {
    if (w.startsWith(word)) return false;
    return inHeading.some((h) => {
      const n = Math.min(5, w.length, h.length);
      return n >= 4 ? w.slice(0, n) === h.slice(0, n) : w === h;
    });
  });
}

/**
 * Elements whose class or id marks them as furniture (soft marks yield to
 * prose-heavy boxes). An id that only repeats the element's own heading
 * ("comments" on a section titled "Comments", "the-nav-element" on a
 * specification's heading), or shares another word with it (a section's
 * slug: "cookie-date" on "Dates"), names a topic, not a widget, and is
 * ignored.
 */
function hinted(
  blocks: readonly BlockRecord[],
  el: ElementTable,
  markdown: string,
  prose: Float64Array,
  totalProse: number,
): Marks {
  const flagged = new Uint8Array(el.parent.length);
  const hardFlagged = new Uint8Array(el.parent.length);
  let headings: Int32Array | undefined;
  const topical = (e: number, word: string) => {
    if (/^h[1-6]$/.test(tagOf(el, e))) return true;
    headings ??= firstHeadings(blocks, el);
    const h = headings[e];
    if (h < 0) return false;
    const heading = markdown.slice(blocks[h].start, blocks[h].end).toLowerCase();
    return heading.includes(word) || sharesWord(idOf(el, e), heading, word);
  };
  const marks = (e: number, soft: boolean) => {
    if (hintOf(el, e) !== "" && (soft ? SOFT : HARD).test(hintOf(el, e))) return true;
    const word = idOf(el, e) === "" ? undefined : furnitureWord(idOf(el, e), soft);
    return word !== undefined && !topical(e, word);
  };
  // Text of embedded posts in each subtree: a box that is mostly one (a
  // "social-embed" or "widget" wrapper) is not furniture.
  const embedded = new Int32Array(el.parent.length);
  // Whether an element is an embedded post or inside one (only the outermost counts).
  const inEmbed = new Uint8Array(el.parent.length);
  let embeds = false;
  for (let e = 0; e < el.parent.length; e++) {
    const p = el.parent[e];
    const inner = p >= 0 && inEmbed[p] === 1;
    if (inner) inEmbed[e] = 1;
    if (hintOf(el, e) === "" || !EMBEDDED_POST.test(hintOf(el, e))) continue;
    inEmbed[e] = 1;
    if (!inner) embedded[e] = el.text[e];
    embeds = true;
  }
  // (Most pages embed no post: nothing to add up.)
  if (embeds) addUp(embedded, el.parent);
  // Only the marks of elements holding a block are ever read to any effect:
  // the blocks' owners and their ancestors decide the blocks' weights and
  // fates, and an element holding none weighs nothing, so whether it is
  // chosen or passed over beside the content box changes no block (see
  // `choose`). A specification's terms, links and code spans (WHATWG HTML:
  // most of its 270,000 elements, and most of its ids) are not tested.
  const holds = new Uint8Array(el.parent.length);
  for (const b of blocks) {
    for (let a = b.owner; a >= 0 && !holds[a]; a = el.parent[a]) holds[a] = 1;
  }
  for (let e = 0; e < el.parent.length; e++) {
    if (!holds[e] || (hintOf(el, e) === "" && idOf(el, e) === "")) continue;
    const hard = marks(e, false);
    if (!hard && embedded[e] > 0 && embedded[e] >= el.text[e] * 0.5) continue;
    if (!hard && !(prose[e] < totalProse * 0.5 && marks(e, true))) continue;
    if (BODY.test(hintOf(el, e)) || BODY.test(idOf(el, e))) continue;
    flagged[e] = 1;
    if (hard) hardFlagged[e] = 1;
  }
  const card = cards(blocks, el, prose, totalProse);
  for (let e = 0; e < flagged.length; e++) if (card[e]) flagged[e] = 1;
  return { any: subtreeMembership(el, flagged), hard: subtreeMembership(el, hardFlagged) };
}

/** Share of the best box's weight a tighter box may lack and still be chosen. */
const CORE_SLACK = 0.15;

/** Length range of a paragraph that is only a link elsewhere (shorter: a source label). */
const PROMO_MIN = 20;
const PROMO_MAX = 200;

/** Elements that are blocks of an article's text (not boxes of their own). */
const CONTENT_BLOCK = new Set([
  "p",
  "ul",
  "ol",
  "dl",
  "blockquote",
  "pre",
  "table",
  "figure",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
]);

/** Most negative weight of a slot the article may continue across (an "Advertisement" label). */
const CONTINUATION_GAP = 30;

/** Content (characters) the chosen box must hold, unless it holds this share of the page's. */
const FALLBACK_MIN = 500;
const FALLBACK_SHARE = 0.2;

/** Least weight (characters of prose, about) of a sibling joining the content box. */
const SIBLING_MIN = 80;
/** ...and least share of the box's own weight. */
const SIBLING_SHARE = 0.1;

/** Least text a teaser card has besides its links (a summary, a date, a byline). */
const CARD_WORDS = 20;

/** Longest text of a teaser card. */
const CARD_TEXT = 1500;

/**
 * Teaser cards: three or more sibling elements of the same tag and class,
 * each led by a link off the page or titled by one (a headline list, "more
 * stories", a grid of related articles; a link in code font names a term
 * of a specification's list, not a story), short enough to be a summary, and
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
    `${el.parent[e]} ${tagOf(el, e)} ${
      hintOf(el, e) === "" ? "" : hintOf(el, e).replace(/\S*\d\S*/g, "").replace(/\s+/g, " ").trim()
    }`;
  // Lists inside a box that says it is the article body are the article's own.
  const inBody = new Uint8Array(n);
  for (let e = 0; e < n; e++) {
    const p = el.parent[e];
    inBody[e] = (p >= 0 && inBody[p]) || (hintOf(el, e) !== "" && ARTICLE_BODY.test(hintOf(el, e)))
      ? 1
      : 0;
  }
  const candidate = (e: number) =>
    (el.lead[e] === 1 || titled[e] === 1) && el.parent[e] >= 0 && tagOf(el, e) !== "p" &&
    el.text[e] <= CARD_TEXT && !inBody[e] &&
    // A teaser says something besides its link; a bare list of links (a
    // specification's list of the terms it imports) is left to the weights.
    el.text[e] - el.links[e] >= CARD_WORDS;
  // The candidates in document order, each with its key (made once).
  const candidates: number[] = [];
  const keys: string[] = [];
  for (let e = 0; e < n; e++) {
    if (!candidate(e)) continue;
    const k = keyOf(e);
    candidates.push(e);
    keys.push(k);
    count.set(k, (count.get(k) ?? 0) + 1);
    text.set(k, (text.get(k) ?? 0) + el.text[e]);
  }
  const flagged = new Uint8Array(n);
  // Whether a card encloses the element (element numbers are in document order).
  const inCard = new Uint8Array(n);
  let cardProse = 0;
  for (let c = 0, e = 0; c < candidates.length; c++) {
    const card = candidates[c];
    for (; e <= card; e++) {
      const p = el.parent[e];
      if (p >= 0 && (flagged[p] === 1 || inCard[p] === 1)) inCard[e] = 1;
    }
    const k = keys[c];
    if (count.get(k)! < 3 || text.get(k)! < 0.6 * el.text[el.parent[card]]) continue;
    flagged[card] = 1;
    // Prose of outermost cards only.
    if (!inCard[card]) cardProse += prose[card];
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
  // Sentences: their own words count for, their link text against.
  if (b.kind === "text" && b.text >= 25) return b.text * (1 - ld) - FURNITURE_WEIGHT * b.links;
  return -FURNITURE_WEIGHT * b.text;
}

/**
 * Drops kept headings whose sections lost everything they held (the title
 * of a teaser list whose cards were dropped).
 */
function dropEmptyHeadings(blocks: readonly BlockRecord[], keep: boolean[]): void {
  // Backwards, so each heading knows what survived under it.
  let kept = false;
  let dropped = false;
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i];
    if (b.kind !== "heading") {
      if (b.text === 0) continue;
      if (keep[i]) kept = true;
      else dropped = true;
      continue;
    }
    if (keep[i] && dropped && !kept) keep[i] = false;
    if (keep[i]) {
      kept = true;
      dropped = false;
    } else dropped = true;
  }
}

/**
 * A caption that numbers its figure ("Figure 3: ...", "Fig. 2", "Table 1"),
 * as documents label the diagrams and tables their text refers to; a photo's
 * caption in a story is not numbered, or credits its photographer
 * ({@link PHOTO_CREDIT}).
 */
const NUMBERED_CAPTION =
  /^(?:figure|fig\.|table|diagram|listing|example|abbildung|abb\.|tabelle|figura|tabla|tableau)\s*\d+(?:[.:\s]|$)/i;

/** A photo's credit in a caption ("Photo: ...", "(Foto: ...)", "© 2024 ...", "courtesy of"). */
const PHOTO_CREDIT =
  /\b(?:photo|foto|bild|image|picture|photograph)\s*(?:by|credit|courtesy|:)|©|\(c\)\s*\d{4}|\bcourtesy\b/i;

/**
 * Photo captions and credits: text under a `figcaption` or a box whose class
 * says caption or credit, in a figure that holds no table or code (whose
 * captions label content and stay), unless the caption numbers its figure.
 * The image itself stays.
 */
function captions(
  blocks: readonly BlockRecord[],
  el: ElementTable,
  text: PlainTexts,
): (e: number) => boolean {
  const n = el.parent.length;
  const labelsContent = new Uint8Array(n);
  for (const b of blocks) {
    if ((b.kind !== "table" && b.kind !== "code") || b.owner < 0) continue;
    for (let a = b.owner; a >= 0 && !labelsContent[a]; a = el.parent[a]) labelsContent[a] = 1;
  }
  const flagged = new Uint8Array(n);
  // The figure each element is in (itself included), or -1.
  const figure = new Int32Array(n);
  for (let e = 0; e < n; e++) {
    const p = el.parent[e];
    figure[e] = tagOf(el, e) === "figure" ? e : p >= 0 ? figure[p] : -1;
    const hint = hintOf(el, e);
    if (tagOf(el, e) !== "figcaption" && (hint === "" || !CAPTION.test(hint))) continue;
    // The figure (or the caption's parent) must not hold a table or code.
    const box = figure[e] >= 0 ? figure[e] : p;
    if (box < 0 || !labelsContent[box]) flagged[e] = 1;
  }
  // A caption whose first text numbers the figure stays (the first block of each caption decides).
  if (flagged.includes(1)) {
    // The caption holding each element (-1: none, -2: not looked up yet), found once per element.
    const captionOf = new Int32Array(n).fill(-2);
    const caption = (e: number): number => {
      const path: number[] = [];
      let c = e;
      while (c >= 0 && captionOf[c] === -2 && !flagged[c]) {
        path.push(c);
        c = el.parent[c];
      }
      const found = c < 0 ? -1 : captionOf[c] === -2 ? c : captionOf[c];
      for (const p of path) captionOf[p] = found;
      return found;
    };
    const decided = new Uint8Array(n);
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i];
      if (b.owner < 0 || b.text === 0) continue;
      const c = caption(b.owner);
      if (c < 0 || decided[c]) continue;
      decided[c] = 1;
      const t = text(i);
      if (NUMBERED_CAPTION.test(t) && !PHOTO_CREDIT.test(t)) flagged[c] = 0;
    }
  }
  return subtreeMembership(el, flagged);
}

// What an article's edges say that is not the article: prompts to share,
// follow, subscribe or comment, newsletter boxes and contact lines. A prompt
// speaks to the reader: an imperative opening a sentence ("Subscribe to...",
// "Follow us on...", "Email Ada Quill at ada@..."), "you can subscribe",
// "your inbox", "follow us"; the same words inside a sentence of the story
// ("millions subscribe to the service", "fans follow her on tour", "she
// wanted to share the story") are not one.
const R = String.raw;
const OPENS = R`(?:^|[.!?:;]\s+|[—–|•]\s*)`;
const NETWORK =
  R`(?:twitter|facebook|instagram|linkedin|tiktok|youtube|threads|bluesky|mastodon|x)\b`;
const SIGN_UP = R`\bsign(?:ing)?[ -]?up\b`;
const PROMPT = new RegExp(
  [
    R`${SIGN_UP}.{0,80}\b(?:newsletters?|inbox|(?:our|daily|weekly) (?:e-?mails?|updates|alerts|briefing))`,
    R`\b(?:newsletter|inbox)\b.{0,80}${SIGN_UP}`,
    R`\bdelivered (?:to|through) your (?:inbox|letterbox|door)`,
    R`\byou can (?:also )?(?:subscribe|sign up|follow)\b`,
    R`${OPENS}subscribe (?:to|for|now|today|here)\b`,
    R`\bfollow us\b.{0,40}(?:\b(?:on|at)\b|@\w)`,
    R`${OPENS}follow (?:him|her|them|me|\p{Lu}\S*(?: \p{Lu}\S*)?)\b.{0,40}(?:\bon ${NETWORK}|@\w)`,
    R`\b(?:like|find) us on\b`,
    R`${OPENS}share (?:this|on|via)\b.{0,30}\b(?:story|article|post|page|${NETWORK})`,
    R`\btell us what you think`,
    R`${OPENS}(?:join the (?:conversation|discussion)|leave a comment)`,
    R`\bdownload our app|${OPENS}download the app\b`,
    R`${OPENS}(?:e-?mail|write to|contact|reach)\b[^.]{0,60}\bat\s+(?:\S+@\S+\.\w+|@\w+)`,
  ].join("|"),
  "iu",
);
// Words one of PROMPT's alternatives needs, under the same flags (so the same
// case folding): a text without any cannot match it. PROMPT tries its
// sentence openings and word boundaries at every position, and on a
// specification nearly no block holds one of these words (WHATWG HTML:
// 2,476 of 33,577 short blocks), so this test first halves its cost.
const PROMPT_WORDS =
  /sign|delivered|you can|subscribe|follow|us on|share|tell us|join the|leave a comment|download|mail|write to|contact|reach/iu;
// "Advertisement" in German, Spanish, Portuguese, French, Italian, Polish and Dutch: a label of
// furniture, and an ad slot's wherever it stands.
const FOREIGN_AD_WORDS =
  "anzeige|werbung|publicidad|publicidade|publicité|pubblicità|reklama|advertentie";
// The same labels in the other languages many pages are written in (German,
// Spanish, Portuguese, French, Italian, Polish, Dutch): "more on this
// topic", "you may also like", "read also", "tags", "comments", "share", "back".
const FOREIGN_LABELS = [
  "mehr (?:zum thema|themen|artikel|beiträge|nachrichten|dazu)(?: .{0,30})?",
  "weitere (?:artikel|beiträge|themen|nachrichten|meldungen)(?: .{0,30})?",
  "(?:lesen sie auch|zum weiterlesen|weiterlesen|auch interessant|das könnte (?:sie|dich) auch interessieren)",
  "(?:meist ?gelesen(?:e artikel)?|ähnliche (?:artikel|beiträge)|verwandte (?:artikel|themen)|empfehlungen)",
  "(?:themen|schlagworte|schlagwörter|kommentare|teilen|zurück|drucken)",
  "(?:(?:le|te) puede interesar|le(?:e|a) también|mira también|más noticias|noticias relacionadas|temas|etiquetas|comentarios|compartir|ver más)",
  "(?:veja também|leia (?:também|mais)|saiba mais|relacionad[oa]s|comentários|compartilhe)",
  "(?:(?:à )?lire aussi|voir aussi|sur le même sujet|partager|commentaires|articles similaires|mots-clés)",
  "(?:leggi anche|articoli correlati|condividi|commenti)",
  "(?:czytaj (?:także|też|więcej)|zobacz (?:też|także)|komentarze|udostępnij)",
  "(?:lees (?:ook|meer)|gerelateerde artikelen|delen)",
  FOREIGN_AD_WORDS,
].join("|");
// A label of page furniture: teasers, tags, comments, ads, navigation.
const LABEL = new RegExp(
  String
    .raw`^(?:related(?: (?:stories|articles|posts|links|content|coverage|reading))?|more(?: (?:stories|news|from|on|in|like this)\b.*)?|read (?:more|next|also)|also read|don'?t miss|must read|most (?:popular|read|viewed|shared)|popular(?: (?:stories|posts|now))?|trending(?: now)?|recommended(?: for you)?|you (?:may|might) (?:also )?(?:like|enjoy)|(?:top|latest|recent) (?:stories|news|posts|articles)|advert(?:isement)?|sponsored(?: content)?|(?:story|article) continues below|explore further|share(?: this)?|tags?|topics|comments?|\d+ comments?|back(?: to top)?|previous|next|close|print|email|${FOREIGN_LABELS})\s*[:!]?$`,
  "i",
);
// The label of an ad slot, wherever it is.
const AD_LABEL = new RegExp(
  String
    .raw`^(?:advert(?:isement)?s?|ad|sponsored(?: content)?|(?:story|article) continues below(?: advertisement)?|${FOREIGN_AD_WORDS})\s*:?$`,
  "i",
);
// A gallery's counter.
const COUNTER =
  /^(?:(?:image|photo|picture|slide|item)s?\s+)?\d+\s*(?:[-–]\s*\d+\s*)?(?:of|\/)\s*\d+$/i;
// A teaser line led by such a label ("Related: …", "Don't miss: …").
const LABEL_LEAD =
  /^(?:related|read (?:more|next|also)|also read|don'?t miss|must read|more|recommended|trending|watch|listen|ICYMI|lesen sie (?:auch|mehr)|mehr zum thema|auch interessant|(?:le|te) puede interesar|le(?:e|a) también|mira también|veja também|leia (?:também|mais)|(?:à )?lire aussi|voir aussi|leggi anche|czytaj (?:także|też|więcej)|zobacz (?:też|także)|lees (?:ook|meer))\s*:/i;
// A byline or dateline, as the article's head or tail repeats it.
const BYLINE =
  /^(?:(?:by|from|por|von|par|di|door|av)\s+\p{Lu}|(?:updated|published|posted|last (?:updated|modified)|first published|created|modified)\b)/iu;
const DATE =
  /\b(?:\d{1,2}[./-]\d{1,2}[./-]\d{4}|\d{4}-\d{2}-\d{2}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}\b|\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*)/i;

// Words of a date or time ("Nov.", "Tuesday,", "1:35", "a.m.", "Updated:").
const DATE_WORD =
  /^(?:\d[\d:./-]*|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*|[ap]\.?m\.?|at|on|updated|published|posted|modified|created)$/i;

/**
 * Whether a line is a dateline ("Updated 11:21 pm CST, Tuesday, November
 * 19, 2019", "2019-11-20 12:57 Marcus De Guzman"): a date and at most three
 * other words, and no sentence unless a word at most ("The vote is on May
 * 5." is a sentence of the story).
 */
function dateline(t: string): boolean {
  if (!DATE.test(t)) return false;
  let rest = 0;
  for (const w of t.split(/\s+/)) {
    const word = w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}.]+$/gu, "");
    if (word !== "" && !DATE_WORD.test(word)) rest++;
  }
  return rest <= 1 || (rest <= 3 && !endsSentence(t));
}

/** The plain text of a block by its number (`plain_text.ts`). */
type PlainTexts = (i: number) => string;

/**
 * The blocks' plain texts, each made when first asked for and kept: the
 * captions, the headline lists and the article's edges (in each choice of
 * the box) ask for many of the same short blocks.
 */
function plainTexts(blocks: readonly BlockRecord[], markdown: string): PlainTexts {
  const texts = new Array<string | undefined>(blocks.length);
  return (i) => texts[i] ??= plainText(markdown, blocks[i].start, blocks[i].end);
}

/** Elements whose own text is loose in a layout box, not a paragraph's. */
const LOOSE = new Set(["div", "span", "section", "aside", "header", "footer", "a", "form"]);

/** Longest block judged by its words alone (a prompt, a label, a byline). */
const EDGE_MAX = 250;

/** Whether a block is one of a list's items and little but a link. */
function linkItem(b: BlockRecord, el: ElementTable): boolean {
  if (b.kind !== "text" || b.text === 0 || b.links < b.text * 0.8) return false;
  for (let a = b.owner, up = 0; a >= 0 && up < 3; a = el.parent[a], up++) {
    if (tagOf(el, a) === "li") return true;
  }
  return false;
}

/** The list (`ul`, `ol`) a link item belongs to, or -1. */
function listOf(b: BlockRecord, el: ElementTable): number {
  for (let a = b.owner, up = 0; a >= 0 && up < 4; a = el.parent[a], up++) {
    if (tagOf(el, a) === "li") {
      const p = el.parent[a];
      return p >= 0 && (tagOf(el, p) === "ul" || tagOf(el, p) === "ol") ? p : -1;
    }
  }
  return -1;
}

/**
 * The kept text blocks of each list (`ul`, `ol`), and the lists that are
 * the article's content rather than boxes beside it: those holding as much
 * text as everything else kept (a reading list, a page of links with a line
 * of introduction).
 */
function keptLists(
  blocks: readonly BlockRecord[],
  el: ElementTable,
  keep: boolean[],
): { items: Map<number, number[]>; content: Set<number> } {
  const items = new Map<number, number[]>();
  const text = new Map<number, number>();
  let kept = 0;
  for (let i = 0; i < blocks.length; i++) {
    if (!keep[i]) continue;
    const b = blocks[i];
    if (b.kind !== "heading") kept += b.text;
    if (b.kind !== "text") continue;
    const list = listOf(b, el);
    if (list < 0) continue;
    let group = items.get(list);
    if (!group) items.set(list, group = []);
    group.push(i);
    text.set(list, (text.get(list) ?? 0) + b.text);
  }
  const content = new Set<number>();
  for (const [list, t] of text) if (t * 2 >= kept) content.add(list);
  return { items, content };
}

/** Least items of a list of headlines, and least words of each. */
const HEADLINE_ITEMS = 3;
const HEADLINE_WORDS = 4;

/**
 * Lists of headlines: three or more items, each nothing but a link of a
 * headline's length (four words or more, from a capital or a caseless
 * letter), in a list that is all links ("More on this story", "Most
 * popular" boxes inside the article), with the heading right above the
 * list. A list holding as much text as the rest of the article (a reading
 * list, a page of links with a line of introduction) is the article.
 */
function headlineLists(
  blocks: readonly BlockRecord[],
  el: ElementTable,
  text: PlainTexts,
  keep: boolean[],
): void {
  const { items, content } = keptLists(blocks, el, keep);
  for (const [list, group] of items) {
    if (group.length < HEADLINE_ITEMS || el.links[list] < el.text[list] * 0.9) continue;
    if (content.has(list)) continue;
    // A headline starts with a capital, a figure or a letter of a script
    // without case (a specification's list of the terms it imports is lower case).
    const headlines = group.every((i) => {
      const t = text(i);
      return linkItem(blocks[i], el) && /^[\p{Lu}\p{N}\p{Lo}]/u.test(t) &&
        wordCount(t, HEADLINE_WORDS) >= HEADLINE_WORDS;
    });
    if (!headlines) continue;
    for (const i of group) keep[i] = false;
    // The box's own heading ("More on this story") goes with it.
    const h = group[0] - 1;
    if (h >= 0 && blocks[h].kind === "heading" && el.parent[blocks[h].owner] === el.parent[list]) {
      keep[h] = false;
    }
  }
}

/**
 * The article's edges: before its first sentence, a byline or dateline
 * repeated as text; after its last, related-story lists, "don't miss"
 * teasers, share and follow prompts, newsletter boxes, bylines and the
 * labels of such boxes; anywhere, a short prompt to subscribe, share or
 * follow, and a teaser line led by a label ("Related: ...").
 */
function trimEdges(
  blocks: readonly BlockRecord[],
  el: ElementTable,
  text: PlainTexts,
  keep: boolean[],
): void {
  const short = (i: number) => blocks[i].text <= EDGE_MAX;
  // A prompt is the block's point, not a closing line of a longer paragraph.
  // Asked twice of most blocks (as a sentence, then as a prompt): answered once.
  const prompts = new Uint8Array(blocks.length); // 0 not asked, 1 no, 2 yes
  const prompt = (i: number) => {
    if (prompts[i] === 0) {
      const t = short(i) ? text(i) : "";
      const yes = t !== "" && PROMPT_WORDS.test(t) && PROMPT.test(t) &&
        t.split(/[.!?](?:\s|$)/).length <= 4;
      prompts[i] = yes ? 2 : 1;
    }
    return prompts[i] === 2;
  };
  const label = (i: number) => blocks[i].text <= 40 && LABEL.test(text(i));
  const byline = (i: number) => {
    if (blocks[i].text > 120) return false;
    const t = text(i);
    return BYLINE.test(t) || dateline(t);
  };
  // A fragment: a few loose characters that do not end a sentence ("Advert",
  // "Voltar"), written by a box rather than by a paragraph, item or quote.
  const fragment = (i: number) =>
    blocks[i].text < 25 && LOOSE.has(tagOf(el, blocks[i].owner)) && !endsSentence(text(i));
  // A sentence of the article: prose that is none of the above.
  const sentence = (i: number) =>
    isProse(blocks[i]) && blocks[i].text >= 60 && wordCount(text(i), 5) >= 5 &&
    !prompt(i) && !linkItem(blocks[i], el);
  // A gallery's counter ("Image 1 of 5", "1 - 5 of 36").
  const counter = (i: number) => blocks[i].text <= 40 && COUNTER.test(text(i));
  // The article's first and last sentence (or code, or table): looked for from each end, so
  // the blocks between are not read for it (a long paragraph's plain text is never needed).
  const body = (i: number) =>
    keep[i] && (blocks[i].kind === "code" || blocks[i].kind === "table" || sentence(i));
  let first = 0;
  while (first < blocks.length && !body(first)) first++;
  if (first === blocks.length) return;
  let last = blocks.length - 1;
  while (last > first && !body(last)) last--;
  const lists = keptLists(blocks, el, keep).content;
  // A list item that is little but a link, in a list beside the article.
  const teaser = (i: number) => linkItem(blocks[i], el) && !lists.has(listOf(blocks[i], el));
  for (let i = 0; i < blocks.length; i++) {
    if (!keep[i]) continue;
    const b = blocks[i];
    if (b.kind !== "text") continue;
    if (
      prompt(i) || counter(i) || (b.text <= 40 && AD_LABEL.test(text(i))) ||
      (short(i) && LABEL_LEAD.test(text(i)) && b.links > 0)
    ) keep[i] = false;
    else if (i < first) {
      if (
        !linkItem(b, el) && (byline(i) || label(i) || /^https?:\/\/\S+$/.test(text(i)))
      ) keep[i] = false;
    } else if (i > last) {
      if (
        label(i) || byline(i) || teaser(i) || (short(i) && LABEL_LEAD.test(text(i))) ||
        fragment(i)
      ) keep[i] = false;
    }
  }
}

/** Furniture marks: any mark, and the hard ones (comments). */
interface Marks {
  any: (e: number) => boolean;
  hard: (e: number) => boolean;
}

const NO_MARKS: Marks = { any: () => false, hard: () => false };

/** Characters of content (prose, code, tables) in the kept blocks, and in all. */
function contentChars(blocks: readonly BlockRecord[], keep?: boolean[]): number {
  let total = 0;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (keep && !keep[i]) continue;
    if (b.kind === "code" || b.kind === "table" || isProse(b)) total += b.text;
  }
  return total;
}

/**
 * The blocks and element table with their text and link lengths in
 * Latin-equivalent characters (`width.ts`), so that every threshold here
 * (a sentence's 25 characters, a sibling's 80) means as much text in
 * Chinese, Japanese or Korean as in English. A block's extra width comes
 * from its wide characters (link targets are ASCII and add none); an
 * element gains the extra width of the blocks under it, and its link text
 * grows in the same proportion as its text. Pages without wide characters
 * are returned as they are.
 */
function measured(
  blocks: readonly BlockRecord[],
  el: ElementTable,
  markdown: string,
): { blocks: readonly BlockRecord[]; el: ElementTable } {
  // Only a block holding a wide character can measure wider than its length
  // (the others are left as they are): those are found by one scan of the
  // Markdown, in step with the blocks (which follow each other in it), and
  // only they are measured. A specification has a few among forty thousand.
  const wide: number[] = [];
  for (let i = 0, at = nextWide(markdown); i < blocks.length && at >= 0; i++) {
    const b = blocks[i];
    if (at < b.start) at = nextWide(markdown, b.start);
    if (at >= 0 && at < b.end && b.text > 0) wide.push(i);
  }
  if (wide.length === 0) return { blocks, el };
  const n = el.parent.length;
  const extra = new Float64Array(n);
  // The elements that gain width: the measured blocks' owners and their ancestors.
  const gains = new Uint8Array(n);
  const gaining: number[] = [];
  const scaled = blocks.slice();
  for (const i of wide) {
    const b = blocks[i];
    const more = textWidth(markdown, b.start, b.end) - (b.end - b.start);
    if (more <= 0) continue;
    if (b.owner >= 0) extra[b.owner] += more;
    for (let a = b.owner; a >= 0 && !gains[a]; a = el.parent[a]) {
      gains[a] = 1;
      gaining.push(a);
    }
    const text = b.text + more;
    scaled[i] = { ...b, text, links: b.links * (text / b.text) };
  }
  // Added up as addUp adds (from the last element back), leaving out the
  // elements that add nothing, so each sum is made of the same additions in
  // the same order; every other element keeps its text and links as they are
  // (its links scaled by 1, and none where it has no text: link text is text).
  const order = Int32Array.from(gaining).sort().reverse();
  addUp(extra, el.parent, order);
  const text = el.text.slice();
  const links = el.links.slice();
  for (const e of order) {
    const t = el.text[e];
    text[e] = Math.round(t + extra[e]);
    links[e] = t === 0 ? 0 : Math.round(el.links[e] * (text[e] / t));
  }
  return { blocks: scaled, el: { ...el, text, links } };
}

/**
 * Chooses the blocks to keep (undefined: keep everything).
 *
 * When the chosen box holds almost none of the page's content (every post of
 * a thread marked "comment", say), the marks are ignored and the choice made
 * again on the weights alone; when that is still too small, everything stays.
 */
export function selectMainContent(
  pageBlocks: readonly BlockRecord[],
  elements: ElementTable,
  markdown: string,
): boolean[] | undefined {
  const n = elements.parent.length;
  if (n === 0 || pageBlocks.length === 0) return undefined;
  const { blocks, el } = measured(pageBlocks, elements, markdown);
  // Prose per subtree, to tell a furniture box from a layout box that wraps the article.
  const prose = new Float64Array(n);
  let totalProse = 0;
  for (const b of blocks) {
    if (b.owner < 0 || !isProse(b)) continue;
    totalProse += b.text;
    prose[b.owner] += b.text;
  }
  addUp(prose, el.parent);
  const text = plainTexts(blocks, markdown);
  const caption = captions(blocks, el, text);
  const total = contentChars(blocks);
  const enough = (keep: boolean[] | undefined) => {
    if (keep === undefined) return true;
    const kept = contentChars(blocks, keep);
    return kept >= FALLBACK_MIN || kept >= total * FALLBACK_SHARE;
  };
  const marks = hinted(blocks, el, markdown, prose, totalProse);
  const marked = choose(blocks, el, text, marks, caption);
  if (enough(marked) || shortArticle(blocks, marks, marked)) return marked;
  const plain = choose(blocks, el, text, NO_MARKS, caption);
  return enough(plain) ? plain : undefined;
}

/** Least sentences (prose blocks of this many characters) of a short article. */
const SHORT_ARTICLE_SENTENCES = 2;
const SENTENCE_MIN = 60;

/**
 * Whether a small choice is a short article followed by its readers'
 * comments, so that the comment thread, however long, does not replace it:
 * the kept blocks hold at least two sentences, all come before the first
 * comment, and hold at least half the prose outside the comments. (A thread
 * whose every post is marked "comment" keeps nothing of the kind before its
 * first post, and is read again without the marks.)
 */
function shortArticle(
  blocks: readonly BlockRecord[],
  marks: Marks,
  keep: boolean[] | undefined,
): boolean {
  if (keep === undefined) return false;
  let firstComment = blocks.length;
  let outside = 0;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (b.owner >= 0 && marks.hard(b.owner)) {
      if (firstComment === blocks.length) firstComment = i;
    } else if (isProse(b)) outside += b.text;
  }
  if (firstComment === blocks.length) return false;
  let sentences = 0;
  let kept = 0;
  for (let i = 0; i < blocks.length; i++) {
    if (!keep[i]) continue;
    if (i > firstComment) return false;
    const b = blocks[i];
    if (isProse(b)) kept += b.text;
    if (isProse(b) && b.text >= SENTENCE_MIN) sentences++;
  }
  return sentences >= SHORT_ARTICLE_SENTENCES && kept >= outside * 0.5;
}

/** One choice of the content box and the blocks kept in it. */
function choose(
  blocks: readonly BlockRecord[],
  el: ElementTable,
  text: PlainTexts,
  hints: Marks,
  caption: (e: number) => boolean,
): boolean[] | undefined {
  const n = el.parent.length;
  const furniture = hints.any;
  // Code under a soft mark (a "nav-tabs" box of samples) is still code.
  const blockFurniture = (b: BlockRecord) =>
    b.kind === "code" ? hints.hard(b.owner) : furniture(b.owner);
  const gain = new Float64Array(n);

  let positive = 0;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (b.owner < 0) continue;
    const w = weight(b, blockFurniture(b));

    if (w === 0) continue;
    if (w > 0) positive += w;
    gain[b.owner] += w;
  }
  addUp(gain, el.parent);
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
  // A wrapper that adds little (a print header, a browser warning beside the
  // article) does not beat the tighter box: take the deepest near the best.
  {
    const depth = new Uint16Array(n);
    let deepest = core;
    for (let e = 0; e < n; e++) {
      const p = el.parent[e];
      depth[e] = p >= 0 ? Math.min(depth[p] + 1, 65535) : 0;
      if (gain[e] >= best * (1 - CORE_SLACK) && depth[e] > depth[deepest]) deepest = e;
    }
    core = deepest;
  }

  // Siblings of the core that are content themselves join it.
  const selected = new Uint8Array(n);
  selected[core] = 1;
  const parent = el.parent[core];
  // A sibling must weigh something next to the box: a copyright line or a
  // "you may also like" label beside the article does not join it.
  const joins = (e: number) =>
    el.parent[e] === parent && gain[e] >= Math.max(SIBLING_MIN, best * SIBLING_SHARE) &&
    !furniture(e);
  if (parent >= 0) {
    const children: number[] = [];
    for (let e = parent + 1; e < n; e++) {
      if (el.parent[e] !== parent) continue;
      children.push(e);
      if (e !== core && joins(e)) selected[e] = 1;
    }
    // The article continuing right after the box (its last paragraphs,
    // lists or quotes as loose elements) joins whatever its size, across
    // empty or near-empty slots (an ad placeholder, a label), up to the
    // first thing of weight against it or another box.
    for (let k = children.indexOf(core) + 1; k < children.length; k++) {
      const e = children[k];
      // A list of links right after the box joins it, for the article's
      // edges to judge: a reading list that is the article stays, a list of
      // related stories beside it goes.
      if (
        (tagOf(el, e) === "ul" || tagOf(el, e) === "ol") && el.links[e] >= el.text[e] * 0.8 &&
        !furniture(e)
      ) {
        selected[e] = 1;
        continue;
      }
      if (gain[e] < -CONTINUATION_GAP) break;
      if (gain[e] <= 0 || furniture(e)) continue;
      if (!CONTENT_BLOCK.has(tagOf(el, e))) break;
      selected[e] = 1;
    }
    // A heading right before the box is its heading.
    for (let e = core - 1; e > parent; e--) {
      if (el.parent[e] !== parent) continue;
      if (/^h[1-6]$/.test(tagOf(el, e)) && !furniture(e)) selected[e] = 1;
      break;
    }
  }
  const inside = subtreeMembership(el, selected);
  const keep = new Array<boolean>(blocks.length);
  let all = true;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    let k = b.owner >= 0 && inside(b.owner);
    // Inside the box: drop widgets, teaser cards and promotional paragraphs
    // that are nothing but a headline linking elsewhere ("Related: ...").
    if (k && blockFurniture(b)) k = false;
    if (k && caption(b.owner)) k = false;
    if (
      k && b.kind === "text" && tagOf(el, b.owner) === "p" && b.text >= PROMO_MIN &&
      b.text <= PROMO_MAX && el.links[b.owner] >= b.text * 0.8
    ) k = false;
    keep[i] = k;
  }
  headlineLists(blocks, el, text, keep);
  trimEdges(blocks, el, text, keep);
  dropEmptyHeadings(blocks, keep);
  for (let i = 0; i < blocks.length && all; i++) if (!keep[i]) all = false;
  return all ? undefined : keep;
}
