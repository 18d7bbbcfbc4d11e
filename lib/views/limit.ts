/**
 * Loading a page within a call's size limit, for every face: the limit is
 * the call's `max_page_mb` (else the server's default, see lib/config.ts),
 * and a page over it fails with {@link PageTooLarge}, which carries what to
 * ask instead (the `max_page_mb` that reads it, or the operator's setting)
 * as a hint each face renders in its own words.
 *
 * @module
 */
import { pageLimitBytes } from "../config.ts";
import { type HintContext, type Message, renderMessage } from "../hint.ts";
import { NetError } from "../net/errors.ts";
import type { Loaded, LoadOptions } from "../sources/source.ts";
import { pageTooLarge } from "./request.ts";

/** Loads a page: the Document for a URL, given the request's cap. */
export type Loader = (url: string, options: LoadOptions) => Promise<Loaded>;

/** A page over the call's limit, with the way forward. */
export class PageTooLarge extends Error {
  /** Creates the error from the network's refusal and the advice for the caller. */
  constructor(readonly refusal: NetError, readonly advice: Message) {
    super(refusal.message);
    this.name = "PageTooLarge";
  }

  /** The refusal and the advice, in a face's words. */
  render(hints: HintContext): string {
    return `${this.message}; ${renderMessage(this.advice, hints)}`;
  }
}

/**
 * Loads `page` with `load` within the call's limit (`maxPageMb`, its
 * `max_page_mb`, else the server's default). A page over that limit throws
 * {@link PageTooLarge}; anything else is the loader's own error.
 */
export async function loadWithinLimit(
  load: Loader,
  page: string,
  maxPageMb: number | undefined,
  options: Omit<LoadOptions, "maxBytes">,
): Promise<Loaded> {
  const maxBytes = pageLimitBytes(maxPageMb);
  try {
    return await load(page, { ...options, maxBytes });
  } catch (error) {
    if (error instanceof NetError && error.kind === "too_large" && error.limit === maxBytes) {
      throw new PageTooLarge(error, pageTooLarge(maxBytes, error.size, maxPageMb !== undefined));
    }
    throw error;
  }
}
