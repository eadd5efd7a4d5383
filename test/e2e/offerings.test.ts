/**
 * Backends' prompts and resources offered through metatools, named like
 * their tools (`everything:simple-prompt`, `metatools://everything/...`),
 * through the built server and the public everything server: listed, got
 * (their arguments completed by the backend) and read by a 2025 client over
 * HTTP and a 2026-07-28 client over stdio;
 * a profile that hides the namespace sees none of them, and cannot read one
 * by its name.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servers, tempDir } from "../helpers/harness.js";
import { stdioServe } from "../helpers/modern.js";
import { httpClientTransport, startHttp, type HttpChild } from "../helpers/serve.js";

const KV_TOKEN = "kv-only-token-0123456789abcdef";
const STATIC = "demo://resource/static/document/architecture.md";

let server: HttpChild;
let config: string;

beforeAll(async () => {
  const dir = tempDir();
  config = join(dir, "metatools.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { everything: servers.everything(), kv: servers.exec(join(dir, "calls.log")) },
      metatools: {
        code: { enabled: false },
        profiles: { kv: { tools: { allow: ["kv:*"] } } },
        http: { tokens: [{ token: KV_TOKEN, profile: "kv" }] },
      },
    }),
  );
  server = await startHttp(["--config", config]);
}, 30_000);

afterAll(() => server?.stop());

async function legacyClient(token?: string): Promise<Client> {
  const client = new Client({ name: "offerings", version: "1" });
  await client.connect(token ? httpClientTransport(server.url, token) : httpClientTransport(server.url));
  return client;
}

describe("a backend's prompts", () => {
  it("are listed as namespace:name with their arguments, and got filled in", async () => {
    const client = await legacyClient();
    try {
      const { prompts } = await client.listPrompts();
      const names = prompts.map((p) => p.name);
      expect(names).toEqual(expect.arrayContaining(["everything:simple-prompt", "everything:args-prompt"]));
      expect(prompts.find((p) => p.name === "everything:args-prompt")!.arguments?.map((a) => a.name)).toEqual(["city", "state"]);
      const filled = await client.getPrompt({ name: "everything:args-prompt", arguments: { city: "Lisbon" } });
      expect(JSON.stringify(filled.messages)).toContain("Lisbon");
      await expect(client.getPrompt({ name: "everything:no-such-prompt" })).rejects.toThrow();
      await expect(client.getPrompt({ name: "simple-prompt" })).rejects.toThrow(/namespace:name/);
    } finally {
      await client.close();
    }
  });
});

describe("completion of a backend's prompt arguments", () => {
  it("asks the backend under its own names, with the arguments already given", async () => {
    const client = await legacyClient();
    try {
      const ref = { type: "ref/prompt" as const, name: "everything:completable-prompt" };
      const departments = await client.complete({ ref, argument: { name: "department", value: "S" } });
      expect(departments.completion.values.sort()).toEqual(["Sales", "Support"]);
      const names = await client.complete({ ref, argument: { name: "name", value: "" }, context: { arguments: { department: "Sales" } } });
      expect(names.completion.values).toEqual(["David", "Eve", "Frank"]);
      // A name of no namespace, or of one the caller cannot see, gets nothing.
      expect(
        (await client.complete({ ref: { type: "ref/prompt", name: "completable-prompt" }, argument: { name: "department", value: "" } })).completion.values,
      ).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("gives nothing of a namespace the profile hides", async () => {
    const client = await legacyClient(KV_TOKEN);
    try {
      const hidden = await client.complete({ ref: { type: "ref/prompt", name: "everything:completable-prompt" }, argument: { name: "department", value: "" } });
      expect(hidden.completion.values).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe("a backend's resources", () => {
  it("are listed under metatools:// names, with its templates, and read by those names", async () => {
    const client = await legacyClient();
    try {
      const { resources } = await client.listResources();
      const shared = `metatools://everything/${STATIC}`;
      expect(resources.map((r) => r.uri)).toContain(shared);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toContain("metatools://everything/demo://resource/dynamic/text/{resourceId}");
      const read = await client.readResource({ uri: shared });
      expect(read.contents[0]!.uri).toMatch(/^metatools:\/\/everything\//);
      expect(JSON.stringify(read.contents)).toMatch(/architecture/i);
      const templated = await client.readResource({ uri: "metatools://everything/demo://resource/dynamic/text/7" });
      expect(templated.contents.length).toBeGreaterThan(0);
      // Neither listed nor matching a template, nor a link this caller was given.
      await expect(client.readResource({ uri: "metatools://everything/file:///etc/passwd" })).rejects.toThrow(/neither a resource a backend lists/);
    } finally {
      await client.close();
    }
  });
});

describe("a profile that hides the namespace", () => {
  it("sees none of its prompts or resources, and cannot read one by its name", async () => {
    const client = await legacyClient(KV_TOKEN);
    try {
      expect((await client.listPrompts()).prompts.filter((p) => p.name.startsWith("everything:"))).toEqual([]);
      expect((await client.listResources()).resources.filter((r) => r.uri.startsWith("metatools://everything/"))).toEqual([]);
      await expect(client.readResource({ uri: `metatools://everything/${STATIC}` })).rejects.toThrow(/neither a resource a backend lists/);
      await expect(client.getPrompt({ name: "everything:simple-prompt" })).rejects.toThrow(/no prompt/);
    } finally {
      await client.close();
    }
  });
});

describe("a 2026-07-28 client over stdio", () => {
  it("lists and gets the prompts, and reads the resources, as a 2025 client does", async () => {
    const client = new ClientV2({ name: "modern", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(stdioServe(config));
    try {
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain("everything:simple-prompt");
      const filled = await client.getPrompt({ name: "everything:simple-prompt" });
      expect(filled.messages.length).toBeGreaterThan(0);
      const read = await client.readResource({ uri: `metatools://everything/${STATIC}` });
      expect(JSON.stringify(read.contents)).toMatch(/architecture/i);
    } finally {
      await client.close();
    }
  }, 30_000);
});
