/**
 * The page cache's key: a structured value, never a string read back as a
 * URL. A page (its URL without the fragment) is cached apart per variant
 * (`static`, `rendered`), per full-page choice, when rendered per top-frame
 * rule and list of actions, and per owner; two keys are the same entry exactly
 * when every part is equal. Its identity ({@link keyId}) is a JSON array of
 * the parts, so no part can run into another (a `#` in a selector, a space
 * or a word such as `full-page` in a URL).
 *
 * With `PARKOUR_CACHE_SCOPE=principal` ({@link cacheScope}) a key also
 * names its owner, the principal of the request that made it
 * ({@link cacheOwner}): every cache keyed by it (the page cache, the loads
 * in flight the router joins, the replicas' shared store and its load
 * locks) then keeps each principal's pages apart. With `shared` (the
 * default) a key has no owner and its identity is the same as before.
 *
 * @module
 */
import { cacheScope } from "../config.ts";
import { currentPrincipal, isSoleUser } from "../principal.ts";

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
  /** Whose entry it is, when the cache is kept per principal ({@link cacheOwner}). */
  readonly owner?: string;
}

/**
 * The owner of the cache entries the running request makes and finds:
 * undefined when the page cache is shared (`PARKOUR_CACHE_SCOPE=shared`,
 * the default); with `principal`, the request's OAuth subject
 * (`oauth:<sub>`), and undefined for the local user and the static
 * token's owner, who are one person, as on the research shelf. Over stdio,
 * in the CLI and in the library every request is the local user's.
 */
export function cacheOwner(): string | undefined {
  if (cacheScope() !== "principal") return undefined;
  const principal = currentPrincipal();
  return isSoleUser(principal) ? undefined : `${principal.kind}:${principal.id}`;
}

/**
 * `key` as the name of an entry in a smaller cache keyed by a string (a
 * source's threads or parsed pages): prefixed with {@link cacheOwner}'s
 * principal when there is one, as is otherwise.
 */
export function ownedKey(key: string): string {
  const owner = cacheOwner();
  return owner === undefined ? key : `${JSON.stringify(owner)} ${key}`;
}

/** `url` without its fragment (as given when it is not a URL). */
export function withoutFragment(url: string): string {
  const hash = url.indexOf("#");
  return hash === -1 ? url : url.slice(0, hash);
}

/** The key of a fetched page. */
export function staticKey(url: string, fullPage = false): PageKey {
  return withOwner({ url: withoutFragment(url), variant: "static", fullPage });
}

function withOwner(key: PageKey): PageKey {
  const owner = cacheOwner();
  return owner === undefined ? key : { ...key, owner };
}

/** The key of a rendered page. */
export function renderedPageKey(
  url: string,
  options: { fullPage: boolean; allowOffsite: boolean; actions: readonly unknown[] },
): PageKey {
  return withOwner({
    url: withoutFragment(url),
    variant: "rendered",
    fullPage: options.fullPage,
    offsite: options.allowOffsite,
    actions: options.actions,
  });
}

/** The identity of a key: equal for equal keys, different otherwise. */
export function keyId(key: PageKey): string {
  const parts = [key.variant, key.url, key.fullPage, key.offsite ?? false, key.actions ?? []];
  // An owner is a sixth part: a shared key's identity (and its entry in a shared store) is unchanged.
  if (key.owner !== undefined) parts.push(key.owner);
  return JSON.stringify(parts);
}
