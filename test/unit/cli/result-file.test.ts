/**
 * What `metatools run --out FILE` writes for each shape of result.
 */
import { describe, expect, it } from "vitest";
import type { ToolCallResult } from "../../../src/backends/types.js";
import { resultFile } from "../../../src/cli/result-file.js";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
const WAV = Buffer.concat([Buffer.from("RIFF"), Buffer.from([4, 0, 0, 0]), Buffer.from("WAVE")]);
const b64 = (bytes: Buffer) => bytes.toString("base64");
const image = { type: "image" as const, data: b64(PNG), mimeType: "image/png" };
const text = (t: string) => ({ type: "text" as const, text: t });

describe("run --out", () => {
  it.each<[string, ToolCallResult, { kind: string; data: string | Buffer; mimeType?: string; besides?: string }]>([
    [
      "one image, its caption aside",
      { content: [text("Here it is:"), image, text("The logo.")] },
      { kind: "image", data: PNG, mimeType: "image/png", besides: "Here it is:\nThe logo." },
    ],
    ["one audio clip", { content: [{ type: "audio", data: b64(WAV), mimeType: "audio/wav" }] }, { kind: "audio", data: WAV, mimeType: "audio/wav" }],
    [
      "one binary resource",
      { content: [{ type: "resource", resource: { uri: "file:///a.bin", blob: b64(Buffer.from([0, 1, 2])), mimeType: "application/octet-stream" } }] },
      { kind: "binary resource", data: Buffer.from([0, 1, 2]), mimeType: "application/octet-stream" },
    ],
    [
      "one text resource",
      { content: [{ type: "resource", resource: { uri: "file:///a.md", text: "# A\n", mimeType: "text/markdown" } }] },
      { kind: "text resource", data: "# A\n", mimeType: "text/markdown" },
    ],
    ["one text", { content: [text("hello\n")] }, { kind: "text", data: "hello\n" }],
    ["one text its structured content wraps", { content: [text("hello\n")], structuredContent: { content: "hello\n" } }, { kind: "text", data: "hello\n" }],
    ["one text that is the structured content's JSON", { content: [text('{"a":1}')], structuredContent: { a: 1 } }, { kind: "text", data: '{"a":1}' }],
    [
      "a summary beside structured content",
      { content: [text("2 items")], structuredContent: { items: [1, 2] } },
      {
        kind: "JSON",
        data: `${JSON.stringify({ content: [text("2 items")], structuredContent: { items: [1, 2] } }, null, 2)}\n`,
        mimeType: "application/json",
      },
    ],
    [
      "structured content its text repeats, field by field",
      { content: [text("a\nb")], structuredContent: { x: "a", y: "b" } },
      { kind: "JSON", data: `${JSON.stringify({ x: "a", y: "b" }, null, 2)}\n`, mimeType: "application/json" },
    ],
    [
      "several texts",
      { content: [text("one"), text("two")] },
      { kind: "JSON", data: `${JSON.stringify({ content: [text("one"), text("two")] }, null, 2)}\n`, mimeType: "application/json" },
    ],
    [
      "two images",
      { content: [image, image] },
      { kind: "JSON", data: `${JSON.stringify({ content: [image, image] }, null, 2)}\n`, mimeType: "application/json" },
    ],
  ])("%s", (_, result, expected) => {
    const chosen = resultFile(result);
    expect("withheld" in chosen).toBe(false);
    if ("withheld" in chosen) return;
    expect(Buffer.from(chosen.data)).toEqual(Buffer.from(expected.data));
    expect(chosen).toMatchObject({ kind: expected.kind, bytes: Buffer.byteLength(expected.data) });
    expect(chosen.mimeType).toBe(expected.mimeType);
    expect(chosen.besides).toBe(expected.besides);
  });

  it("never writes media as what they are not", () => {
    const svg = { type: "image" as const, data: b64(Buffer.from("<svg onload='x'/>")), mimeType: "image/svg+xml" };
    expect(resultFile({ content: [svg] })).toEqual({ withheld: expect.stringContaining("image/svg+xml") });
    const fake = { type: "image" as const, data: b64(Buffer.from("<html>hi</html>")), mimeType: "image/png" };
    expect(resultFile({ content: [fake] })).toEqual({ withheld: expect.stringContaining("HTML") });
    // In JSON, a withheld image is described, its data left out.
    const both = resultFile({ content: [image, fake] });
    expect("withheld" in both ? "" : String(both.data)).not.toContain(fake.data);
  });
});
