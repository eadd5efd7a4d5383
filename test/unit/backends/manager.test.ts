/**
 * BackendManager's reconnect backoff and circuit breaker (src/backends/manager.ts), on a fake clock with
 * a scripted upstream backend: the retry schedule (given, and the default one with injected jitter), the
 * state each step reports, the circuit opening after the schedule and closing on a success, and a dropped
 * ready backend starting the schedule again.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BackendError } from "../../../src/backends/errors.js";
import { BackendManager, type ManagerOptions } from "../../../src/backends/manager.js";
import { at, recordingLogger, ScriptedBackend, spec, TOOLS, useClock, type Step } from "./fake-backend.js";

const BACKOFF = [100, 200, 400];
const BREAKER = 5000;

function setup(script: Step[], options: Partial<ManagerOptions> = {}) {
  const backend = new ScriptedBackend("ns", script);
  const logger = recordingLogger();
  const manager = new BackendManager([{ backend, spec: spec("ns") }], { logger, backoffMs: BACKOFF, breakerMs: BREAKER, ...options });
  /** Tool-list lengths as the manager announced them. */
  const lists: number[] = [];
  manager.onTools((namespace, tools) => lists.push(namespace === "ns" ? tools.length : -1));
  /** The manager's status for the backend as each connect() began. */
  const seen: string[] = [];
  backend.probe = () => seen.push(manager.state("ns")!.status);
  const state = () => manager.state("ns")!;
  return { backend, logger, manager, lists, seen, state };
}

/** The error of a backend whose circuit is open, after its `n`th connect failed. */
const circuitOpen = (n: number, failures: number, retry: number) =>
  `ns: refused #${n}; circuit open after ${failures} failed attempts: next try at ${at(retry)}`;

const fails = (n: number): Step[] => Array.from({ length: n }, () => "fail");

beforeEach(useClock);
afterEach(() => vi.useRealTimers());

describe("backoff schedule (backoffMs given: used as is, no jitter)", () => {
  it.each([
    { failures: 0, times: [0], seen: "connecting" },
    { failures: 1, times: [0, 100], seen: "connecting reconnecting" },
    { failures: 3, times: [0, 100, 300, 700], seen: "connecting reconnecting reconnecting reconnecting" },
    // The schedule is spent after the 4th failure: the circuit opens, one try per breaker period.
    { failures: 4, times: [0, 100, 300, 700, 5700], seen: "connecting reconnecting reconnecting reconnecting failed" },
    { failures: 6, times: [0, 100, 300, 700, 5700, 10700, 15700], seen: "connecting reconnecting reconnecting reconnecting failed failed failed" },
  ])("$failures failed connects: attempts at $times ms, then ready", async ({ failures, times, seen: statuses }) => {
    const random = vi.fn(() => 0);
    const { backend, manager, seen, state } = setup(fails(failures), { random });
    await manager.start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(backend.connects).toEqual(times);
    expect(seen.join(" ")).toBe(statuses);
    expect(state()).toMatchObject({ status: "ready", toolCount: TOOLS.length });
    expect(state().retryAt).toBeUndefined();
    expect(state().error).toBeUndefined();
    expect(backend.closes).toBe(failures); // each failed attempt closes what it started
    expect(random).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("reports each step: the error, the retry time, nothing early, then ready", async () => {
    const { backend, manager, lists, state } = setup(["fail", "fail"]);
    expect(state()).toMatchObject({ status: "connecting", toolCount: 0 });
    await manager.start();
    expect(state()).toEqual({
      namespace: "ns",
      kind: "stdio",
      runnable: true,
      status: "reconnecting",
      error: "ns: refused #1",
      failedAt: at(0),
      toolCount: 0,
      retryAt: at(100),
      connectedInMs: 0,
    });
    await vi.advanceTimersByTimeAsync(99);
    expect(backend.connects).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(backend.connects).toEqual([0, 100]);
    expect(state()).toMatchObject({ status: "reconnecting", error: "ns: refused #2", retryAt: at(300) });
    await vi.advanceTimersByTimeAsync(199);
    expect(backend.connects).toEqual([0, 100]);
    await vi.advanceTimersByTimeAsync(1);
    expect(state()).toEqual({
      namespace: "ns",
      kind: "stdio",
      runnable: true,
      status: "ready",
      toolCount: 2,
      connectedInMs: 0,
      info: { name: "ns-server", version: "1.0.0" },
    });
    expect(lists).toEqual([2]);
  });
});

describe("circuit breaker", () => {
  it("opens when the schedule is spent: failed, one try per breakerMs, closed again by a success", async () => {
    const { backend, logger, manager, state } = setup(fails(5));
    await manager.start();
    await vi.advanceTimersByTimeAsync(700);
    expect(backend.connects).toEqual([0, 100, 300, 700]);
    // 4 connects failed; the count said leaves out the first (after a drop it is exact: see below).
    expect(state()).toMatchObject({ status: "failed", toolCount: 0, retryAt: at(5700), error: circuitOpen(4, 3, 5700) });
    expect(logger.lines).toContain(`error: ns: circuit open after 3 failed attempts; next try at ${at(5700)}`);
    expect(vi.getTimerCount()).toBe(1);

    await vi.advanceTimersByTimeAsync(BREAKER - 1);
    expect(backend.connects).toHaveLength(4);
    await vi.advanceTimersByTimeAsync(1);
    expect(backend.connects).toEqual([0, 100, 300, 700, 5700]);
    expect(state()).toMatchObject({ status: "failed", retryAt: at(10700), error: circuitOpen(5, 4, 10700) });

    await vi.advanceTimersByTimeAsync(BREAKER);
    expect(backend.connects.at(-1)).toBe(10700);
    expect(state()).toMatchObject({ status: "ready", retryAt: undefined, error: undefined, toolCount: 2 });
    // Closed: the failure count was reset, so a drop starts from the first backoff step again.
    await vi.advanceTimersByTimeAsync(1000);
    backend.emit({ type: "disconnected" });
    expect(state()).toMatchObject({ status: "reconnecting", retryAt: at(11800) });
    await vi.advanceTimersByTimeAsync(100);
    expect(backend.connects.at(-1)).toBe(11800);
    expect(state().status).toBe("ready");
  });

  it("an empty schedule opens the circuit on the first failure", async () => {
    const { backend, manager, state } = setup(["fail"], { backoffMs: [] });
    await manager.start();
    expect(state()).toMatchObject({ status: "failed", retryAt: at(BREAKER), error: circuitOpen(1, 0, BREAKER) });
    await vi.advanceTimersByTimeAsync(BREAKER);
    expect(backend.connects).toEqual([0, BREAKER]);
    expect(state().status).toBe("ready");
  });
});

describe("default schedule (1-16 s, ±25% jitter from options.random, breaker 300 s)", () => {
  it.each([
    { r: 0, delays: [750, 1500, 3000, 6000, 12000] },
    { r: 0.5, delays: [1000, 2000, 4000, 8000, 16000] },
    { r: 1, delays: [1250, 2500, 5000, 10000, 20000] },
    { r: 0.1234, delays: [812, 1623, 3247, 6494, 12987] }, // Math.round(ms * (0.75 + r / 2))
  ])("random() = $r: waits $delays, then 300000 ms per try", async ({ r, delays }) => {
    const random = vi.fn(() => r);
    const { backend, manager, state } = setup(fails(7), { backoffMs: undefined, breakerMs: undefined, random });
    await manager.start();
    await vi.advanceTimersByTimeAsync(1_000_000);
    const gaps = backend.connects.slice(1).map((t, i) => t - backend.connects[i]!);
    expect(gaps).toEqual([...delays, 300_000, 300_000]);
    expect(random).toHaveBeenCalledTimes(5); // the breaker period is not jittered
    expect(state().status).toBe("ready");
  });

  it("reports the jittered retry time in the state", async () => {
    const { manager, state } = setup(["fail"], { backoffMs: undefined, random: () => 1 });
    await manager.start();
    expect(state()).toMatchObject({ status: "reconnecting", retryAt: at(1250) });
  });
});

describe("a ready backend that drops", () => {
  it.each([
    { error: new Error("pipe closed"), reason: "ns: disconnected: pipe closed" },
    { error: undefined, reason: "ns: disconnected" },
  ])("is reconnected from the first step ($reason)", async ({ error, reason }) => {
    // Two failures at start-up first: a ready connection resets the count.
    const { backend, logger, manager, lists, state } = setup(["fail", "fail"]);
    await manager.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(backend.connects).toEqual([0, 100, 300]);
    backend.emit({ type: "disconnected", ...(error ? { error } : {}) });
    expect(state()).toMatchObject({ status: "reconnecting", error: reason, toolCount: 0, retryAt: at(1100) });
    expect(lists).toEqual([2, 0]); // its tools are taken away while it is down
    expect(logger.lines).toContain(`warn: ${reason}; reconnecting`);
    await vi.advanceTimersByTimeAsync(99);
    expect(backend.connects).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(backend.connects).toEqual([0, 100, 300, 1100]);
    expect(state()).toMatchObject({ status: "ready", toolCount: 2, error: undefined });
    expect(lists).toEqual([2, 0, 2]);
  });

  it("that keeps failing opens the circuit after the schedule's attempts", async () => {
    const { backend, manager, seen, state } = setup([]);
    await manager.start();
    backend.script.push(...fails(3));
    backend.emit({ type: "disconnected" });
    await vi.advanceTimersByTimeAsync(700);
    expect(backend.connects).toEqual([0, 100, 300, 700]);
    expect(seen).toEqual(["connecting", "reconnecting", "reconnecting", "reconnecting"]);
    expect(state()).toMatchObject({ status: "failed", retryAt: at(5700), error: circuitOpen(4, 3, 5700) });
  });

  it("ignores a second drop while it reconnects: one timer, one attempt", async () => {
    const { backend, manager, lists } = setup([]);
    await manager.start();
    backend.emit({ type: "disconnected" });
    backend.emit({ type: "disconnected", error: new Error("again") });
    expect(vi.getTimerCount()).toBe(1);
    expect(manager.state("ns")!.error).toBe("ns: disconnected");
    expect(lists).toEqual([2, 0]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(backend.connects).toEqual([0, 100]);
  });
});

describe("a backend that keeps failing", () => {
  it("logs a failure once, again only when it changes, the repeats at debug level", async () => {
    const same = new Error("cannot start: no key");
    const { logger, manager } = setup([same, same, same, new Error("cannot start: other"), "ok"]);
    await manager.start();
    await vi.advanceTimersByTimeAsync(60_000);
    const lines = (prefix: string) => logger.lines.filter((line) => line.startsWith(prefix));
    expect(lines("error: ns: cannot start: no key")).toHaveLength(1);
    expect(lines("debug: ns: cannot start: no key")).toHaveLength(2);
    expect(lines("error: ns: cannot start: other")).toHaveLength(1);
  });

  it("is not waited for once an attempt failed: whenReady settles at once, and a config entry that cannot be used is never retried", async () => {
    const { manager, state, backend } = setup(["fail", "ok"]);
    await manager.start();
    expect(state()).toMatchObject({ status: "reconnecting", failedAt: expect.any(String) });
    let settled = false;
    void manager.whenReady("ns").then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(true);
    expect(backend.connects).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(state()).toMatchObject({ status: "ready", failedAt: undefined });

    const unusable = setup([new BackendError("needs_config", "ns: environment variable K is not set", { fix: "set K" })]);
    await unusable.manager.start();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(unusable.state()).toMatchObject({ status: "needs_config", fix: "set K", retryAt: undefined });
    expect(unusable.backend.connects).toHaveLength(1);
    expect(unusable.logger.lines).toEqual(["warn: ns: environment variable K is not set (fix: set K)"]);
  });
});
