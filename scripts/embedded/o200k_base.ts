/**
 * The o200k tokenizer, bundled on its own and embedded in the bundle compressed (scripts/build.ts).
 * The default export is the encoding itself, whose pre-tokenizer `tokens/count.ts` keeps compiled.
 */
export { decode, default, encode, setMergeCacheSize } from "gpt-tokenizer/encoding/o200k_base";
