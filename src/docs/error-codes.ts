/**
 * The error-code tables of docs/responses.md, made from `ERROR_CODES`
 * (src/model/error-codes.ts): one table per group, between markers,
 * so the page lists every code the code can give and no other. `npm run
 * generate` writes them; a test fails when they are stale.
 */
import { ERROR_CODES, ERROR_GROUPS, type ErrorCodeDoc, type ErrorGroup } from "../model/error-codes.js";

const BEGIN = "<!-- error-codes:begin -->";
const END = "<!-- error-codes:end -->";

export function responsesWithErrorCodes(doc: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/responses.md needs the markers ${BEGIN} and ${END} around its tables of error codes`);
  return `${doc.slice(0, start + BEGIN.length)}\n${errorCodeTables()}\n${doc.slice(end)}`;
}

/** A heading, the group's note and a table of its codes, for each group in order. */
export function errorCodeTables(): string {
  const codes: readonly ErrorCodeDoc[] = ERROR_CODES;
  return (Object.entries(ERROR_GROUPS) as [ErrorGroup, { title: string; note?: string }][])
    .map(([group, { title, note }]) => {
      const rows = codes.filter((c) => c.group === group).map((c) => `| \`${c.code}\` | ${cell(c.meaning)} | ${c.guidance ? cell(c.guidance) : "—"} |`);
      return [`### ${title}`, "", ...(note ? [note, ""] : []), "| code | when | guidance |", "| --- | --- | --- |", ...rows].join("\n");
    })
    .join("\n\n");
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|");
}
