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
 *   readers, recognised by their ids and classes.
 *
 * @module
 */
import type { FurniturePolicy } from "./html.ts";

const BANNER =
  /(?:^|[\s_-])(?:cookie-?(?:banner|notice|consent|bar|law|popup|policy-banner)|cookieconsent|consent-?(?:banner|manager|modal)|onetrust|gdpr|cc-(?:window|banner)|cybotcookiebot|truste|qc-cmp|sp_message)/i;
const SCREEN_READER =
  /(?:^|\s)(?:sr-only|screen-reader-text|visually-hidden|visuallyhidden|skip-link|skip-to-content|a11y-hidden)(?:\s|$)/i;
const FURNITURE_ROLES = new Set(["navigation", "banner", "contentinfo", "complementary", "search"]);

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
    if (cls !== undefined && (BANNER.test(cls) || SCREEN_READER.test(cls))) return true;
    if (id !== undefined && BANNER.test(id)) return true;
    return false;
  },
};
