/**
 * A JSON parse error as a person finds it in the file: the line and column
 * of the position V8 names ("… in JSON at position 18"; the end of the text
 * when the input ended early), and the message without the position.
 */

/** `JSON.parse`'s error over `text` in words with a line and column: "line 3, column 7: Unexpected number". */
export function jsonErrorWhere(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const at = /\bat position (\d+)/.exec(message);
  const position = at ? Number(at[1]) : /end of JSON input/.test(message) ? text.length : undefined;
  const what = message.replace(/\s*(in JSON )?at position \d+.*$/, "").replace(/ in JSON$/, "");
  if (position === undefined) return what;
  const before = text.slice(0, position);
  const line = before.split("\n").length;
  const column = position - before.lastIndexOf("\n");
  return `line ${line}, column ${column}: ${what}`;
}
