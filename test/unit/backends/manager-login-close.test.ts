/**
 * BackendManager (src/backends/manager.ts) on a fake clock with a scripted upstream backend: the needs_login
 * path (no backoff timer, one try per breaker period or at once when the stored sign-in changes), the
 * connect timeout, and close() stopping every pending retry, sign-in watch and connect in flight.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BackendError } from "../../../src/backends/errors.js";
import { BackendManager } from "../../../src/backends/manager.js";
import { at, recordingLogger, ScriptedBackend, spec, useClock, type Step } from "./fake-backend.js";

const BREAKER = 5000;

function setup(script: Step[], connectTimeoutMs?: number) {
  const backend = new ScriptedBackend("ns", script);
  const logger = recordingLogger();
  const manager = new BackendManager([{ backend, spec: spec("ns", connectTimeoutMs) }], { logger, backoffMs: [100, 200, 400], breakerMs: BREAKER });
  const lists: number[] = [];
  manager.onTools((_namespace, tools) => lists.push(tools.length));
  const state = () => manager.state("ns")!;
  return { backend, logger, manager, lists, state };
}

beforeEach(useClock);
afterEach(() => vi.useRealTimers());

describe("needs_login", () => {
  it("at connect: no backoff, one try per breaker period, watching the sign-in; a success ends it", async () => {
    const { backend, logger, manager, state } = setup(["login", "login"]);
    await manager.start();
    expect(state()).toMatchObject({ status: "needs_login", error: "ns needs a sign-in (#1)", toolCount: 0, retryAt: at(BREAKER), connectedInMs: 0 });
    expect(logger.lines).toContain("warn: ns needs a sign-in (#1)");
    expect([backend.watches, backend.unwatches, backend.closes, vi.getTimerCount()]).toEqual([1, 0, 1, 1]);
    await vi.advanceTimersByTimeAsync(BREAKER - 1); // past every backoff step: none is used
    expect(backend.connects).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(backend.connects).toEqual([0, 5000]);
    expect(state()).toMatchObject({ status: "needs_login", error: "ns needs a sign-in (#2)", retryAt: at(10_000) });
    expect([backend.watches, backend.unwatches]).toEqual([2, 1]);
    await vi.advanceTimersByTimeAsync(BREAKER);
    expect(backend.connects).toEqual([0, 5000, 10_000]);
    expect(state()).toMatchObject({ status: "ready", error: undefined, retryAt: undefined, toolCount: 2 });
    expect([backend.watches, backend.unwatches, vi.getTimerCount()]).toEqual([2, 2, 0]);
  });

  it("connects at once when the stored sign-in changes, and drops the breaker timer", async () => {
    const { backend, manager, state } = setup(["login"]);
    await manager.start();
    await vi.advanceTimersByTimeAsync(1234);
    backend.signInListener!();
    await vi.advanceTimersByTimeAsync(0);
    expect(backend.connects).toEqual([0, 1234]);
    expect(state().status).toBe("ready");
    expect([backend.unwatches, vi.getTimerCount()]).toEqual([1, 0]);
    await vi.advanceTimersByTimeAsync(BREAKER * 3);
    expect(backend.connects).toHaveLength(2);
  });

  it("then a plain failure: back on the backoff schedule from its start", async () => {
    const { backend, manager, state } = setup(["login", "fail", "fail"]);
    await manager.start();
    await vi.advanceTimersByTimeAsync(BREAKER);
    expect(state()).toMatchObject({ status: "reconnecting", error: "ns: refused #2", retryAt: at(5100) });
    await vi.advanceTimersByTimeAsync(1000);
    expect(backend.connects).toEqual([0, 5000, 5100, 5300]);
    expect(state().status).toBe("ready");
  });

  it.each([
    { error: new BackendError("needs_login", "sign in: metatools auth login ns"), status: "needs_login", retryAt: BREAKER },
    { error: new BackendError("connect_failed", "HTTP 401 Unauthorized"), status: "reconnecting", retryAt: 100 },
    { error: new Error("needs_login"), status: "reconnecting", retryAt: 100 },
  ])("decides by BackendError code, not message: $error.name $error.message -> $status", async ({ error, status, retryAt }) => {
    const { manager, state } = setup([error]);
    await manager.start();
    expect(state()).toMatchObject({ status, retryAt: at(retryAt) });
  });

  it("reported by a ready backend: its tools go, it is closed, and waits for a sign-in", async () => {
    const { backend, manager, lists, state } = setup([]);
    await manager.start();
    await vi.advanceTimersByTimeAsync(300);
    backend.emit({ type: "needs_login", message: "token refused" });
    expect(state()).toMatchObject({ status: "needs_login", toolCount: 2 });
    expect([lists, backend.closes]).toEqual([[2, 0], 1]);
    await vi.advanceTimersByTimeAsync(0);
    expect(state()).toMatchObject({ status: "needs_login", error: "token refused", toolCount: 0, retryAt: at(5300), connectedInMs: 0 });
    expect(backend.watches).toBe(1);
    backend.emit({ type: "needs_login", message: "again" }); // ignored: it is not ready
    backend.emit({ type: "disconnected" });
    await vi.advanceTimersByTimeAsync(BREAKER - 1);
    expect([backend.connects, backend.watches, state().error]).toEqual([[0], 1, "token refused"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(backend.connects).toEqual([0, 5300]);
    expect(state().status).toBe("ready");
  });
});

describe("connect timeout", () => {
  it("a connect that never answers fails after connectTimeoutMs, aborted, and goes on the schedule", async () => {
    const { backend, manager, state } = setup(["hang"], 50);
    const started = manager.start();
    await vi.advanceTimersByTimeAsync(49);
    expect(backend.signals[0]!.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await started;
    expect(backend.signals[0]!.aborted).toBe(true);
    expect(state()).toMatchObject({ status: "reconnecting", error: "ns: no answer within 50 ms", connectedInMs: 50, retryAt: at(150) });
    await vi.advanceTimersByTimeAsync(100);
    expect(backend.connects).toEqual([0, 150]);
    expect(state().status).toBe("ready");
  });
});

describe("close()", () => {
  it.each<{ phase: string; script: Step[]; after: number; pending: string; closes: number }>([
    { phase: "a backoff retry is pending", script: ["fail"], after: 50, pending: "reconnecting", closes: 1 },
    { phase: "the circuit is open", script: ["fail", "fail", "fail", "fail"], after: 1000, pending: "failed", closes: 1 },
    { phase: "it waits for a sign-in", script: ["login"], after: 1000, pending: "needs_login", closes: 1 },
    // The aborted attempt closes what it started, and close() closes the backend too.
    { phase: "a connect is in flight", script: ["fail", "hang"], after: 150, pending: "reconnecting", closes: 2 },
  ])("when $phase: no attempt after it, no timer left", async ({ script, after, pending, closes: more }) => {
    const { backend, manager, state } = setup(script);
    await manager.start();
    await vi.advanceTimersByTimeAsync(after);
    expect(state().status).toBe(pending);
    const attempts = backend.connects.length;
    const closes = backend.closes;
    await manager.close();
    expect(state().status).toBe("closed");
    expect(backend.closes).toBe(closes + more);
    expect(backend.signals.at(-1)!.aborted).toBe(true);
    expect(backend.unwatches).toBe(backend.watches);
    expect(vi.getTimerCount()).toBe(0);
    backend.emit({ type: "disconnected" });
    backend.signInListener?.();
    await vi.advanceTimersByTimeAsync(1_000_000);
    expect(backend.connects).toHaveLength(attempts);
    expect([state().status, vi.getTimerCount()]).toEqual(["closed", 0]);
  });

  it("of a ready backend: a later drop schedules nothing", async () => {
    const { backend, manager, lists, state } = setup([]);
    await manager.start();
    await manager.close();
    backend.emit({ type: "disconnected" });
    backend.emit({ type: "needs_login", message: "x" });
    await vi.advanceTimersByTimeAsync(1_000_000);
    expect([backend.connects, state().status, lists, vi.getTimerCount()]).toEqual([[0], "closed", [2], 0]);
  });

  it("during a ready backend's needs_login hand-off stays closed once the backend has closed", async () => {
    // onNeedsLogin awaits backend.close(); the manager closing meanwhile must not be undone by the wait for a sign-in.
    const { backend, manager, state } = setup([]);
    await manager.start();
    const held: (() => void)[] = [];
    backend.closing = () => new Promise<void>((resolve) => held.push(resolve));
    backend.emit({ type: "needs_login", message: "token refused" });
    const closed = manager.close();
    expect(state().status).toBe("closed");
    expect(held).toHaveLength(2); // the hand-off's close, and close()'s own
    for (const resolve of held) resolve();
    await closed;
    await vi.advanceTimersByTimeAsync(0);
    expect(state().status).toBe("closed");
    expect([backend.watches, vi.getTimerCount()]).toEqual([0, 0]);
    await vi.advanceTimersByTimeAsync(BREAKER);
    expect(backend.connects).toEqual([0]);
  });
});
