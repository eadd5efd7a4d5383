/**
 * A session whose only backends are the built-in ones, over a given project
 * root, with helpers to run a code tool and to follow the `next` calls its
 * responses suggest.
 */
import { expect } from "vitest";
import type { MetatoolsSection } from "../../src/config/schema.js";
import { openSession, type Session } from "./harness.js";

export const BUDGET = 10_000;

export interface CodeSession extends Session {
  /** run_tool on `code:<tool>`; returns the whole reply, checked against the budget and for isError. */
  code(tool: string, args: Record<string, unknown>): Promise<Record<string, any>>;
  /** Executes a `next` call exactly as given; returns the reply. */
  follow(next: { tool: string; arguments: Record<string, unknown> }): Promise<Record<string, any>>;
}

export async function openCodeSession(root: string, code: NonNullable<MetatoolsSection["code"]> = {}): Promise<CodeSession> {
  const session = await openSession({ metatools: { code: { root, ...code } } });
  const checked = async (name: string, args: Record<string, unknown>) => {
    const { text, isError } = await session.raw(name, args);
    expect(isError, text).toBe(false);
    expect(Buffer.byteLength(text), `${name} ${JSON.stringify(args)} reply is over the budget`).toBeLessThanOrEqual(BUDGET);
    return JSON.parse(text) as Record<string, any>;
  };
  return {
    ...session,
    code: (tool, args) => checked("run_tool", { tool_id: `code:${tool}`, args }),
    follow: (next) => checked(next.tool, next.arguments),
  };
}

/** The `next` call of a reply: always at its top level (none is ever nested in `structured`, which this checks). */
export function nextCalls(reply: Record<string, any>): { tool: string; arguments: Record<string, unknown> }[] {
  expect(reply.structured?.next ?? reply.structured?.overflow?.next, "a next call nested in structured").toBeUndefined();
  return [reply.next].filter(Boolean);
}
