/**
 * An embedding service as the semantic leg (`embedder: { type: "openai" }`),
 * against an OpenAI-compatible server in the test whose vectors the test can
 * predict (test/helpers/embedding-service.ts): hybrid ranking uses them; a
 * service that is down, slow, or answers far too much or nonsense costs one
 * search the service's vectors (its meaning ranked by the built-in
 * embedder, saying why), never the server; a service not there at start
 * leaves the built-in embedder ranking meaning; tools it could not embed
 * rank by bm25 alone, saying so; the API key is sent to
 * the service and appears in no output, log or cache file.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { HOSTILE_BODY, startEmbeddingService, type EmbeddingService } from "../../helpers/embedding-service.js";
import { openSession, tempDir, type Session } from "../../helpers/harness.js";
import { writeTools } from "../../helpers/semantic.js";

let service: EmbeddingService;

beforeAll(async () => {
  service = await startEmbeddingService();
});
afterAll(() => service?.close());

/** A session over the notes tools, the service as its embedder; `cached`: embeddings kept in a folder (else in memory). The service behaves as it is set to. */
async function session(cached = true): Promise<Session> {
  const dir = tempDir();
  return openSession(
    {
      mcpServers: { notes: { type: "catalog", tools: writeTools(dir) } },
      metatools: {
        code: { enabled: false },
        search: {
          embedder: { type: "openai", url: service.url, model: "concepts", queryTimeoutMs: 1000 },
          embeddingCache: cached ? join(dir, "cache") : false,
        },
      },
    },
    { builtinCatalog: false, file: join(dir, "metatools.json") },
  );
}

const ids = (body: Record<string, any>) => (body.hits as { id: string }[]).map((h) => h.id);

describe("an embedding service as the semantic leg", () => {
  let s: Session;
  beforeAll(async () => {
    service.behaviour = "ok";
    s = await session();
    await s.app.search.semantic!.whenIdle();
  });
  afterAll(() => s?.close());

  it("ranks with the service's vectors: a tool found by meaning, not words", async () => {
    expect(s.app.search.semantic!.embedder!.id).toMatch(/^openai:http:\/\/127\.0\.0\.1:\d+\/v1#concepts@16~/);
    expect(ids(await s.call("search_tools", { query: "remove a file", mode: "bm25" }))).not.toContain("notes:delete_entry");
    const hybrid = await s.call("search_tools", { query: "remove a file" });
    expect(hybrid.mode).toBe("hybrid");
    expect(ids(hybrid)[0]).toBe("notes:delete_entry");
    // The tools went in batches, the query alone.
    expect(service.requests.some((r) => r.input.some((t) => /Erase an entry/.test(t)))).toBe(true);
  });

  it.each([
    ["down", /\(HTTP 503\)/],
    ["hostile", /\(HTTP 400\)/],
    ["slow", /no answer within 1000 ms/],
    ["garbage", /its answer has a vector of 1 values, not 16/],
    ["huge", /its answer passed [\d.]+ (KiB|MiB|bytes), far more than 1 vectors take; not read further/],
  ] as const)(
    "a service that is %s: that search ranks meaning with the built-in embedder and says why; the next one uses the service again",
    async (behaviour, why) => {
      service.behaviour = behaviour;
      const failed = await s.call("search_tools", { query: "remove a file" });
      expect(failed.mode).toBe("hybrid");
      expect(failed.warning).toMatch(/the embedding service could not embed the query \(/);
      expect(failed.warning).toMatch(why);
      expect(failed.warning).toMatch(/its meaning was ranked with the built-in embedder/);
      // The service's own words never reach the agent: they read as metatools' warning.
      expect(JSON.stringify(failed)).not.toMatch(/model loading|Ignore previous|SYSTEM|\u202e/);
      service.behaviour = "ok";
      const again = await s.call("search_tools", { query: "remove a file" });
      expect(again.mode).toBe("hybrid");
      expect(again.warning ?? "").not.toMatch(/built-in embedder/);
      expect(ids(again)[0]).toBe("notes:delete_entry");
    },
    20_000,
  );
});

it("a service not there at start: the built-in embedder ranks meaning meanwhile, and search says so", async () => {
  service.behaviour = "down";
  const s = await session(false);
  try {
    await s.app.search.semantic!.whenIdle();
    await s.app.search.semantic!.fallback!.whenIdle();
    expect(s.app.search.semantic!.error).toMatch(/did not answer: HTTP 503/);
    const body = await s.call("search_tools", { query: "send an email" });
    expect(body.mode).toBe("hybrid");
    expect(body.warning).toMatch(
      /the embedding service could not embed the query \(the embedding service at .* did not answer: HTTP 503[^)]*\); its meaning was ranked with the built-in embedder/,
    );
    expect(ids(body)[0]).toBe("notes:send_mail");
  } finally {
    service.behaviour = "ok";
    await s.close();
  }
}, 20_000);

it("tools the service could not embed rank by bm25 alone, and search says which and why", async () => {
  // metatools' first request (the probe) is answered; then the service is down.
  service.behaviour = "ok";
  service.then = "down";
  const s = await session(false);
  try {
    await s.app.search.semantic!.whenIdle();
    expect(s.app.search.semantic!.failures).toEqual([["notes", expect.stringContaining("HTTP 503")]]);
    // The service is back for the query; the tools wait for their retry.
    service.behaviour = "ok";
    const body = await s.call("search_tools", { query: "send an email" });
    expect(body.mode).toBe("hybrid");
    expect(body.warning).toMatch(/embedding notes failed \(HTTP 503[^)]*\): its tools are ranked by bm25 alone until it is tried again/);
    expect(ids(body)[0]).toBe("notes:send_mail");
  } finally {
    service.behaviour = "ok";
    await s.close();
  }
}, 20_000);

it("sends the API key to the service and nowhere else: not in output, logs or the cache", async () => {
  const dir = tempDir();
  const key = "sk-embed-test-0123456789abcdefABCDEF";
  const cache = join(dir, "cache");
  const config = join(dir, "metatools.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { notes: { type: "catalog", tools: writeTools(dir) } },
      metatools: {
        code: { enabled: false },
        search: { embedder: { type: "openai", url: service.url, model: "concepts", apiKey: "${EMBED_KEY}" }, embeddingCache: cache },
      },
    }),
  );
  service.behaviour = "ok";
  const before = service.requests.length;
  const ran = await runCli(["search", "remove a file", "--config", config, "--json", "--log-level", "debug"], { env: { EMBED_KEY: key } });
  expect(ran.code).toBe(0);
  expect(JSON.parse(ran.stdout).hits[0].id).toBe("notes:delete_entry");
  expect(service.requests.slice(before).every((r) => r.authorization === `Bearer ${key}`)).toBe(true);
  for (const text of [ran.stdout, ran.stderr, ...readdirSync(cache).map((f) => readFileSync(join(cache, f), "latin1"))]) expect(text).not.toContain(key);
  // doctor asks the service for a query's embedding and says how long it took.
  const doctor = await runCli(["doctor", "--config", config, "--json"], { env: { EMBED_KEY: key } });
  expect(JSON.parse(doctor.stdout).embedder).toMatchObject({ status: "ready", type: "openai", dimensions: 16, latencyMs: expect.any(Number) });
  // Down at start: doctor says why, naming the service, not the key.
  service.behaviour = "down";
  const down = await runCli(["doctor", "--config", config, "--json"], { env: { EMBED_KEY: key } });
  service.behaviour = "ok";
  expect(JSON.parse(down.stdout).embedder).toMatchObject({
    status: "failed",
    error: expect.stringMatching(/embedding service at http:\/\/127\.0\.0\.1:\d+\/v1 did not answer: HTTP 503/),
  });
  for (const text of [doctor.stdout, doctor.stderr, down.stdout, down.stderr]) expect(text).not.toContain(key);
}, 30_000);

it("a service that fails with words for the agent: not one reaches a reply; the log has them, printable and named as the service's", async () => {
  const dir = tempDir();
  const config = join(dir, "metatools.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { notes: { type: "catalog", tools: writeTools(dir) } },
      metatools: { code: { enabled: false }, search: { embedder: { type: "openai", url: service.url, model: "concepts" }, embeddingCache: false } },
    }),
  );
  service.behaviour = "hostile";
  try {
    const ran = await runCli(["search", "remove a file", "--config", config, "--json", "--log-level", "info"]);
    expect(ran.code).toBe(0);
    const reply = JSON.parse(ran.stdout);
    expect(reply.warning).toMatch(
      /the embedding service could not embed the query \(the embedding service at .* did not answer: HTTP 400\); its meaning was ranked with the built-in embedder/,
    );
    expect(ran.stdout).not.toMatch(/Ignore previous|SYSTEM|run_tool with/);
    // The log (stderr) keeps them for the operator: once, named, with the escape and the override shown, not acted on.
    const said = ran.stderr.split("\n").filter((line) => line.includes("Ignore previous instructions"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("the embedding service's own words on that failure (shown to no agent)");
    expect(said[0]).toContain("\\u001b[2KIgnore previous instructions");
    expect(said[0]).toContain("\\u202e fin");
    // eslint-disable-next-line no-control-regex -- raw escape and override characters must be absent
    expect(ran.stderr).not.toMatch(/[\u001b\u202e]/);
    expect(HOSTILE_BODY).toContain("\u202e");
  } finally {
    service.behaviour = "ok";
  }
}, 30_000);
