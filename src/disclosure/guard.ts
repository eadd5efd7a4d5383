/**
 * The shared output guard: every tool that can return a variable number of
 * items pages them here, so all of them overflow the same way.
 *
 * - Exploring (default): the first `cap` items (or an explicit `limit`),
 *   compact, no bodies.
 * - Focused (`detail_level: "full"`): pages of `limit` (default 50) from
 *   `offset`, full detail, `next_offset` while more remain.
 *
 * Overflow is `{shown, total, hint, next, by_file?, by_file_overflow?,
 * next_offset?}`: `total` is exact (callers count the full set before
 * capping), `by_file` is built from the full set, and the hint lists
 * concrete calls in the order filter → scope → paginate, the first of which
 * is also `next`.
 */
import { fitItems } from "./budget.js";
import { formatCall, type NextCall } from "./guidance.js";

export const FOCUSED_PAGE = 50;
export const DISTRIBUTION_CAP = 15;

export interface PageInput {
  detail_level?: "exploring" | "full";
  offset?: number;
  limit?: number;
}

/** A way to narrow a result, with the exact call that does it. */
export interface Narrowing {
  /** "filter by kind", "scope to file src/app.ts (42 matches)", "next page". */
  label: string;
  call: NextCall;
}

export interface Overflow {
  shown: number;
  total: number;
  hint: string;
  next?: NextCall;
  by_file?: FileCount[];
  by_file_overflow?: number;
  next_offset?: number;
}

export interface FileCount {
  file: string;
  count: number;
}

export interface Distribution {
  entries: { key: string; count: number }[];
  /** How many keys were left out by the cap. */
  omitted: number;
}

export class OutputGuard {
  private constructor(
    readonly focused: boolean,
    readonly offset: number,
    private readonly limit: number | undefined,
  ) {}

  static fromInput(input: PageInput): OutputGuard {
    return new OutputGuard(input.detail_level === "full", input.offset ?? 0, input.limit);
  }

  /** Bodies and full detail only in focused mode. */
  get includeBodies(): boolean {
    return this.focused;
  }

  /** The page size: an explicit `limit`, else the focused page, else the exploring cap. */
  pageSize(cap: number): number {
    return this.limit ?? (this.focused ? FOCUSED_PAGE : cap);
  }

  /** The items of this page. `items` must be the full, ordered result set. */
  page<T>(items: readonly T[], cap: number): T[] {
    return items.slice(this.offset, this.offset + this.pageSize(cap));
  }

  /**
   * Builds a paged response that fits `budget` bytes: `render` draws the body
   * for the items shown, and an overflow block is added whenever items
   * remain past the page (or were pushed out by the byte budget).
   */
  respond<T>(request: {
    items: readonly T[];
    cap: number;
    budget: number;
    render: (shown: readonly T[]) => Record<string, unknown>;
    /**
     * Narrowings other than paging, most useful first (filters, then scopes).
     * Called once, and only on overflow, with `by_file` over the full set when `fileOf` is given.
     */
    narrowings: (byFile: Distribution | undefined) => Narrowing[];
    /** The call for the page after `shown` items from `offset`. */
    pageCall: (nextOffset: number, pageSize: number) => NextCall;
    /** Where each item lives, for `by_file`; omit for single-file results. */
    fileOf?: (item: T) => string;
  }): Record<string, unknown> {
    const { items, cap, budget, render } = request;
    const total = items.length;
    const size = this.pageSize(cap);
    const page = this.page(items, cap);
    // Both depend on the full set only: computed once, not per budget-fitting attempt, and only on overflow.
    let byFile: Distribution | undefined;
    let narrowings: Narrowing[] | undefined;
    const build = (shown: readonly T[]): Record<string, unknown> => {
      const body = render(shown);
      const end = this.offset + shown.length;
      if (end >= total) return { ...body, total };
      if (!narrowings) {
        byFile = request.fileOf ? distribution(items.map(request.fileOf)) : undefined;
        narrowings = request.narrowings(byFile);
      }
      const calls = [...narrowings, { label: "next page", call: request.pageCall(end, size) }];
      const overflow: Overflow = {
        shown: shown.length,
        total,
        hint: overflowHint(this.offset, shown.length, total, calls, shown.length < page.length),
        next: calls[0]!.call,
        ...(byFile ? byFileFields(byFile) : {}),
        ...(this.focused ? { next_offset: end } : {}),
      };
      return { ...body, total, overflow };
    };
    return fitItems(page, budget, build).value;
  }
}

/** Counts per key over the full set, most first (ties by name), capped at 15 with the rest counted. */
export function distribution(keys: Iterable<string>, cap = DISTRIBUTION_CAP): Distribution {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([key, count]) => ({ key, count }));
  return capDistribution(sorted, cap);
}

/** The first `cap` entries of an already-sorted distribution, and how many were left out. */
export function capDistribution<T>(entries: readonly T[], cap = DISTRIBUTION_CAP): { entries: T[]; omitted: number } {
  return { entries: entries.slice(0, cap), omitted: Math.max(0, entries.length - cap) };
}

export function byFileFields(d: Distribution): Pick<Overflow, "by_file" | "by_file_overflow"> {
  return {
    by_file: d.entries.map((e) => ({ file: e.key, count: e.count })),
    ...(d.omitted ? { by_file_overflow: d.omitted } : {}),
  };
}

function overflowHint(offset: number, shown: number, total: number, calls: Narrowing[], squeezed: boolean): string {
  const range = shown ? `${offset + 1}-${offset + shown}` : "none";
  const why = squeezed ? " (the response byte budget cut the page short)" : "";
  return `Showing ${range} of ${total}${why}. To narrow down:\n${calls.map((c) => `• ${c.label}: ${formatCall(c.call)}`).join("\n")}`;
}
