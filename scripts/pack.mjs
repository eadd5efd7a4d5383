// Packs the package as it is installed: `npm run package` writes metatools-<version>.tgz here (--out DIR: there), and `npm run
// install-global [-- --prefix DIR]` packs and installs it with `npm install -g` (a copy: the clone can then be
// moved or deleted). Run after `npm ci` (which builds dist/); it builds first if dist/ is stale.
//
// The tarball's package.json is the clone's without what only a clone uses (its build and test scripts, dev
// dependencies, the optional workspace): npm would otherwise warn, at every global install, that the package
// has an install script (`prepare`) not allowed to run, though an installed package has nothing to build.
//
// Why not `npm install -g <git URL>`: npm prepares a git dependency with an install that inherits the global
// flag, so the clone's build finds none of its dev dependencies, and the global folder is left a link to a
// deleted clone (npm/cli#8440, npm/cli#3692). `git clone` then `npm run install-global` is the same install.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const out = args[0] === "--out" ? resolve(args.splice(0, 2)[1] ?? "") : ROOT;
const install = args[0] === "--install";
const installArgs = install ? args.slice(1) : [];
if (!out || (!install && args.length)) fail(`usage: node scripts/pack.mjs [--out DIR] [--install [npm install args, e.g. --prefix DIR]]`);

run(process.execPath, [join(ROOT, "scripts", "build-if-stale.mjs")], ROOT);
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
const installed = { ...manifest };
for (const onlyInAClone of ["devDependencies", "workspaces", "scripts"]) delete installed[onlyInAClone];

mkdirSync(out, { recursive: true });
const stage = mkdtempSync(join(tmpdir(), "metatools-pack-"));
try {
  for (const entry of [...manifest.files, "README.md", "LICENSE"]) {
    if (existsSync(join(ROOT, entry))) cpSync(join(ROOT, entry), join(stage, entry), { recursive: true, filter: (from) => !from.endsWith(".built") });
  }
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(installed, null, 2)}\n`);
  const packed = spawnSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", out], { cwd: stage, encoding: "utf8" });
  if (packed.status !== 0) fail(`npm pack failed:\n${packed.stderr}`);
  const tarball = join(out, JSON.parse(packed.stdout)[0].filename);
  console.log(`packed ${tarball}`);
  if (install) run("npm", ["install", "-g", tarball, "--no-audit", "--no-fund", ...installArgs], ROOT);
} finally {
  rmSync(stage, { recursive: true, force: true });
}

function run(command, words, cwd) {
  const { status } = spawnSync(command, words, { cwd, stdio: "inherit" });
  if (status !== 0) fail(`${command} ${words.join(" ")} exited with ${status}`);
}

function fail(message) {
  console.error(`pack: ${message}`);
  process.exit(1);
}
