/** Baseline for the cold-start benchmark: a Deno script that does nothing. */
