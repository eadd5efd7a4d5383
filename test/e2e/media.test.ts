/**
 * Everything a backend answers besides text reaches the agent: images and
 * audio as MCP content beside the JSON (over the media budget, under a
 * handle whose next call returns them), embedded resources, and links.
 * Through a real client, the real server and real backends (the public
 * everything server, and test/fixtures/media-server.mjs).
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, servers, type Session } from "../helpers/harness.js";

const MEDIA = fileURLToPath(new URL("../fixtures/media-server.mjs", import.meta.url));
// @ts-expect-error -- a plain .mjs fixture, shared with the server it feeds
const { bytesOf, wavOf } = (await import("../fixtures/media-bytes.mjs")) as { bytesOf: (n: number) => Buffer; wavOf: (n: number) => Buffer };

type Block = {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri: string; text?: string; blob?: string };
};

let session: Session;
async function run(tool_id: string, args: Record<string, unknown> = {}): Promise<{ body: Record<string, any>; blocks: Block[] }> {
  const result = await session.client.callTool({ name: "run_tool", arguments: { tool_id, args } });
  const [first, ...blocks] = result.content as Block[];
  return { body: JSON.parse((first as { text: string }).text), blocks };
}

beforeAll(async () => {
  session = await openSession({
    mcpServers: { everything: servers.everything(), media: { command: process.execPath, args: [MEDIA] } },
    metatools: { code: { enabled: false } },
  });
});
afterAll(() => session.close());

describe("images and audio", () => {
  it("everything:get-tiny-image comes back as an image block with the backend's very bytes", async () => {
    const direct = new Client({ name: "direct", version: "1" });
    await direct.connect(new StdioClientTransport(servers.everything()));
    const original = ((await direct.callTool({ name: "get-tiny-image", arguments: {} })).content as Block[]).find((b) => b.type === "image")!;
    await direct.close();

    const { body, blocks } = await run("everything:get-tiny-image");
    expect(body.ok).toBe(true);
    const image = blocks.find((b) => b.type === "image")!;
    expect(image.mimeType).toBe("image/png");
    expect(Buffer.from(image.data!, "base64").subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(image.data).toBe(original.data);
    // The JSON says what is attached, never the data.
    expect(body.media).toEqual([{ type: "image", mimeType: "image/png", bytes: Buffer.from(original.data!, "base64").length }]);
    expect(JSON.stringify(body)).not.toContain(original.data!.slice(0, 40));
  });

  it("a 3 MB image goes to a handle, and its next call returns it whole", async () => {
    const { body, blocks } = await run("media:image", { bytes: 3_000_000 });
    expect(blocks.filter((b) => b.type === "image")).toEqual([]);
    expect(body).toMatchObject({
      ok: true,
      media: [{ type: "image", mimeType: "image/png", bytes: 3_000_000 }],
      media_handle: expect.stringMatching(/^@out_/),
    });
    expect(body.next).toEqual({ tool: "run_tool", arguments: { tool_id: "metatools:read_output", args: { handle: body.media_handle } } });
    expect(JSON.stringify(body).length).toBeLessThan(2000);

    const fetched = await session.client.callTool({ name: body.next.tool, arguments: body.next.arguments });
    const image = (fetched.content as Block[]).find((b) => b.type === "image")!;
    expect(Buffer.from(image.data!, "base64").equals(bytesOf(3_000_000))).toBe(true);
  });

  it("audio is attached as audio", async () => {
    const { body, blocks } = await run("media:sound");
    expect(body.media).toEqual([{ type: "audio", mimeType: "audio/wav", bytes: 64 }]);
    expect(Buffer.from(blocks.find((b) => b.type === "audio")!.data!, "base64").equals(wavOf(64))).toBe(true);
  });
});

describe("embedded resources", () => {
  it("a text resource stays in the JSON (under the text budget); a binary one is attached as a resource", async () => {
    const { body, blocks } = await run("media:embedded");
    expect(body.content).toEqual([
      { type: "resource", uri: "media://doc/readme", mimeType: "text/markdown", text: "# Read me\nThe document behind the link." },
    ]);
    const binary = blocks.find((b) => b.type === "resource")!;
    expect(binary.resource!.uri).toBe("media://bin/logo");
    expect(Buffer.from(binary.resource!.blob!, "base64").equals(bytesOf(600))).toBe(true);
    expect(body.media).toEqual([{ type: "resource", uri: "media://bin/logo", mimeType: "image/png", bytes: 600 }]);
  });
});

describe("the media budget", () => {
  it("0 keeps every image under a handle", async () => {
    const tight = await openSession({ mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false }, budgets: { mediaBytes: 0 } } });
    try {
      const result = await tight.client.callTool({ name: "run_tool", arguments: { tool_id: "everything:get-tiny-image", args: {} } });
      const [first, ...blocks] = result.content as Block[];
      const body = JSON.parse(first!.text!);
      expect(blocks).toEqual([]);
      expect(body.media_handle).toMatch(/^@out_/);
    } finally {
      await tight.close();
    }
  });
});

describe("resource links", () => {
  it("are handed on under metatools:// names, and read back with resources/read and with metatools:read_resource", async () => {
    const { body, blocks } = await run("media:links");
    expect(body.links).toEqual([
      { uri: "metatools://media/media://doc/readme", name: "readme", mimeType: "text/markdown" },
      { uri: "metatools://media/media://bin/logo", name: "logo", mimeType: "image/png" },
    ]);
    expect(blocks.filter((b) => b.type === "resource_link").map((b) => b.uri)).toEqual(body.links.map((l: { uri: string }) => l.uri));
    expect(body.next).toEqual({ tool: "run_tool", arguments: { tool_id: "metatools:read_resource", args: { uri: "metatools://media/media://doc/readme" } } });

    const read = await session.client.readResource({ uri: "metatools://media/media://doc/readme" });
    expect(read.contents).toEqual([
      { uri: "metatools://media/media://doc/readme", mimeType: "text/markdown", text: "# Read me\nThe document behind the link." },
    ]);

    const viaTool = await session.client.callTool({ name: body.next.tool, arguments: body.next.arguments });
    const viaBody = JSON.parse((viaTool.content as Block[])[0]!.text!);
    expect(viaBody.content).toEqual([
      { type: "resource", uri: "metatools://media/media://doc/readme", mimeType: "text/markdown", text: "# Read me\nThe document behind the link." },
    ]);

    const logo = await run("metatools:read_resource", { uri: "metatools://media/media://bin/logo" });
    expect(Buffer.from(logo.blocks.find((b) => b.type === "resource")!.resource!.blob!, "base64").equals(bytesOf(600))).toBe(true);
  });

  it("everything:get-resource-links gives links that read back through metatools", async () => {
    const { body } = await run("everything:get-resource-links", { count: 2 });
    expect(body.links.length).toBe(2);
    for (const link of body.links as { uri: string }[]) {
      expect(link.uri.startsWith("metatools://everything/")).toBe(true);
      const read = await session.client.readResource({ uri: link.uri });
      expect(read.contents[0]!.uri).toBe(link.uri);
      expect(JSON.stringify(read.contents[0]).length).toBeGreaterThan(50);
    }
  });

  it("a link never handed out, or handed to another caller, is not found", async () => {
    await expect(session.client.readResource({ uri: "metatools://media/media://doc/secret" })).rejects.toThrow(/nor a link this caller was given/);
    const other = await session.app.resources.read("metatools://media/media://doc/readme", "someone-else");
    expect(other.kind).toBe("unknown");
    const refused = await run("metatools:read_resource", { uri: "metatools://media/media://doc/secret" });
    expect(refused.body).toMatchObject({ ok: false, error: { code: "unknown_resource" } });
  });
});
