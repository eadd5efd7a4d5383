/**
 * Colour for people, never for pipes: ANSI codes only when the stream is a
 * terminal, unless NO_COLOR (any value) turns them off or FORCE_COLOR (not
 * "0") turns them on — the conventions most CLIs follow.
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
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0";
  const enabled = env.NO_COLOR === undefined || env.NO_COLOR === "" ? forced || stream.isTTY === true : false;
  const wrap = (open: number, close: number) => (text: string) => (enabled && text ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  return { enabled, ok: wrap(32, 39), bad: wrap(31, 39), warn: wrap(33, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}
