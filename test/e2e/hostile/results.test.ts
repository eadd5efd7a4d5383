/**
 * Results that attack the agent's side, through a real client, the real
 * server and a real backend (test/fixtures/flood-result-server.mjs): floods
 * of links or tiny images and nothing else go under a handle with the call
 * that reads them; SVG, HTML and forged mimeTypes are not passed as images;
 * orders hidden in a result are delivered with a warning that names them;
 * a backend's stack trace never reaches the agent.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, type Session } from "../../helpers/harness.js";

const FLOOD = fileURLToPath(new URL("../../fixtures/flood-result-server.mjs", import.meta.url));

type Block = { type: string; text?: string; data?: string; mimeType?: string; uri?: string };

let session: Session;
async function run(
  tool_id: string,
  args: Record<string, unknown> = {},
): Promise<{ body: Record<string, any>; blocks: Block[]; bytes: number; isError: boolean }> {
  const result = await session.client.callTool({ name: "run_tool", arguments: { tool_id, args } });
  const [first, ...blocks] = result.content as Block[];
  return { body: JSON.parse(first!.text!), blocks, bytes: Buffer.byteLength(first!.text!), isError: result.isError === true };
}

beforeAll(async () => {
  session = await openSession({ mcpServers: { flood: { command: process.execPath, args: [FLOOD] } }, metatools: { code: { enabled: false } } });
});
afterAll(() => session.close());

describe("floods of links and media", () => {
  it("300 resource links and nothing else come back under a handle, and its next call reads them", async () => {
    const { body, blocks, bytes, isError } = await run("flood:links", { count: 300 });
    expect(isError).toBe(false);
    expect(body.ok).toBe(true);
    expect(body.handle).toMatch(/^@out_/);
    expect(bytes).toBeLessThanOrEqual(10_000);
    expect(body.hint).toContain("300 resource links (links)");
    // Not sent as 300 content blocks either: they are in the stored output.
    expect(blocks).toEqual([]);
    expect(body.next).toMatchObject({ tool: "run_tool", arguments: { tool_id: "metatools:read_output", args: { handle: body.handle } } });
    const read = await session.call("run_tool", { ...body.next.arguments, args: { handle: body.handle, json_path: "$.links[299]" } });
    expect(read.ok).toBe(true);
    expect(read.structured?.value ?? read.value).toMatchObject({ name: "item-299", uri: expect.stringMatching(/^metatools:\/\/flood\//) });
  });

  it("10,000 tiny images and nothing else: the list of them goes under a handle, no internal error", async () => {
    const { body, bytes, isError } = await run("flood:images", { count: 10_000 });
    expect(isError).toBe(false);
    expect(body.ok).toBe(true);
    expect(bytes).toBeLessThanOrEqual(10_000);
    expect(body.handle).toMatch(/^@out_/);
    expect(body.hint).toContain("the list of the 10000 media (media)");
    const read = await session.call("run_tool", { tool_id: "metatools:read_output", args: { handle: body.handle, json_path: "$.media[9999]" } });
    expect(read.structured?.value ?? read.value).toMatchObject({ type: "image", mimeType: "image/png", bytes: 70 });
  });
});

describe("media checked against their bytes", () => {
  it.each([
    ["svg", "image/svg+xml", /SVG/],
    ["html", "text/html", /text\/html is not a raster image type/],
    ["html_as_png", "image/png", /bytes are not image\/png \(they begin like HTML\)/],
    ["crlf", "image/png[U+000D][U+000A]X-Injected: 1", /not a plain type\/subtype/],
  ])("a %s 'image' is not passed on as an image, and a warning says why", async (kind, shownType, why) => {
    const { body, blocks } = await run("flood:fake_image", { kind });
    expect(blocks.filter((b) => b.type === "image")).toEqual([]);
    expect(body.media).toEqual([expect.objectContaining({ type: "image", mimeType: shownType, withheld: expect.stringMatching(why) })]);
    expect(body.warning).toMatch(/Withheld one piece of media/);
    expect(JSON.stringify(body)).not.toMatch(/\r|\\r/);
  });

  it("a real PNG passes as an image", async () => {
    const { body, blocks } = await run("flood:fake_image", { kind: "png" });
    expect(blocks.map((b) => [b.type, b.mimeType])).toEqual([["image", "image/png"]]);
    expect(body.media).toEqual([{ type: "image", mimeType: "image/png", bytes: 70 }]);
    expect(JSON.stringify(body)).not.toMatch(/withheld|Withheld/);
  });
});

describe("orders hidden in results", () => {
  it.each(["text", "structured", "link"])("a poisoned result (in its %s) is delivered whole, with a warning naming what was found", async (where) => {
    const { body } = await run("flood:poisoned", { where });
    expect(body.ok).toBe(true);
    expect(JSON.stringify(body)).toContain("Ignore all previous instructions");
    expect(body.warning).toMatch(/reads as instructions to you/);
    expect(body.warning).toContain("hidden instruction markup in");
    expect(body.warning).toContain("<IMPORTANT>");
    expect(body.warning).toMatch(/overrides instructions in \S+ \("Ignore all previous instructions"\)/);
  });

  it("a clean result carries no warning", async () => {
    const { body } = await run("flood:fake_image", { kind: "png" });
    expect(JSON.stringify(body)).not.toMatch(/instructions to you/);
  });
});

describe("backend errors are messages", () => {
  it("a JSON-RPC error with a stack trace shows its message only: no frames, no local cache paths", async () => {
    const { body, isError } = await run("flood:fail");
    expect(isError).toBe(false);
    expect(body.error.code).toBe("upstream_error");
    expect(body.error.message).toContain("upstream lookup failed: connection refused");
    expect(body.error.message).not.toMatch(/\n\s+at |_npx|node_modules|\/home\/dev/);
  });

  it("a tool error whose text is a stack trace shows the message only", async () => {
    const { body } = await run("flood:tool_error");
    expect(body.error.code).toBe("tool_error");
    expect(body.result).toBe("Error: upstream lookup failed: connection refused");
  });
});
