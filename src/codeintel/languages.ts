/**
 * The languages `code:symbols` and `code:references` understand: which
 * prebuilt tree-sitter grammar parses each, and which syntax nodes define a
 * symbol of which kind. Adding a language is adding an entry here.
 */
import type { Node } from "web-tree-sitter";

export const SYMBOL_KINDS = [
  "class",
  "interface",
  "enum",
  "struct",
  "trait",
  "impl",
  "module",
  "type",
  "function",
  "method",
  "constructor",
  "property",
  "field",
  "constant",
  "variable",
  "macro",
] as const;

export type SymbolKind = (typeof SYMBOL_KINDS)[number];

/** Kinds that hold members: a function found directly inside one is a method. */
export const CONTAINER_KINDS: ReadonlySet<SymbolKind> = new Set(["class", "interface", "enum", "struct", "trait", "impl", "module"]);
/** Kinds whose bodies hold local variables, which are not symbols. */
export const CALLABLE_KINDS: ReadonlySet<SymbolKind> = new Set(["function", "method", "constructor"]);
/** Kinds that are data, not definitions; recorded only outside callables. */
export const DATA_KINDS: ReadonlySet<SymbolKind> = new Set(["property", "field", "constant", "variable"]);

export interface Definition {
  name: string;
  kind: SymbolKind;
  /** For definitions outside their owner's body (a Go method's receiver type). */
  owner?: string;
}

export interface LanguageSpec {
  id: string;
  /** The grammar file in @vscode/tree-sitter-wasm, without `tree-sitter-` and `.wasm`. */
  grammar: string;
  extensions: string[];
  /** Node type → the kind of symbol it defines. */
  defs: Record<string, SymbolKind>;
  /** The name (and final kind) of a node listed in `defs`; undefined skips the node. */
  define: (node: Node, kind: SymbolKind) => Definition | undefined;
}

const functionValues = new Set(["arrow_function", "function_expression", "function", "generator_function"]);

const typescriptDefs: Record<string, SymbolKind> = {
  function_declaration: "function",
  generator_function_declaration: "function",
  class_declaration: "class",
  abstract_class_declaration: "class",
  class: "class",
  interface_declaration: "interface",
  enum_declaration: "enum",
  type_alias_declaration: "type",
  internal_module: "module",
  method_definition: "method",
  method_signature: "method",
  abstract_method_signature: "method",
  public_field_definition: "property",
  field_definition: "property",
  property_signature: "property",
  variable_declarator: "variable",
};

function defineScript(node: Node, kind: SymbolKind): Definition | undefined {
  const name = node.childForFieldName("name");
  if (!name || (node.type === "variable_declarator" && name.type !== "identifier")) return undefined;
  if (node.type === "variable_declarator" && functionValues.has(node.childForFieldName("value")?.type ?? "")) return { name: name.text, kind: "function" };
  if (node.type === "method_definition" && name.text === "constructor") return { name: name.text, kind: "constructor" };
  return { name: name.text, kind };
}

export const LANGUAGES: readonly LanguageSpec[] = [
  { id: "typescript", grammar: "typescript", extensions: [".ts", ".mts", ".cts"], defs: typescriptDefs, define: defineScript },
  { id: "tsx", grammar: "tsx", extensions: [".tsx"], defs: typescriptDefs, define: defineScript },
  { id: "javascript", grammar: "javascript", extensions: [".js", ".mjs", ".cjs", ".jsx"], defs: typescriptDefs, define: defineScript },
  {
    id: "python",
    grammar: "python",
    extensions: [".py", ".pyi"],
    defs: { class_definition: "class", function_definition: "function", assignment: "variable" },
    define(node, kind) {
      const name = node.childForFieldName(node.type === "assignment" ? "left" : "name");
      if (!name || name.type !== "identifier") return undefined;
      return { name: name.text, kind: kind === "variable" && /^[A-Z][A-Z0-9_]*$/.test(name.text) ? "constant" : kind };
    },
  },
  {
    id: "go",
    grammar: "go",
    extensions: [".go"],
    defs: {
      function_declaration: "function",
      method_declaration: "method",
      type_spec: "type",
      type_alias: "type",
      const_spec: "constant",
      var_spec: "variable",
      method_elem: "method",
      field_declaration: "field",
    },
    define(node, kind) {
      const name = node.childForFieldName("name")?.text;
      if (!name) return undefined;
      if (node.type === "type_spec") {
        const type = node.childForFieldName("type")?.type;
        return { name, kind: type === "struct_type" ? "struct" : type === "interface_type" ? "interface" : "type" };
      }
      if (node.type === "method_declaration") {
        const receiver = node.childForFieldName("receiver")?.text ?? "";
        const owner = /([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)\s*$/.exec(receiver)?.[1];
        return { name, kind, owner };
      }
      return { name, kind };
    },
  },
  {
    id: "rust",
    grammar: "rust",
    extensions: [".rs"],
    defs: {
      function_item: "function",
      function_signature_item: "function",
      struct_item: "struct",
      enum_item: "enum",
      union_item: "struct",
      trait_item: "trait",
      impl_item: "impl",
      mod_item: "module",
      type_item: "type",
      const_item: "constant",
      static_item: "variable",
      macro_definition: "macro",
      field_declaration: "field",
    },
    define(node, kind) {
      if (node.type === "impl_item") {
        const type = node.childForFieldName("type")?.text;
        return type ? { name: type.replace(/<.*$/s, ""), kind } : undefined;
      }
      const name = node.childForFieldName("name")?.text;
      return name ? { name, kind } : undefined;
    },
  },
  {
    id: "java",
    grammar: "java",
    extensions: [".java"],
    defs: {
      class_declaration: "class",
      record_declaration: "class",
      interface_declaration: "interface",
      annotation_type_declaration: "interface",
      enum_declaration: "enum",
      method_declaration: "method",
      constructor_declaration: "constructor",
      field_declaration: "field",
      constant_declaration: "constant",
    },
    define: declaratorName,
  },
  {
    id: "csharp",
    grammar: "c-sharp",
    extensions: [".cs"],
    defs: {
      namespace_declaration: "module",
      class_declaration: "class",
      record_declaration: "class",
      interface_declaration: "interface",
      struct_declaration: "struct",
      enum_declaration: "enum",
      method_declaration: "method",
      constructor_declaration: "constructor",
      property_declaration: "property",
      field_declaration: "field",
    },
    define: declaratorName,
  },
  {
    id: "ruby",
    grammar: "ruby",
    extensions: [".rb"],
    defs: { module: "module", class: "class", method: "method", singleton_method: "method", assignment: "constant" },
    define(node, kind) {
      const name = node.childForFieldName(node.type === "assignment" ? "left" : "name");
      if (!name || (node.type === "assignment" && name.type !== "constant")) return undefined;
      return { name: name.text, kind };
    },
  },
];

/** Fields and constants name themselves through their first declarator. */
function declaratorName(node: Node, kind: SymbolKind): Definition | undefined {
  let name = node.childForFieldName("name");
  if (!name) {
    const holder =
      node.childForFieldName("declarator") ??
      node.namedChildren.find((c) => c?.type === "variable_declaration")?.namedChildren.find((c) => c?.type === "variable_declarator");
    name = holder?.childForFieldName("name") ?? null;
  }
  return name ? { name: name.text, kind } : undefined;
}

const BY_EXTENSION = new Map(LANGUAGES.flatMap((spec) => spec.extensions.map((ext) => [ext, spec] as const)));

export function languageFor(path: string): LanguageSpec | undefined {
  const dot = path.lastIndexOf(".");
  return dot < 0 ? undefined : BY_EXTENSION.get(path.slice(dot).toLowerCase());
}

/** The language names, for descriptions and hints. */
export const LANGUAGE_NAMES = "TypeScript/TSX, JavaScript, Python, Go, Rust, Java, C# and Ruby";
