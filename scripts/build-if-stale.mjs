// Runs `npm run build` unless dist/ is newer than everything it is built from: `npm test` after `npm ci` (which
// builds) or after a build does not build again. What it is built from: the sources, the build scripts and configs,
// and the manifests. A build that succeeds leaves dist/.built, whose time is the build's.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const STAMP = "dist/.built";
const INPUTS = ["src", "scripts/bundle.mjs", "tsconfig.json", "tsconfig.build.json", "package.json", "package-lock.json"];

function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs);
}

const built = newest(STAMP);
if (built && INPUTS.every((input) => newest(input) < built)) {
  console.log("build: dist/ is up to date");
} else {
  const started = new Date();
  const { status } = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  if (status !== 0) process.exit(status ?? 1);
  // The stamp carries the time the build started: a source saved during the build is newer, so the next run builds again.
  writeFileSync(STAMP, `${started.toISOString()}\n`);
  utimesSync(STAMP, started, started);
}
