/**
 * The built-in code-intelligence backend (namespace `code`): tree, symbols,
 * references, grep and read_file over one project root. It is what makes a
 * fresh `metatools serve` useful with no config at all.
 */
import { BuiltinBackend } from "../builtin/backend.js";
import type { OutputStore } from "../disclosure/outputs.js";
import type { CodeContext } from "./context.js";
import { MatcherPool } from "../util/regex-worker.js";
import { CodeParser } from "./parser.js";
import { grepTool } from "./tools/grep.js";
import { readFileTool } from "./tools/read-file.js";
import { referencesTool } from "./tools/references.js";
import { symbolsTool } from "./tools/symbols.js";
import { treeTool } from "./tools/tree.js";
import { Workspace, type WorkspaceLimits } from "./workspace.js";

export const CODE_NAMESPACE = "code";
/** The MCP-style server name the built-in catalog file matches on. */
export const CODE_SERVER_NAME = "metatools-code";

export interface CodeBackendOptions {
  root: string;
  limits: WorkspaceLimits;
  /** Extra secret patterns (.gitignore syntax) beside the defaults. */
  deny: readonly string[];
  /** Read hard-linked files (default false). */
  allowHardLinks?: boolean;
  /** Takes secrets from the environment out of file text as it is read, before any line is cut. */
  redact?: (text: string) => string;
  /** The same for text grep searches: credentials only (WorkspacePolicy.redactForSearch). */
  redactForSearch?: (text: string) => string;
  /** The largest body a tool returns, in bytes. */
  budget: number;
  outputs: OutputStore;
}

export class CodeBackend extends BuiltinBackend {
  constructor(
    private readonly context: CodeContext,
    outputs: OutputStore,
  ) {
    super(
      CODE_NAMESPACE,
      { name: CODE_SERVER_NAME },
      [treeTool(context), symbolsTool(context), referencesTool(context), grepTool(context), readFileTool(context, outputs)],
      () => context.matchers.close(),
    );
  }

  /** Outline cache hits and misses since start. */
  parserStats(): { hits: number; misses: number } {
    return { ...this.context.parser.stats };
  }
}

export function createCodeBackend(options: CodeBackendOptions): CodeBackend {
  const context: CodeContext = {
    ws: new Workspace(options.root, options.limits, {
      deny: options.deny,
      allowHardLinks: options.allowHardLinks,
      redact: options.redact,
      redactForSearch: options.redactForSearch,
    }),
    parser: new CodeParser(),
    matchers: new MatcherPool(),
    namespace: CODE_NAMESPACE,
    budget: options.budget,
  };
  return new CodeBackend(context, options.outputs);
}
