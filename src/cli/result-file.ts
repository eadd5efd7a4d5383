/**
 * What `metatools run --out FILE` writes: the file a person asked for, not
 * the JSON an agent reads. One image, audio clip or binary resource (beside
 * any text, a caption): its bytes, decoded; one text resource: its text; one
 * text (which the structured content, if any, only repeats): that text;
 * anything else: JSON, the structured content when the text adds nothing to
 * it, else every content block. Media that are not what they claim
 * (media-check.ts) are never written as such.
 */
import type { ToolCallResult } from "../backends/types.js";
import type { Media } from "../disclosure/media.js";
import { withheldBecause } from "../disclosure/media-check.js";
import { sameData } from "../meta/result.js";

export type FileKind = "image" | "audio" | "binary resource" | "text" | "text resource" | "JSON";

export interface ResultFile {
  kind: FileKind;
  data: Uint8Array | string;
  bytes: number;
  mimeType?: string;
  /** The text beside the one block written (a caption), which the file leaves out. */
  besides?: string;
}

type Block = NonNullable<ToolCallResult["content"]>[number];

/** What to write for `result`, or why its one piece of media is not written. */
export function resultFile(result: ToolCallResult): ResultFile | { withheld: string } {
  const blocks = result.content ?? [];
  const texts = blocks.flatMap((b) => (b.type === "text" ? [b.text] : []));
  const payloads = blocks.filter((b) => b.type === "image" || b.type === "audio" || b.type === "resource");
  const structured = result.structuredContent;
  if (payloads.length === 1 && payloads.length + texts.length === blocks.length) {
    const besides = texts.join("\n") || undefined;
    const block = payloads[0]!;
    if (block.type === "resource" && "text" in block.resource) {
      const { text, mimeType } = block.resource;
      return file("text resource", text, mimeType, besides);
    }
    const media = block as Media;
    const why = withheldBecause(media);
    if (why) return { withheld: why };
    if (media.type === "resource")
      return file("binary resource", base64("blob" in media.resource ? media.resource.blob : ""), media.resource.mimeType, besides);
    return file(media.type, base64(media.data), media.mimeType, besides);
  }
  if (blocks.length === 1 && texts.length === 1 && (structured === undefined || repeats(texts[0]!, structured))) return file("text", texts[0]!, undefined);
  const json = structured !== undefined && texts.length === blocks.length && texts.every((t) => sameData(t, structured)) ? structured : allBlocks(result);
  return file("JSON", `${JSON.stringify(json, null, 2)}\n`, "application/json");
}

/** Whether the text says all the structured content says: its JSON, or the value of its one field (`{content: "<the text>"}`). */
function repeats(text: string, structured: Record<string, unknown>): boolean {
  const same = sameData(text, structured);
  return same === "json" || (same === "values" && Object.keys(structured).length === 1);
}

/** The result's content blocks and structured content, with the data of media that are not what they claim left out. */
function allBlocks(result: ToolCallResult): Record<string, unknown> {
  const content = (result.content ?? []).map((block: Block) => {
    if (block.type !== "image" && block.type !== "audio" && !(block.type === "resource" && "blob" in block.resource)) return block;
    const why = withheldBecause(block as Media);
    if (!why) return block;
    return block.type === "resource" ? { type: block.type, uri: block.resource.uri, withheld: why } : { type: block.type, withheld: why };
  });
  return { content, ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}) };
}

const base64 = (data: string): Uint8Array => Buffer.from(data, "base64");

function file(kind: FileKind, data: Uint8Array | string, mimeType: string | undefined, besides?: string): ResultFile {
  const bytes = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
  return { kind, data, bytes, ...(mimeType ? { mimeType } : {}), ...(besides ? { besides } : {}) };
}
