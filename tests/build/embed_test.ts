/**
 * The bundle's embedded files and its ASCII-only text (scripts/build.ts),
 * run as the bundle runs them: the prelude and escaped code are imported as
 * modules, without building a bundle.
 */
import assert from "node:assert/strict";
import { asciiOnly, embedBytes, prelude } from "../../scripts/build.ts";

/** Imports `code` as a module (a data: URL, as Deno runs a file). */
function load(code: string): Promise<Record<string, unknown>> {
  return import(`data:text/javascript;charset=utf-8,${encodeURIComponent(code)}`);
}

Deno.test("embedded files: the prelude's loader gives back each file's bytes", async () => {
  const wasm = new Uint8Array(70_000).map((_, i) => (i * 7919) % 251);
  const text = new TextEncoder().encode(
    `${"// a module long enough to compress well\n".repeat(500)}export const answer = 6 * 7;\n`,
  );
  const files = { "npm:pkg@1.0.0/a.wasm": embedBytes(wasm), "some-module": embedBytes(text) };
  assert.ok(files["some-module"].length < text.length / 10, "compressed");
  const mod = await load(
    `${
      prelude(files)
    }export { __parkourEmbeddedBytes as bytes, __parkourEmbeddedModule as module };`,
  );
  const bytes = mod.bytes as (s: string) => Promise<{ default: Uint8Array }>;
  assert.deepEqual((await bytes("npm:pkg@1.0.0/a.wasm")).default, wasm);
  const module = mod.module as (s: string) => Promise<{ answer: number }>;
  assert.equal((await module("some-module")).answer, 42);
  await assert.rejects(bytes("npm:other@1.0.0/b.wasm"), /is not embedded in this bundle/);
  await assert.rejects(bytes("toString"), /is not embedded in this bundle/);
});

Deno.test("embedded files: each is compiled only when asked for, not with the prelude", () => {
  const code = prelude({ "a.wasm": embedBytes(new Uint8Array([1, 2, 3])) });
  const data = embedBytes(new Uint8Array([1, 2, 3]));
  assert.ok(code.includes(`"a.wasm": () => "${data}",`), code);
});

Deno.test("asciiOnly: escapes every other character without changing what the code means", async () => {
  const source = [
    'export const dash = "a — b";',
    "export const quote = `“${1 + 1}” ¶`;",
    "export const sentence = /[.!?。！？]$/u.test('done。');",
    "export const emoji = '😀'.codePointAt(0);",
    "export const astralClass = /^[😀]$/u.test('😀');",
    "// a comment with ß and ł",
    "export const folded = 'Straße'.replace(/ß/g, 'ss');",
    // A character escaped itself, and one after an escaped backslash.
    "export const identity = ['\\é', /\\é/.test('é'), '\\\\é'];",
  ].join("\n");
  const escaped = asciiOnly(source);
  assert.doesNotMatch(escaped, /[\u0080-\uffff]/);
  assert.deepEqual({ ...await load(escaped) }, { ...await load(source) });
  const before = await load(source);
  assert.equal(before.dash, "a — b");
  assert.equal(before.sentence, true);
  assert.equal(before.astralClass, true);
  assert.throws(() => asciiOnly("const s = String.raw`a — b`;"), /String\.raw/);
});
