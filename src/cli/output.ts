/**
 * Where the CLI prints: the only code that writes to stdout and stderr for a
 * person (a lint rule keeps `process.stdout.write` / `process.stderr.write`
 * out of the rest of src/). Everything written goes through `printable`
 * (src/util/terminal.ts), so a server name, a URL, a backend's stderr or an
 * error message from outside never reaches a terminal as escape sequences.
 * The only sequences that pass are this CLI's own colours, and only when
 * colour is on (a terminal, see style.ts).
 */
import { printable, printableJson } from "../util/terminal.js";
import { styleFor, type Style } from "./style.js";

export interface Output {
  readonly style: Style;
  /** Text for a person: controls from outside removed or made visible. */
  write(text: string): void;
  /** A value as indented JSON: parses to the same value, with no raw control a terminal acts on. */
  json(value: unknown): void;
  /** A tool's own output, piped on as it came; on a terminal it is made printable like any text. */
  pass(text: string | Uint8Array): void;
  /** Resolves once everything written so far has been handed to the system. */
  flushed(): Promise<void>;
}

// The SGR codes style.ts emits, exactly; nothing else of the form survives.
// eslint-disable-next-line no-control-regex
const OWN_COLOURS = /(\u001b\[(?:1|2|22|31|32|33|39)m)/;

export function outputTo(stream: NodeJS.WriteStream): Output {
  const style = styleFor(stream);
  const clean = style.enabled
    ? (text: string) =>
        text
          .split(OWN_COLOURS)
          .map((part, i) => (i % 2 ? part : printable(part)))
          .join("")
    : printable;
  return {
    style,
    write: (text) => void stream.write(clean(text)),
    json: (value) => void stream.write(`${printableJson(JSON.stringify(value, null, 2))}\n`),
    pass: (text) => void stream.write(stream.isTTY ? printable(typeof text === "string" ? text : Buffer.from(text).toString("utf8")) : text),
    flushed: () => new Promise((resolve) => stream.write("", () => resolve())),
  };
}

/** The two sinks of this process, made when first asked for (no work at import time). */
export const stdout = (): Output => outputTo(process.stdout);
export const stderr = (): Output => outputTo(process.stderr);
