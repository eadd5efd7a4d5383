/**
 * A backend's images, audio and binary resources. They travel as MCP
 * content of their own beside a reply's JSON, up to a media budget per
 * reply (decoded bytes); above it they are kept under an output handle
 * whose next call (`metatools:read_output`) returns them. The JSON says
 * what each one is and how large, never its data.
 */
import type { AudioContent, EmbeddedResource, ImageContent } from "@modelcontextprotocol/sdk/types.js";
import { READ_OUTPUT_ID, type KeptOutput, type OutputStore } from "./outputs.js";
import type { NextCall } from "./guidance.js";

/** Binary content: what the media budget counts. */
export type Media = ImageContent | AudioContent | EmbeddedResource;

/** What the JSON says of one piece of media. */
export interface MediaNote {
  type: "image" | "audio" | "resource";
  mimeType?: string;
  uri?: string;
  bytes: number;
  /** Not passed on, and why (media-check.ts): an SVG or HTML "image", a mimeType with controls, bytes of another type. */
  withheld?: string;
}

/** Decoded size of a block's base64 data. */
export function mediaBytes(block: Media): number {
  const data = block.type === "resource" ? ("blob" in block.resource ? block.resource.blob : "") : block.data;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

export function noteOf(block: Media): MediaNote {
  if (block.type === "resource")
    return { type: "resource", uri: block.resource.uri, ...(block.resource.mimeType ? { mimeType: block.resource.mimeType } : {}), bytes: mediaBytes(block) };
  return { type: block.type, mimeType: block.mimeType, bytes: mediaBytes(block) };
}

/** The call that returns media kept under `handle`. */
export function mediaCall(handle: string): NextCall {
  return { tool: "run_tool", arguments: { tool_id: READ_OUTPUT_ID, args: { handle } } };
}

/** Keeps media under a new handle of `principal`'s; rejects with a StoreError when the store cannot take it. */
export function keepMedia(outputs: OutputStore, media: readonly Media[], source: string, principal: string): Promise<KeptOutput> {
  const notes = media.map(noteOf);
  return outputs.put({ kind: "media", text: JSON.stringify(notes), source, media: [...media] }, principal);
}
