/** unpdf (pdf.js), bundled on its own and embedded in the bundle compressed (scripts/build.ts). */
export { extractText, getDocumentProxy, getMeta } from "unpdf";
