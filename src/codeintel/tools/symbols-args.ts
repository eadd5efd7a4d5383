/** code:symbols' arguments: shared by the tool and the two halves of its reply (overview, matches). */
import type { PageInput } from "../../disclosure/guard.js";
import type { SymbolKind } from "../languages.js";

export interface SymbolsArgs extends PageInput {
  path?: string;
  pattern?: string;
  name_path?: string;
  kind?: SymbolKind;
  include_body?: boolean;
  glob?: string;
}
