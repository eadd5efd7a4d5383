/**
 * Tree-sitter parsing with the prebuilt WASM grammars of
 * `@vscode/tree-sitter-wasm` (no native build). Grammars load on first use;
 * outlines (the symbol tree of a file) are cached by path, modification time
 * and size, so repeated calls over a large tree parse only what changed.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as TreeSitter from "web-tree-sitter";
import type { Language, Parser, Tree, TreeCursor } from "web-tree-sitter";
import { CALLABLE_KINDS, CONTAINER_KINDS, DATA_KINDS, type LanguageSpec, type SymbolKind } from "./languages.js";
import { importExternal } from "../util/import-external.js";

export interface CodeSymbol {
  name: string;
  kind: SymbolKind;
  /** `Outer/inner`: the names of the enclosing symbols and this one. */
  namePath: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  children: CodeSymbol[];
}

interface CachedOutline {
  mtimeMs: number;
  size: number;
  symbols: CodeSymbol[];
}

/** Subtrees that never hold definitions; skipping them keeps the walk short. */
const OPAQUE = new Set([
  "comment",
  "string",
  "template_string",
  "string_literal",
  "raw_string_literal",
  "interpreted_string_literal",
  "regex",
  "line_comment",
  "block_comment",
]);

export class CodeParser {
  private parser?: Promise<Parser>;
  private readonly languages = new Map<string, Promise<Language>>();
  private readonly outlines = new Map<string, CachedOutline>();
  /** Outline cache hits and misses since start, for benchmarks and tests. */
  readonly stats = { hits: 0, misses: 0 };

  constructor(private readonly maxCachedFiles = 20_000) {}

  /** Parses `text` (the file's contents) and hands the tree to `use`; the tree is freed afterwards. */
  async withTree<T>(spec: LanguageSpec, text: string, use: (tree: Tree) => T): Promise<T | undefined> {
    const [parser, language] = await Promise.all([this.initParser(), this.language(spec)]);
    // Set and parse in one synchronous step: calls interleave at every await.
    parser.setLanguage(language);
    const tree = parser.parse(text);
    if (!tree) return undefined;
    try {
      return use(tree);
    } finally {
      tree.delete();
    }
  }

  /** The cached outline when `mtimeMs`/`size` still match, else undefined. */
  cachedOutline(abs: string, mtimeMs: number, size: number): CodeSymbol[] | undefined {
    const cached = this.outlines.get(abs);
    if (!cached || cached.mtimeMs !== mtimeMs || cached.size !== size) return undefined;
    // Refresh recency: Map order is the LRU order.
    this.outlines.delete(abs);
    this.outlines.set(abs, cached);
    this.stats.hits++;
    return cached.symbols;
  }

  /** Parses and caches the outline of a file whose text the caller has read. */
  async outline(abs: string, mtimeMs: number, size: number, spec: LanguageSpec, text: string): Promise<CodeSymbol[]> {
    this.stats.misses++;
    const symbols = (await this.withTree(spec, text, (tree) => extract(tree, spec))) ?? [];
    this.outlines.set(abs, { mtimeMs, size, symbols });
    if (this.outlines.size > this.maxCachedFiles) this.outlines.delete(this.outlines.keys().next().value!);
    return symbols;
  }

  /** The parser, loaded on first use: commands that never parse (search, describe) never pay for tree-sitter. */
  private initParser(): Promise<Parser> {
    this.parser ??= importExternal<typeof TreeSitter>("web-tree-sitter").then(async ({ Parser }) => {
      await Parser.init();
      return new Parser();
    });
    return this.parser;
  }

  private language(spec: LanguageSpec): Promise<Language> {
    let language = this.languages.get(spec.grammar);
    if (!language) {
      const dir = join(dirname(createRequire(import.meta.url).resolve("@vscode/tree-sitter-wasm/package.json")), "wasm");
      language = this.initParser().then(async () =>
        (await importExternal<typeof TreeSitter>("web-tree-sitter")).Language.load(join(dir, `tree-sitter-${spec.grammar}.wasm`)),
      );
      this.languages.set(spec.grammar, language);
    }
    return language;
  }
}

/** The symbol tree of a parsed file. */
function extract(tree: Tree, spec: LanguageSpec): CodeSymbol[] {
  const top: CodeSymbol[] = [];
  const cursor = tree.walk();
  try {
    if (cursor.gotoFirstChild()) visit(cursor, spec, undefined, top);
  } finally {
    cursor.delete();
  }
  return top;
}

function visit(cursor: TreeCursor, spec: LanguageSpec, parent: CodeSymbol | undefined, into: CodeSymbol[]): void {
  do {
    const type = cursor.nodeType;
    let symbol: CodeSymbol | undefined;
    const declared = cursor.nodeIsNamed ? spec.defs[type] : undefined;
    if (declared && !(DATA_KINDS.has(declared) && parent && CALLABLE_KINDS.has(parent.kind))) {
      const node = cursor.currentNode;
      const def = spec.define(node, declared);
      if (def) {
        const kind = def.kind === "function" && parent && CONTAINER_KINDS.has(parent.kind) ? "method" : def.kind;
        const prefix = def.owner ?? parent?.namePath;
        symbol = {
          name: def.name,
          kind,
          namePath: prefix ? `${prefix}/${def.name}` : def.name,
          startLine: node.startPosition.row + 1,
          endLine: node.endPosition.row + 1,
          children: [],
        };
        into.push(symbol);
      }
    }
    if (!OPAQUE.has(type) && cursor.gotoFirstChild()) {
      visit(cursor, spec, symbol ?? parent, symbol ? symbol.children : into);
      cursor.gotoParent();
    }
  } while (cursor.gotoNextSibling());
}
