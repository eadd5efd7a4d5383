/**
 * Transport kinds as data (src/model/transport-kinds.ts): every kind an
 * `mcpServers` entry can resolve to has its row, and each place that asks
 * about sign-in treats every kind whose row says it signs in as one that
 * does, so a new remote kind is one row and not a hunt for name tests.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { signsIn } from "../../../src/auth/open.js";
import { probe } from "../../../src/auth/probe.js";
import { authCommand } from "../../../src/cli/commands/auth.js";
import { oauthSecrets } from "../../../src/config/auth.js";
import type { BackendSpec, RemoteBackendSpec, ResolvedConfig } from "../../../src/config/resolved.js";
import { serverSchema } from "../../../src/config/schema.js";
import { pickServerSchema, resolveBackend } from "../../../src/config/server.js";
import { kindsWhere, TRANSPORT_KINDS, type RemoteKind } from "../../../src/model/transport-kinds.js";

/** Every `type` the schema's server union accepts, with a minimal entry of that variant. */
function entriesOfEveryType(): Record<string, unknown>[] {
  return serverSchema.options.flatMap((option) => {
    const field = option.shape.type;
    const inner = field instanceof z.ZodOptional ? field.unwrap() : field;
    const types = inner instanceof z.ZodLiteral ? [...inner.values] : (inner as z.ZodEnum).options;
    const fields = "command" in option.shape ? { command: "node" } : "url" in option.shape ? { url: "https://example.com/mcp" } : { tools: "tools.jsonl" };
    return types.map((type) => ({ type, ...fields }));
  });
}

const resolve = (entry: Record<string, unknown>): BackendSpec => {
  const schema = pickServerSchema(entry);
  expect(schema, JSON.stringify(entry)).toBeDefined();
  return resolveBackend("s", schema!.parse(entry) as never, "/project", 1000, 1000);
};

const signingKinds = kindsWhere((kind) => kind.signsIn) as RemoteKind[];
const remoteSpec = (kind: RemoteKind, oauth: RemoteBackendSpec["oauth"]): RemoteBackendSpec => ({
  namespace: `r-${kind}`,
  kind,
  url: "https://example.com/mcp",
  headers: {},
  connectTimeoutMs: 1000,
  callTimeoutMs: 1000,
  oauth,
});

describe("the transport kinds table", () => {
  it("has a configured row for every kind of the config schema's server union, and each configured row is reachable", () => {
    const entries = entriesOfEveryType();
    expect(entries.length).toBeGreaterThanOrEqual(serverSchema.options.length);
    const resolved = new Set(entries.map((entry) => resolve(entry).kind));
    for (const kind of resolved) expect(TRANSPORT_KINDS[kind], kind).toMatchObject({ configured: true });
    expect([...resolved].sort()).toEqual(kindsWhere((kind) => kind.configured).sort());
  });

  it("says remote kinds sign in and have a first request; local ones do neither", () => {
    for (const traits of Object.values(TRANSPORT_KINDS)) {
      if (traits.signsIn) expect(traits.place).toBe("remote");
      expect("probe" in traits).toBe(traits.place === "remote");
    }
    expect(signingKinds.length).toBeGreaterThan(0);
  });
});

describe("a kind that signs in is treated as one by auth", () => {
  it.each(signingKinds)("auth/open.ts: a %s backend with oauth settings signs in", (kind) => {
    expect(signsIn(remoteSpec(kind, {}))).toBe(true);
    expect(signsIn(remoteSpec(kind, undefined))).toBe(false);
  });

  it.each(signingKinds)("config/auth.ts: a %s backend's client secret is a secret", (kind) => {
    const config = { backends: [remoteSpec(kind, { clientSecret: "s3cret-of-the-client" })] } as ResolvedConfig;
    expect(oauthSecrets(config).map((s) => s.value)).toEqual(["s3cret-of-the-client"]);
  });

  it.each(signingKinds)("auth/probe.ts: a %s backend is probed as its row says", async (kind) => {
    const methods: string[] = [];
    const answer = await probe({ ...remoteSpec(kind, {}), oauth: {} }, async (_url, init) => {
      methods.push(init?.method ?? "GET");
      return new Response(null, { status: 200 });
    });
    expect(answer).toBeUndefined();
    // A POST probe whose handshake goes through unsigned goes on to the next request (where such a server asks): all POSTs.
    const method = TRANSPORT_KINDS[kind].probe === "get" ? "GET" : "POST";
    expect(methods.length).toBeGreaterThan(0);
    expect(new Set(methods)).toEqual(new Set([method]));
  });

  describe("cli/commands/auth.ts", () => {
    const dirs: string[] = [];
    afterEach(() => {
      vi.restoreAllMocks();
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    });

    it("lists every backend of a signing kind in `auth status`, and refuses to log in to a stdio one naming the kinds that sign in", async () => {
      const dir = mkdtempSync(join(tmpdir(), "mt-kinds-"));
      dirs.push(dir);
      const file = join(dir, "metatools.json");
      const servers = Object.fromEntries(signingKinds.map((kind) => [`r-${kind}`, { type: kind, url: "https://example.com/mcp" }]));
      writeFileSync(file, JSON.stringify({ mcpServers: { ...servers, local: { command: "node" } }, metatools: { builtinCatalog: false } }));
      let out = "";
      vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
        out += String(chunk);
        return true;
      });
      expect(await authCommand(["status", "--config", file, "--json"])).toBe(0);
      const rows = (JSON.parse(out) as { backends: { backend: string; status: string }[] }).backends;
      expect(rows.map((r) => r.backend).sort()).toEqual(signingKinds.map((kind) => `r-${kind}`).sort());
      await expect(authCommand(["login", "local", "--config", file])).rejects.toThrow(`only ${signingKinds.join(" and ")} servers sign in`);
    });
  });
});
