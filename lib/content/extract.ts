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
 * - cookie and consent banners, skip links and text meant only for screen
 *   readers, recognised by their ids and classes;
 * - browser-support boxes that spec generators put beside definitions
 *   (`mdn-anno` in WHATWG and Bikeshed specs, `caniuse-status`): a row of
 *   engine names and version numbers beside every section, which in
 *   Markdown becomes noise such as "Firefox8+Safari6+Chrome13+".
 *
 * @module
 */
import type { FurniturePolicy } from "./html.ts";

const BANNER =
  /(?:^|[\s_-])(?:cookie-?(?:banner|notice|consent|bar|law|popup|policy-banner)|cookieconsent|consent-?(?:banner|manager|modal)|onetrust|gdpr|cc-(?:window|banner)|cybotcookiebot|truste|qc-cmp|sp_message)/i;
const SCREEN_READER =
  /(?:^|\s)(?:sr-only|screen-reader-text|visually-hidden|visuallyhidden|skip-link|skip-to-content|a11y-hidden)(?:\s|$)/i;
const FURNITURE_ROLES = new Set(["navigation", "banner", "contentinfo", "complementary", "search"]);
const SUPPORT_BOX = /(?:^|\s)(?:mdn-anno|caniuse-status)(?:\s|$)/;

/** The default policy. */
export const defaultFurniture: FurniturePolicy = {
  drop(tag, attrs, context) {
    if (tag === "nav") return true;
    const role = attrs.role;
    if (role === "navigation" || role === "search") return true;
    if (!context.inMain) {
      if (tag === "header" || tag === "footer" || tag === "aside") return true;
      if (role && FURNITURE_ROLES.has(role)) return true;
    }
    const cls = attrs.class;
    const id = attrs.id;
    if (
      cls !== undefined && (BANNER.test(cls) || SCREEN_READER.test(cls) || SUPPORT_BOX.test(cls))
    ) return true;
    if (id !== undefined && BANNER.test(id)) return true;
    return false;
  },
};
