/**
 * What an agent is told of backends that cannot serve, through a real MCP
 * client against the real server: once per session (and again when it
 * changes), a failure that retrying may end told apart from one only a
 * person can (a program not on PATH, not executable), and run_tool on such
 * a backend answered at once, saying which, with no unrelated tools.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, servers, tempDir, type Session } from "../helpers/harness.js";

const fixture = fileURLToPath(new URL("../fixtures/faulty-server.mjs", import.meta.url));
let session: Session;
let faultFile: string;
let notExecutable: string;

beforeAll(async () => {
  const dir = tempDir();
  faultFile = join(dir, "fault");
  writeFileSync(faultFile, "exit");
  notExecutable = join(dir, "server.sh");
  writeFileSync(notExecutable, "#!/bin/sh\n");
  chmodSync(notExecutable, 0o644);
  session = await openSession(
    {
      mcpServers: {
        ok: servers.everything(),
        flaky: { command: process.execPath, args: [fixture], env: { FAULT_FILE: faultFile } },
        nopath: { command: "metatools-test-no-such-program", args: ["--stdio"] },
        noexec: { command: notExecutable },
      },
      metatools: { code: { enabled: false }, search: { embedder: false } },
    },
    { breakerMs: 1500 },
  );
}, 30_000);

afterAll(() => session?.close());

const byNamespace = (unavailable: Record<string, any>[] | undefined) => Object.fromEntries((unavailable ?? []).map((u) => [u.namespace, u]));

describe("backends that cannot serve", () => {
  it("a program not on PATH, or not executable, is said so, as a person's fix with no retry", async () => {
    const first = await session.call("search_tools", { query: "echo" });
    const down = byNamespace(first.unavailable);
    expect(down.nopath.error).toContain("`metatools-test-no-such-program` is not on PATH (spawn metatools-test-no-such-program ENOENT; PATH is");
    expect(down.nopath.fix).toMatch(/^a person must install metatools-test-no-such-program, or set mcpServers\.nopath\.command to its full path/);
    expect(down.nopath.retry).toBeUndefined();
    expect(down.noexec.error).toContain(`\`${notExecutable}\` cannot be run: permission denied`);
    expect(down.noexec.fix).toContain(`chmod +x ${notExecutable}`);
    // A failure retrying may end: when, and the call to make then.
    expect(down.flaky).toMatchObject({
      status: "failed",
      retry_at: expect.any(String),
      retry: { tool: "search_tools", arguments: { query: "echo", namespace: "flaky" } },
    });
    expect(down.flaky.fix).toBeUndefined();
    expect(down.flaky.error).toContain("refusing to start");

    const started = Date.now();
    const run = await session.call("run_tool", { tool_id: "nopath:anything", args: {} });
    expect(Date.now() - started).toBeLessThan(300);
    expect(run).toMatchObject({ ok: false, error: { code: "backend_unavailable" } });
    expect(run.warning).toContain("Not retryable: a person must install metatools-test-no-such-program");
    expect(run.next).toBeUndefined();
    expect(run.did_you_mean).toBeUndefined();
    expect(JSON.stringify(run)).not.toMatch(/ok:[a-z]/);
  });

  it("run_tool on a backend retrying answers at once with when it is tried again and the same call as next", async () => {
    const started = Date.now();
    const run = await session.call("run_tool", { tool_id: "flaky:echo", args: { text: "hi" } });
    expect(Date.now() - started).toBeLessThan(300);
    expect(run).toMatchObject({
      ok: false,
      error: { code: "backend_unavailable" },
      next: { tool: "run_tool", arguments: { tool_id: "flaky:echo", args: { text: "hi" } } },
    });
    expect(run.error.message).toContain("refusing to start");
    expect(run.hint).toMatch(/^Retrying: metatools tries it again at \S+ \(in \d+ s\); then run this call again/);
    expect(JSON.stringify(run)).not.toMatch(/ok:[a-z]/);
  });

  it("is told once per session, and again when what is unavailable changes", async () => {
    const again = await session.call("search_tools", { query: "add two numbers" });
    expect(again.unavailable).toBeUndefined();
    expect(again.hits[0].id).toBe("ok:get-sum");
    // flaky comes back: the set changes, so the next reply tells it.
    writeFileSync(faultFile, "");
    let changed: Record<string, any> = {};
    for (let i = 0; i < 100 && !changed.unavailable; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      changed = await session.call("search_tools", { query: "echo" });
    }
    expect(Object.keys(byNamespace(changed.unavailable)).sort()).toEqual(["noexec", "nopath"]);
    expect((await session.call("search_tools", { query: "echo" })).unavailable).toBeUndefined();
    expect(await session.call("run_tool", { tool_id: "flaky:echo", args: { text: "back" } })).toMatchObject({ ok: true });
  }, 30_000);

  it("a search scoped to a backend that is down says so, not that the namespace does not exist", async () => {
    const scoped = await session.call("search_tools", { query: "anything", namespace: "nopath" });
    expect(scoped.warning).toMatch(/^Namespace "nopath" has no tools now: its backend is failed; a person must install metatools-test-no-such-program/);
    expect(scoped.next).toEqual({ tool: "search_tools", arguments: { query: "anything" } });
  });
});
