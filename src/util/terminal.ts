/**
 * Text for a terminal: what backends, authorization servers and agents write
 * (server names, URLs, stderr, errors, descriptions) must not move the
 * cursor, clear the screen, retitle the window, hide or reorder text, or
 * write a hyperlink. Every byte that reaches a person's terminal goes
 * through here: the CLI's output sinks (src/cli/output.ts) and the logger.
 *
 * Escape sequences are removed whole (CSI, OSC, DCS/SOS/PM/APC strings and
 * two-character ESC forms, in their 7-bit and C1 spellings); any other
 * control character is made visible as `\uXXXX`, as are the Unicode format
 * characters that reorder text (bidirectional overrides and isolates) and
 * the line and paragraph separators. Tab and newline stay.
 */

// Linear patterns: each run is bounded by characters it cannot contain, so no input backtracks.
const SEQUENCES = [
  // CSI: ESC [ or C1 0x9b, parameters, intermediates, one final byte.
  "(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*[@-~]?",
  // OSC, DCS, SOS, PM, APC: a string ended by BEL or ST (ESC \ or C1 0x9c), or by the end of the text.
  "(?:\\u001b[\\]PX^_]|[\\u0090\\u0098\\u009d\\u009e\\u009f])[^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)?",
  // Any other ESC and the character after it (charset selection, cursor save, reset …).
  "\\u001b[\\s\\S]?",
].join("|");
const SEQUENCE = new RegExp(SEQUENCES, "g");

// C0 but tab and newline, DEL, C1; bidi marks, embeddings, overrides and isolates; line/paragraph separators.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

const visible = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** `text` safe to print: escape sequences removed, other controls shown as `\uXXXX`. */
export function printable(text: string): string {
  return text.replace(SEQUENCE, "").replace(UNSAFE, visible);
}

/**
 * JSON text safe to print: `JSON.stringify` escapes C0 controls but leaves
 * C1 controls (0x9b is a CSI on many terminals) and bidi overrides raw; they
 * become `\uXXXX` escapes, so the JSON still parses to the same value.
 */
export function printableJson(json: string): string {
  return json.replace(UNSAFE, visible);
}

/** True when `text` holds nothing a terminal would act on (what tests assert of output). */
export function isPrintable(text: string): boolean {
  return !new RegExp(UNSAFE.source).test(text);
}
