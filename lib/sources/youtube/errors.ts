/**
 * The one error type of the YouTube source.
 *
 * @module
 */

/** A failure the caller can act on; the message says what to try. */
export class YoutubeError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "YoutubeError";
  }
}
