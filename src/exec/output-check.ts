/**
 * Output validation: a tool that declares an `outputSchema` must return
 * `structuredContent` that matches it. A mismatch is reported as problems
 * in the same shape as argument problems, so the agent reads both alike.
 */
import type { ToolCallResult } from "../backends/types.js";
import type { OutputValidation } from "../config/resolved.js";
import type { ToolRecord } from "../model/tool.js";
import { explainErrors, type FieldProblem } from "./explain.js";
import { SchemaValidator } from "./validator.js";

export class OutputChecker {
  private readonly validator = new SchemaValidator();

  constructor(readonly mode: OutputValidation) {}

  /** Problems with the result's structured content; empty when it matches, or nothing is checked. */
  check(record: ToolRecord, result: ToolCallResult): FieldProblem[] {
    if (this.mode === "off" || !record.outputSchema || result.isError) return [];
    const structured = result.structuredContent;
    if (structured === undefined) {
      return [{ field: "structuredContent", expected: "structured content matching the tool's output schema (the tool returned none)" }];
    }
    const check = this.validator.validate(record.outputSchema, structured);
    if (check.ok !== false) return [];
    return explainErrors(check.errors, structured, record.outputSchema).map((p) => ({
      ...p,
      field: p.field.replace(/^args/, "structuredContent"),
      ...brief(p.got),
    }));
  }
}

/** A wrong value as the reply shows it: whole when short, its first characters otherwise (a result can be huge). */
function brief(got: unknown): { got?: unknown } {
  if (got === undefined) return {};
  const text = JSON.stringify(got) ?? String(got);
  return { got: text.length <= GOT_CHARS ? got : `${text.slice(0, GOT_CHARS)}… (${text.length} characters)` };
}

const GOT_CHARS = 120;
