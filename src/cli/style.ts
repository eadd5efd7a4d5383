/**
 * Colour for people, never for pipes: ANSI codes only when the stream is a
 * terminal, unless NO_COLOR (any non-empty value) turns them off or FORCE_COLOR
 * turns them on ("0" or "false": off) — the conventions most CLIs follow.
 */
export interface Style {
  enabled: boolean;
  ok(text: string): string;
  bad(text: string): string;
  warn(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

export function styleFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): Style {
  // FORCE_COLOR=0 or false turns colour off even on a terminal, as in Node itself.
  const force = env.FORCE_COLOR;
  const forcedOff = force === "0" || force === "false";
  const forcedOn = force !== undefined && !forcedOff;
  const enabled = env.NO_COLOR !== undefined && env.NO_COLOR !== "" ? false : forcedOff ? false : forcedOn || stream.isTTY === true;
  const wrap = (open: number, close: number) => (text: string) => (enabled && text ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  return { enabled, ok: wrap(32, 39), bad: wrap(31, 39), warn: wrap(33, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}
