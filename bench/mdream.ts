/**
 * mdream, the native Markdown converter the speed benchmarks compare with
 * (an optional peer, never a dependency of the product): installed with npm
 * into a folder of the temporary directory on first use, with its Linux
 * x64 engine, and kept there for later runs.
 *
 * @module
 */

/** The version compared with. */
export const MDREAM = "1.7.2";

/** The folder mdream is installed into (`node_modules/mdream` below it). */
export const MDREAM_DIR = `${Deno.env.get("TMPDIR") ?? "/tmp"}/parkour-bench-mdream-${MDREAM}`;

/** Installs mdream into {@link MDREAM_DIR} unless it is there; returns the folder. */
export async function installMdream(): Promise<string> {
  const there = await Deno.stat(`${MDREAM_DIR}/node_modules/mdream`).then(() => true, () => false);
  if (!there) {
    await Deno.mkdir(MDREAM_DIR, { recursive: true });
    const npm = await new Deno.Command("npm", {
      args: [
        "install",
        "--prefix",
        MDREAM_DIR,
        "--no-save",
        "--no-audit",
        "--no-fund",
        `mdream@${MDREAM}`,
        `@mdream/rust-linux-x64-gnu@${MDREAM}`,
      ],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!npm.success) throw new Error("npm install of mdream failed (see above)");
  }
  return MDREAM_DIR;
}
