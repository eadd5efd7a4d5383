/**
 * One table shape for every report a person reads: the CLI prints it as
 * aligned text, the benchmark report writes it as Markdown. Columns holding
 * numbers are right-aligned.
 */

export interface Table {
  head: readonly string[];
  rows: readonly (readonly string[])[];
  /** Per column; default: right for columns whose cells all read as numbers, else left. */
  align?: readonly ("left" | "right")[];
  /** A line under the table saying how to read it. */
  note?: string;
}

/** Aligned plain text; `style` may colour a cell after padding (so colour codes never skew widths). */
export function textTable(input: Table, style?: (cell: string, row: number, column: number) => string): string {
  const table = oneLineCells(input);
  const align = alignments(table);
  const widths = table.head.map((h, c) => Math.max(width(h), ...table.rows.map((r) => width(r[c] ?? ""))));
  const line = (cells: readonly string[], row: number) =>
    cells
      .map((cell, c) => {
        const pad = " ".repeat(Math.max(0, widths[c]! - width(cell)));
        const padded = align[c] === "right" ? pad + cell : c === cells.length - 1 ? cell : cell + pad;
        return style && row >= 0 ? style(padded, row, c) : padded;
      })
      .join("  ")
      .trimEnd();
  const lines = [line(table.head, -1), ...table.rows.map((r, i) => line(r, i))];
  if (table.note) lines.push(`(${table.note})`);
  return lines.join("\n");
}

/** A GitHub-flavoured Markdown table, pipes in cells escaped. */
export function markdownTable(input: Table): string {
  const table = oneLineCells(input);
  const align = alignments(table);
  const cells = (row: readonly string[]) => `| ${row.map((c) => c.replace(/\|/g, "\\|")).join(" | ")} |`;
  const lines = [cells(table.head), `|${align.map((a) => (a === "right" ? " ---: " : " --- ")).join("|")}|`, ...table.rows.map(cells)];
  if (table.note) lines.push("", `<sub>${table.note}</sub>`);
  return lines.join("\n");
}

/** A cell is one line: line breaks and runs of spaces inside it become one space. */
function oneLineCells(table: Table): Table {
  return { ...table, rows: table.rows.map((r) => r.map((cell) => cell.replace(/\s*\n\s*|\s{2,}/g, " "))) };
}

function alignments(table: Table): ("left" | "right")[] {
  return table.head.map(
    (_, c) =>
      table.align?.[c] ?? (table.rows.length && table.rows.every((r) => /^[-+≤~]?[\d.,]+[%×]?( [→/] [\d.,]+)?$|^$/.test(r[c] ?? "")) ? "right" : "left"),
  );
}

/** Display width: code points, not UTF-16 units (✓, →, ≤ count as one). */
function width(s: string): number {
  return [...s].length;
}
