/**
 * A serving process keeps its conversion workers between pages: the pool's
 * default ends an idle worker soon, so that a library script exits once its
 * last page is read (lib/content/workers/pool.ts). The pool loads with the
 * first large page anyway, so importing it here costs nothing at start-up.
 *
 * @module
 */

/** Tells the conversion pool that this process serves (stdio or HTTP) and stays up. */
export function serving(): void {
  import("../content/workers/pool.ts").then((pool) => pool.keepWorkersWarm()).catch(() => {});
}
