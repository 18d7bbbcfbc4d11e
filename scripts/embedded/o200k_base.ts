/** The o200k tokenizer, bundled on its own and embedded in the bundle compressed (scripts/build.ts). */
export { decode, encode, setMergeCacheSize } from "gpt-tokenizer/encoding/o200k_base";
