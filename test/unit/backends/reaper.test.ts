/**
 * The reaper on its own, with real process groups: a listed group is stopped
 * when its pipe closes (SIGKILL after SIGTERM, for one that ignores SIGTERM);
 * a forgotten one is left alone. Its end through a killed server is in
 * test/e2e/hostile/orphans.test.ts.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { Reaper } from "../../../src/backends/reaper.js";

const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // gone
    }
  }
});

/** A process group of two: a leader that ignores SIGTERM, and a child of it that does too. */
async function group(): Promise<number> {
  const stubborn = 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1 << 30);';
  const leader = `${stubborn} require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(stubborn + ' console.log("up")')}], { stdio: "inherit" });`;
  const child = spawn(process.execPath, ["-e", leader], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
  started.push(child);
  await new Promise((resolve) => child.stdout!.once("data", resolve));
  return child.pid!;
}

/** A member of the group is running: zombies (exited, not yet collected by init) do not count. */
function groupAlive(pgid: number): boolean {
  return execFileSync("ps", ["-A", "-o", "pgid=,stat="], { encoding: "utf8" })
    .split("\n")
    .some((line) => {
      const [group, stat] = line.trim().split(/\s+/);
      return Number(group) === pgid && !stat?.startsWith("Z");
    });
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 50))) if (check()) return true;
  return check();
}

describe.skipIf(process.platform === "win32")("Reaper", () => {
  it("stops every listed group, one that ignores SIGTERM included, once its pipe closes", async () => {
    const [a, b] = [await group(), await group()];
    const reaper = new Reaper();
    reaper.watch(a);
    reaper.watch(b);
    reaper.close();
    expect(await until(() => !groupAlive(a) && !groupAlive(b), 5000)).toBe(true);
  });

  it("leaves a forgotten group alone", async () => {
    const [kept, forgotten] = [await group(), await group()];
    const reaper = new Reaper();
    reaper.watch(forgotten);
    reaper.watch(kept);
    reaper.forget(forgotten);
    reaper.close();
    expect(await until(() => !groupAlive(kept), 5000)).toBe(true);
    expect(groupAlive(forgotten)).toBe(true);
  });

  it("watches nothing after close: no reaper is started again", async () => {
    const [pgid, control] = [await group(), await group()];
    const reaper = new Reaper();
    reaper.close();
    reaper.watch(pgid);
    // Were a reaper started by that watch, this close would end its pipe and it would stop the group, as the control's does.
    reaper.close();
    const controlReaper = new Reaper();
    controlReaper.watch(control);
    controlReaper.close();
    expect(await until(() => !groupAlive(control), 5000)).toBe(true);
    expect(groupAlive(pgid)).toBe(true);
  });
});
