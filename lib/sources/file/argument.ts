/**
 * Telling a local file from a URL on the command line (kept apart from the
 * file reader so the CLI does not load the converter to decide).
 *
 * @module
 */

/** Whether a CLI argument names a local file rather than a URL. */
export function isFileArgument(arg: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:\/\//i.test(arg) || arg.startsWith("file://");
}
