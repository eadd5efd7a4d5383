/**
 * Symbol outlines for the code tools: a file's symbol tree (from the parse
 * cache when the file is unchanged), matching with the kind filter applied
 * inside the traversal, and bodies read from the file.
 */
import { languageFor, type SymbolKind } from "./languages.js";
import type { CodeParser, CodeSymbol } from "./parser.js";
import { isReadRefusal, readText, type ReadPolicy } from "./files.js";
import type { FileInfo } from "./scan.js";

/** A symbol located in a file. */
export interface Located {
  file: string;
  abs: string;
  symbol: CodeSymbol;
}

/**
 * The outline of a file. `mustContain` (lower-case) lets a search skip
 * parsing a file whose text cannot hold a matching name.
 */
export async function outlineOf(
  parser: CodeParser,
  info: FileInfo,
  read: () => Promise<string | undefined>,
  mustContain?: string,
): Promise<CodeSymbol[] | undefined> {
  const spec = languageFor(info.entry.rel);
  if (!spec) return undefined;
  const cached = parser.cachedOutline(info.entry.abs, info.mtimeMs, info.size);
  if (cached) return cached;
  const text = await read();
  if (text === undefined) return undefined;
  if (mustContain && !text.toLowerCase().includes(mustContain)) return [];
  return parser.outline(info.entry.abs, info.mtimeMs, info.size, spec, text);
}

/**
 * Symbols whose name (or name path, when the pattern holds a "/") contains
 * `pattern`, case-insensitively. The kind filter skips a non-matching symbol
 * but still looks inside it: a class is not a function, its methods may be.
 */
export function collectMatching(symbols: readonly CodeSymbol[], pattern: string, kind: SymbolKind | undefined, out: CodeSymbol[] = []): CodeSymbol[] {
  const needle = pattern.toLowerCase();
  const byPath = needle.includes("/");
  for (const symbol of symbols) {
    const kindOk = !kind || symbol.kind === kind || (kind === "function" && symbol.kind === "method");
    if (kindOk && (byPath ? symbol.namePath : symbol.name).toLowerCase().includes(needle)) out.push(symbol);
    collectMatching(symbol.children, pattern, kind, out);
  }
  return out;
}

/** Symbols whose name path is `namePath` or ends with it at a segment boundary; kind plays no part. */
export function findByNamePath(symbols: readonly CodeSymbol[], namePath: string, out: CodeSymbol[] = []): CodeSymbol[] {
  const want = namePath.replace(/^\/+|\/+$/g, "");
  for (const symbol of symbols) {
    if (symbol.namePath === want || symbol.namePath.endsWith(`/${want}`)) out.push(symbol);
    findByNamePath(symbol.children, namePath, out);
  }
  return out;
}

/** `class Executor:31` — how a symbol is named in compact lists. */
export function compact(symbol: CodeSymbol): string {
  return `${symbol.kind} ${symbol.name}:${symbol.startLine}`;
}

/** The source lines of each symbol, read once per file; a body over `maxBytes` is cut and says where the rest is. */
export async function bodies(located: readonly Located[], maxBytes: number, policy: ReadPolicy): Promise<Map<CodeSymbol, string>> {
  const texts = new Map<string, Promise<string | undefined>>();
  const out = new Map<CodeSymbol, string>();
  for (const { abs, file, symbol } of located) {
    if (!texts.has(abs))
      texts.set(
        abs,
        readText(abs, policy).then((read) => (isReadRefusal(read) ? undefined : read.text)),
      );
    const text = await texts.get(abs)!;
    if (text === undefined) continue;
    const lines = text.split(/\r?\n/).slice(symbol.startLine - 1, symbol.endLine);
    let body = "";
    let used = 0;
    for (; used < lines.length && body.length + lines[used]!.length < maxBytes; used++) body += `${lines[used]}\n`;
    if (used < lines.length)
      body += `… ${lines.length - used} more lines: code:read_file {path: "${file}", start_line: ${symbol.startLine + used}, end_line: ${symbol.endLine}}`;
    out.set(symbol, body.trimEnd());
  }
  return out;
}
