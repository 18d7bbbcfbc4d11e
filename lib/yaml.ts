/**
 * The YAML package, loaded on first need: importing it costs a quarter of a
 * second at start-up. The frontmatter builder renders with it and sources
 * read YAML files (CITATION.cff) with it, so it sits below both.
 *
 * @module
 */
export type YamlModule = typeof import("yaml");
let YAML: YamlModule | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the YAML serializer. Frontmatter renders and parses only once this
 * has resolved; the server awaits it before running a tool, `fetchPage`
 * before reading, and a library user who renders frontmatter awaits it
 * first (the package entry has no top-level await).
 */
export function envelopeReady(): Promise<void> {
  return (loading ??= import("yaml").then((m) => {
    YAML = m;
  }));
}

/**
 * The YAML package, once {@link envelopeReady} has resolved (it is loaded
 * lazily because importing it costs a quarter of a second at start-up).
 * Throws before that.
 */
export function yamlModule(): YamlModule {
  if (!YAML) {
    throw new Error(
      "the envelope is not ready: await envelopeReady() before rendering frontmatter",
    );
  }
  return YAML;
}
