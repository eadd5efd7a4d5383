/**
 * Which of a backend's media are passed on as what they claim to be. A
 * client renders an image block as an image and plays an audio block, by
 * its mimeType: an "image" that is SVG or HTML can carry script and links,
 * and a mimeType with line breaks or controls can forge headers or text
 * where a client writes it. So an image must be a raster type metatools
 * knows (PNG, JPEG, GIF, WebP) and its bytes must begin with that type's
 * signature; audio likewise (WAV, MP3, OGG, FLAC, AAC, M4A, WebM). A binary
 * resource that claims an image or audio type is held to the same check;
 * other binary resources pass as binary. What fails is withheld, with the
 * reason.
 */
import type { Media } from "./media.js";

/** A MIME type as RFC 6838 spells one (type/subtype, no parameters, no spaces or controls). */
const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;

type Sniff = (bytes: Buffer) => boolean;
/** Bytes `signature` at `offset`. */
const at =
  (offset: number, signature: readonly number[]): Sniff =>
  (bytes) =>
    signature.every((byte, i) => bytes[offset + i] === byte);
const starts = (...signature: number[]): Sniff => at(0, signature);
const ascii = (text: string, offset = 0): Sniff => at(offset, [...Buffer.from(text, "latin1")]);
/** RIFF containers (WAV, WebP) name their form at byte 8. */
const riff =
  (form: string): Sniff =>
  (bytes) =>
    bytes.subarray(0, 4).toString("latin1") === "RIFF" && bytes.subarray(8, 12).toString("latin1") === form;
const PNG = starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
const JPEG = starts(0xff, 0xd8, 0xff);
const GIF: Sniff = (bytes) => ["GIF87a", "GIF89a"].includes(bytes.subarray(0, 6).toString("latin1"));
/** MPEG audio: an ID3 tag, or a frame's sync bits (11 set bits). */
const MP3: Sniff = (bytes) => ascii("ID3")(bytes) || (bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0);
/** ADTS AAC: 12 sync bits, layer 0. */
const AAC: Sniff = (bytes) => bytes[0] === 0xff && (bytes[1]! & 0xf6) === 0xf0;
const MP4 = ascii("ftyp", 4);
const EBML = starts(0x1a, 0x45, 0xdf, 0xa3);

const IMAGES: Record<string, Sniff> = { "image/png": PNG, "image/jpeg": JPEG, "image/jpg": JPEG, "image/gif": GIF, "image/webp": riff("WEBP") };
const WAV = riff("WAVE");
const OGG = ascii("OggS");
const FLAC = ascii("fLaC");
const AUDIO: Record<string, Sniff> = {
  "audio/wav": WAV,
  "audio/wave": WAV,
  "audio/x-wav": WAV,
  "audio/vnd.wave": WAV,
  "audio/mpeg": MP3,
  "audio/mp3": MP3,
  "audio/ogg": OGG,
  "audio/opus": OGG,
  "audio/vorbis": OGG,
  "audio/flac": FLAC,
  "audio/x-flac": FLAC,
  "audio/aac": AAC,
  "audio/mp4": MP4,
  "audio/x-m4a": MP4,
  "audio/webm": EBML,
};

/** Why a piece of media is withheld, or undefined when it passes as what it claims. */
export function withheldBecause(block: Media): string | undefined {
  const claimed = block.type === "resource" ? block.resource.mimeType : block.mimeType;
  if (claimed === undefined && block.type === "resource") return undefined;
  if (typeof claimed !== "string" || !MIME.test(claimed)) return `its mimeType is not a plain type/subtype (it holds spaces, line breaks or other controls)`;
  const type = claimed.toLowerCase();
  const kind = block.type === "resource" ? (type.startsWith("image/") ? "image" : type.startsWith("audio/") ? "audio" : undefined) : block.type;
  if (!kind) return undefined;
  const table = kind === "image" ? IMAGES : AUDIO;
  const sniff = table[type];
  if (!sniff) {
    const active = type === "image/svg+xml" ? " (SVG is a document that can carry script and links)" : "";
    return `${type} is not ${kind === "image" ? "a raster image type metatools passes (PNG, JPEG, GIF, WebP)" : "an audio type metatools passes (WAV, MP3, OGG, FLAC, AAC, M4A, WebM)"}${active}`;
  }
  const data = block.type === "resource" ? ("blob" in block.resource ? block.resource.blob : "") : block.data;
  // The signatures are in the first 12 bytes: 16 characters of base64 decode to them.
  const head = Buffer.from(data.slice(0, 16), "base64");
  if (sniff(head)) return undefined;
  const seen = describeHead(head);
  return `its bytes are not ${type}${seen ? ` (they begin like ${seen})` : ""}`;
}

/** What the first bytes look like, when they look like something a client might render instead. */
function describeHead(head: Buffer): string | undefined {
  const text = head.toString("latin1").trimStart().toLowerCase();
  if (text.startsWith("<svg") || text.startsWith("<?xml")) return "SVG or XML";
  if (text.startsWith("<!doctype") || text.startsWith("<html") || text.startsWith("<")) return "HTML";
  for (const [type, sniff] of Object.entries({ ...IMAGES, ...AUDIO })) if (sniff(head)) return type;
  return undefined;
}
