/**
 * The usage error and its exit code: all `main.ts` exports besides `main`,
 * kept apart so that importing them loads nothing else.
 *
 * @module
 */

/** Exit code for usage errors. */
export const USAGE_EXIT = 2;

/** A bad command line: printed as one line, exit code 2. */
export class UsageError extends Error {}
