/** Running the build tasks of deno.json the way `deno task` does. */
import meta from "../../deno.json" with { type: "json" };

/** The words of a deno.json task, with `deno` replaced by this executable. */
export function taskCommand(task: "bundle" | "compile"): string[] {
  const words = meta.tasks[task].command.split(/\s+/);
  if (words[0] !== "deno") throw new Error(`the ${task} task does not start with deno`);
  return [Deno.execPath(), ...words.slice(1)];
}
