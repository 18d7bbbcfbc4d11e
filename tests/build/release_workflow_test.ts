/**
 * The release workflow (.github/workflows/release.yml) read as data: it runs
 * on version tags with the permissions a release and a JSR publish need,
 * sets up the Deno version CI uses, and every `deno task` it runs exists.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import meta from "../../deno.json" with { type: "json" };
import { ROOT_DIR } from "../support/process.ts";

interface Step {
  name?: string;
  uses?: string;
  with?: Record<string, unknown>;
  run?: string;
  env?: Record<string, string>;
}

const workflow = parse(
  await Deno.readTextFile(`${ROOT_DIR}/.github/workflows/release.yml`),
) as {
  on: { push: { tags: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, { steps: Step[] }>;
};
const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
const commands = steps.flatMap((s) => (s.run ?? "").split("\n")).map((l) => l.trim());

Deno.test("release workflow: runs on v* tags with contents and id-token write permissions", () => {
  assert.deepEqual(workflow.on.push.tags, ["v*"]);
  assert.equal(workflow.permissions.contents, "write");
  assert.equal(workflow.permissions["id-token"], "write");
});

Deno.test("release workflow: sets up the Deno version CI pins", async () => {
  const ci = await Deno.readTextFile(`${ROOT_DIR}/.ci/run`);
  const pinned = /^DENO_VERSION=(\S+)$/m.exec(ci)?.[1];
  assert.ok(pinned, ".ci/run pins a Deno version");
  const setup = steps.find((s) => s.uses?.startsWith("denoland/setup-deno@"));
  assert.ok(setup, "a setup-deno step");
  assert.equal(String(setup.with?.["deno-version"]), pinned);
});

Deno.test("release workflow: every deno task it runs exists in deno.json", () => {
  const tasks = commands.flatMap((c) => [...c.matchAll(/\bdeno task ([\w:-]+)/g)].map((m) => m[1]));
  assert.ok(tasks.length >= 5, commands.join("\n"));
  const missing = tasks.filter((t) => !(t in meta.tasks));
  assert.deepEqual(missing, [], `tasks not in deno.json: ${missing.join(", ")}`);
  for (const needed of ["check", "test", "publish:check", "compile", "bundle", "mcpb"]) {
    assert.ok(tasks.includes(needed), `the workflow runs deno task ${needed}`);
  }
});

Deno.test("release workflow: checks and tests run before anything is built or published", () => {
  const index = (pattern: RegExp) => commands.findIndex((c) => pattern.test(c));
  const test = index(/^deno task test\b/);
  const compile = index(/^deno task compile --require\b/);
  const pack = index(/^deno task mcpb --pack\b/);
  const release = index(/^gh release create .*dist\/\*/);
  const publish = index(/^deno publish(\s|$)/);
  assert.ok(test >= 0 && compile >= 0 && pack >= 0 && release >= 0 && publish >= 0);
  assert.ok(index(/^deno fmt --check/) < test && index(/^deno lint/) < test);
  assert.ok(test < compile && compile < pack && pack < release && release < publish);
  assert.ok(!commands.some((c) => /^deno publish\b.*--allow-dirty/.test(c)), "a clean publish");
});
