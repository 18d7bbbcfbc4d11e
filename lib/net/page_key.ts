/**
 * The page cache's key: a structured value, never a string read back as a
 * URL. A page (its URL without the fragment) is cached apart per variant
 * (`static`, `rendered`), per full-page choice and, when rendered, per
 * top-frame rule and list of actions; two keys are the same entry exactly
 * when every part is equal. Its identity ({@link keyId}) is a JSON array of
 * the parts, so no part can run into another (a `#` in a selector, a space
 * or a word such as `full-page` in a URL).
 *
 * @module
 */

/** What a page cache entry is the form of. */
export interface PageKey {
  /** The page's URL, without its fragment. */
  readonly url: string;
  /** `static` (fetched or read through an API) or `rendered` (in the browser). */
  readonly variant: "static" | "rendered";
  /** The whole page was kept (no main-content extraction). */
  readonly fullPage: boolean;
  /** Rendered: the top frame could leave the requested host. */
  readonly offsite?: boolean;
  /** Rendered: the actions run before the page was read, in order (JSON values). */
  readonly actions?: readonly unknown[];
}

/** `url` without its fragment (as given when it is not a URL). */
export function withoutFragment(url: string): string {
  const hash = url.indexOf("#");
  return hash === -1 ? url : url.slice(0, hash);
}

/** The key of a fetched page. */
export function staticKey(url: string, fullPage = false): PageKey {
  return { url: withoutFragment(url), variant: "static", fullPage };
}

/** The key of a rendered page. */
export function renderedPageKey(
  url: string,
  options: { fullPage: boolean; allowOffsite: boolean; actions: readonly unknown[] },
): PageKey {
  return {
    url: withoutFragment(url),
    variant: "rendered",
    fullPage: options.fullPage,
    offsite: options.allowOffsite,
    actions: options.actions,
  };
}

/** The identity of a key: equal for equal keys, different otherwise. */
export function keyId(key: PageKey): string {
  return JSON.stringify([
    key.variant,
    key.url,
    key.fullPage,
    key.offsite ?? false,
    key.actions ?? [],
  ]);
}
