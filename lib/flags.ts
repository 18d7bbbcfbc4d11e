/**
 * The parsed flags of a command line, by flag name (`--target`): what the
 * CLI hands each command, and what `install` and `doctor` read.
 *
 * @module
 */

/** Parsed flags of a command, by flag name (`--target`). */
export type Flags = Record<string, string | boolean | string[]>;
