/**
 * Main-content extraction: which parts of a page are furniture.
 *
 * This is the stage that separates a page's content from its navigation,
 * banners and sidebars. It is a policy handed to the converter, so it can be
 * replaced without touching conversion. The current policy drops what is
 * never content:
 *
 * - `nav` (and `role=navigation`) everywhere;
 * - `header`, `footer`, `aside` (and `role=banner`, `contentinfo`,
 *   `complementary`) outside `main`, `article` or `role=main`, where they are
 *   site furniture; inside the article they are bylines, footnotes, notes;
 *   but an `aside` whose class names a note, an example, an editor's note,
 *   an issue or a warning is the text's own anywhere (spec generators write
 *   every note and example so, in pages with no `main` element);
 * - cookie and consent banners, skip links and text meant only for screen
 *   readers, recognised by their classes, and banners by the ids of
 *   elements other than inline ones (a link or a term in a sentence);
 * - browser-support boxes that spec generators put beside definitions
 *   (`mdn-anno` in WHATWG and Bikeshed specs, `caniuse-status`): a row of
 *   engine names and version numbers beside every section, which in
 *   Markdown becomes noise such as "Firefox8+Safari6+Chrome13+".
 *
 * And it keeps an image's alternative text only where it carries content:
 * a description of a chart, diagram, map or screenshot. A photo's
 * description, its credit, a file name used as alt, or an alt that repeats
 * the page's title tells a reader of the text nothing the article does not
 * (a page read whole, `full_page`, keeps every alt).
 *
 * @module
 */
import { detached, type FurniturePolicy, type ImageContext } from "../html/markdown.ts";

// TrustArc's "truste" ends its word ("truste-consent-track", "truste_box"): "trusted" is a word
// of its own (WHATWG HTML's "tt-trustedhtml" links).
const BANNER =
  /(?:^|[\s_-])(?:cookie-?(?:banner|notice|consent|bar|law|popup|policy-banner)|cookieconsent|consent-?(?:banner|manager|modal)|onetrust|gdpr|cc-(?:window|banner)|cybotcookiebot|truste(?![a-z])|qc-cmp|sp_message)/i;
const SCREEN_READER =
  /(?:^|\s)(?:sr-only|screen-reader-text|visually-hidden|visuallyhidden|skip-link|skip-to-content|a11y-hidden)(?:\s|$)/i;
const FURNITURE_ROLES = new Set(["navigation", "banner", "contentinfo", "complementary", "search"]);
const SUPPORT_BOX = /(?:^|\s)(?:mdn-anno|caniuse-status)(?:\s|$)/;
/** Classes of an admonition: a note, an example, an issue or a warning set apart from the text. */
const ADMONITION =
  /(?:^|\s)(?:notes?|example|ednote|issue|warning|advisement|caution|tip|important)(?:\s|$)/i;

// Words of an alt that describes data or an interface rather than a scene.
const DATA_FIGURE =
  /\b(?:charts?|graphs?|diagrams?|maps?|infographics?|plots?|figures?|fig\.|tables?|timelines?|flowcharts?|screenshots?|screen shots?|curves?|schematics?|visuali[sz]ations?)\b/i;
// Credits and agency marks of a photo.
const CREDIT =
  /©|\(c\)\s*\d{4}|\b(?:photo|image|picture)\s*(?:by|credit|courtesy)\b|\b(?:photo|image|credit|source)\s*:|\bcredits?\b|\bgetty\b|\bshutterstock\b|\bistock\w*\b|\breuters\b|\bstock (?:photo|image)\b|\bfile photo\b/i;
// A file name or slug used as alt ("IMG_2953", "chart-2019-01.png").
const FILE_NAME = /^[^\s]+$|\.(?:jpe?g|png|gif|webp|svg|avif|bmp|tiff?)\b/i;

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Whether an image's alt carries content: it names a data figure (chart,
 * diagram, map, table, screenshot...) and is not a credit, a file name or
 * the page's title again.
 */
export function altCarriesContent(alt: string, context: ImageContext): boolean {
  if (!DATA_FIGURE.test(alt)) return false;
  if (FILE_NAME.test(alt.trim()) || CREDIT.test(alt)) return false;
  const own = words(alt);
  if (own.length < 2) return false;
  const title = new Set(words(context.title));
  const shared = own.filter((w) => title.has(w)).length;
  return shared < own.length * 0.6;
}

/** Most class attributes judged by {@link furnitureClass} kept at once, */
const CLASSES_KEPT = 2048;
/** and the longest kept (a longer one is tested each time): at most about 1 MB held. */
const CLASS_KEPT_CHARS = 256;
const classVerdicts = new Map<string, boolean>();

function isFurnitureClass(cls: string): boolean {
  return BANNER.test(cls) || SCREEN_READER.test(cls) || SUPPORT_BOX.test(cls);
}

/**
 * Whether a class attribute marks a banner, text for screen readers only or
 * a browser-support box. A page gives the same few hundred class attributes
 * to tens of thousands of elements (WHATWG HTML: 143 to 34,700), so each is
 * tested once and its verdict kept, under a copy of the attribute of its own
 * (`detached`: a long one is a view into the page's source, which it would
 * keep alive), for the process's later pages too.
 */
function furnitureClass(cls: string): boolean {
  if (cls.length > CLASS_KEPT_CHARS) return isFurnitureClass(cls);
  let verdict = classVerdicts.get(cls);
  if (verdict === undefined) {
    verdict = isFurnitureClass(cls);
    if (classVerdicts.size >= CLASSES_KEPT) classVerdicts.clear();
    classVerdicts.set(detached(cls), verdict);
  }
  return verdict;
}

/** The default policy. */
export const defaultFurniture: FurniturePolicy = {
  image: altCarriesContent,
  drop(tag, attrs, context) {
    if (tag === "nav") return true;
    const role = attrs.role;
    if (role === "navigation" || role === "search") return true;
    if (!context.inMain) {
      if (tag === "header" || tag === "footer") return true;
      if (tag === "aside" && !ADMONITION.test(attrs.class ?? "")) return true;
      if (role && FURNITURE_ROLES.has(role)) return true;
    }
    const cls = attrs.class;
    const id = attrs.id;
    if (cls !== undefined && furnitureClass(cls)) return true;
    // An inline element's id names a term or a place in the text ("tt-trustedhtml", "gdpr-fines"),
    // never a banner's (and is most ids: WHATWG HTML, 66,000 of its 70,700).
    if (id !== undefined && !context.inline && BANNER.test(id)) return true;
    return false;
  },
};
