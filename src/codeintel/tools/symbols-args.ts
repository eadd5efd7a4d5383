/** code:symbols' arguments: shared by the tool and the two halves of its reply (overview, matches). */
import * as z from "zod";
import { PAGE_ARGS } from "../context.js";
import { SYMBOL_KINDS } from "../languages.js";

export const symbolsArgs = z.strictObject({
  pattern: z
    .string()
    .optional()
    .describe('Substring of the symbol name, case-insensitive, e.g. "parse" (use "Class/meth" to match on the name path). Empty string matches every symbol.'),
  name_path: z.string().optional().describe('Exact symbol path, e.g. "Executor/run" or "loadConfig"; kind is ignored. Use with include_body.'),
  path: z.string().optional().describe('File or directory to look in, relative to the project root (default: the root). Example: "src/app.ts".'),
  kind: z.enum(SYMBOL_KINDS).optional().describe('Only symbols of this kind ("function" also matches methods); parents of other kinds are still searched.'),
  include_body: z.boolean().optional().describe("Include source bodies (first 5 results only); switches to detail_level full."),
  glob: z.string().optional().describe('Only files matching this glob, e.g. "*.py".'),
  ...PAGE_ARGS,
});

export type SymbolsArgs = z.output<typeof symbolsArgs>;
