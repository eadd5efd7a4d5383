/**
 * The HTTP admission checks on their own: the token bucket's arithmetic on a
 * controlled clock, which names count as loopback, and bearer matching.
 */
import { describe, expect, it } from "vitest";
import { BearerAuth, isLoopback, RateLimiter } from "../../../src/http/guard.js";

describe("http guards", () => {
  it("rate limit: a burst at once, then the per-minute rate, per key, with Retry-After", () => {
    let now = 0;
    const limiter = new RateLimiter(60, 3, () => now);
    expect([1, 2, 3].map(() => limiter.take("a"))).toEqual([undefined, undefined, undefined]);
    const refused = limiter.take("a");
    expect(refused).toMatchObject({ status: 429, headers: { "Retry-After": "1" } });
    expect(limiter.take("b")).toBeUndefined();
    now += 999;
    expect(limiter.take("a")?.status).toBe(429);
    now += 1;
    expect(limiter.take("a")).toBeUndefined();
    expect(limiter.take("a")?.status).toBe(429);
    // A batch costs its message count; one larger than the burst can never pass.
    expect(limiter.take("c", 3)).toBeUndefined();
    expect(limiter.take("c", 1)?.status).toBe(429);
    expect(limiter.take("d", 4)).toMatchObject({ status: 429, message: expect.stringContaining("a batch of 4 messages exceeds") });
    // Refilled buckets are forgotten; a forgotten key starts with a full burst again.
    now += 60_000;
    limiter.sweep();
    expect([1, 2, 3].map(() => limiter.take("a"))).toEqual([undefined, undefined, undefined]);
  });

  it("loopback names", () => {
    for (const host of ["localhost", "127.0.0.1", "127.8.9.10", "::1", "[::1]"]) expect(isLoopback(host)).toBe(true);
    for (const host of ["0.0.0.0", "10.0.0.1", "example.com", "localhost.example.com", "::", "128.0.0.1"]) expect(isLoopback(host)).toBe(false);
  });

  it("bearer tokens: which one matched, and why a request is refused", () => {
    const auth = new BearerAuth(["first-token-0123456789", "second-token-0123456789"]);
    const second = auth.check("Bearer second-token-0123456789");
    const first = auth.check("bearer first-token-0123456789");
    expect(second).toMatchObject({ key: "token:1", principal: expect.stringMatching(/^token:[\w-]{22}$/) });
    expect(first).toMatchObject({ key: "token:0", principal: expect.stringMatching(/^token:[\w-]{22}$/) });
    // A principal follows its token, not the token's place in the list (replicas, restarts, a removed token), and shows nothing of it.
    const reordered = new BearerAuth(["second-token-0123456789"]).check("Bearer second-token-0123456789");
    expect(reordered).toMatchObject({ key: "token:0", principal: (second as { principal: string }).principal });
    expect((first as { principal: string }).principal).not.toBe((second as { principal: string }).principal);
    expect(JSON.stringify([first, second])).not.toMatch(/token-0123456789/);
    expect(auth.check(undefined)).toMatchObject({ status: 401, message: expect.stringContaining("missing bearer token") });
    expect(auth.check("Basic Zm9vOmJhcg==")).toMatchObject({ status: 401 });
    expect(auth.check("Bearer first-token-012345678")).toMatchObject({ status: 401, message: "invalid bearer token" });
    expect(new BearerAuth([]).enabled).toBe(false);
  });
});
