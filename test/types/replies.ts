/**
 * Type-level tests, compiled by `npm run typecheck` (never run): error codes
 * and reply shapes are declared once and checked. Each `@ts-expect-error`
 * marks a mistake that must not compile; were the types loosened (a code to
 * `string`, a reply to `Record<string, unknown>`), the mistake would compile,
 * the directive would be unused, and the typecheck would fail.
 */
import type { OAuthProblemCode } from "../../src/auth/oauth-errors.js";
import { SignInError } from "../../src/auth/loopback.js";
import { BackendError } from "../../src/backends/errors.js";
import type { Body } from "../../src/builtin/backend.js";
import type { Refusal as WorkspaceRefusal } from "../../src/codeintel/workspace.js";
import type { BackendErrorCode, ErrorCode, SignInErrorCode } from "../../src/model/error-codes.js";
import { guidanceFields, hint, recoverable, type Envelope, type EnvelopeKey, type GuidanceFields, type Refusal } from "../../src/disclosure/guidance.js";
import type { RunOutcome } from "../../src/exec/executor.js";
import type { ReadOutcome } from "../../src/exec/resources.js";
import type { DescribeMany, Replies, RunResult, SearchReply } from "../../src/meta/reply.js";
import { StoreError, type StoreErrorCode } from "../../src/store/kv.js";
import { MetatoolsError } from "../../src/util/errors.js";

/** `true` when every `A` is a `B`. */
type Within<A, B> = [A] extends [B] ? true : false;
type Holds<T extends true> = T;

/** Codes declared elsewhere, as literal unions of their own, are codes of the one list. */
export type CodesOfTheList = [
  Holds<Within<StoreErrorCode, ErrorCode>>,
  Holds<Within<OAuthProblemCode, ErrorCode>>,
  Holds<Within<WorkspaceRefusal["code"], ErrorCode>>,
  Holds<Within<BackendErrorCode, ErrorCode>>,
  Holds<Within<SignInErrorCode, ErrorCode>>,
  Holds<Within<Extract<RunOutcome, { kind: "call_failed" }>["code"], BackendErrorCode>>,
  Holds<Within<Extract<ReadOutcome, { kind: "failed" }>["code"], ErrorCode>>,
];

/** The envelope type and `ENVELOPE_KEYS` name the same fields. */
export type EnvelopeIsTheKeys = [Holds<Within<keyof Envelope, EnvelopeKey>>, Holds<Within<EnvelopeKey, keyof Envelope>>];

/** An error code must be one of the list. */
export function errorCodes(): Refusal[] {
  const code: ErrorCode = "unknown_tool";
  // @ts-expect-error: "unknown_tol" is a typo, not an error code.
  const typo: ErrorCode = "unknown_tol";
  // @ts-expect-error: recoverable() takes codes of the list only.
  const refused = recoverable("invalid_arg", "Arguments do not match.");
  // @ts-expect-error: a refusal's code too.
  const literal: Refusal = { ok: false, error: { code: "time_out", message: "no answer" } };
  // @ts-expect-error: a backend fails with a backend failure's kind, not with an argument error.
  void new BackendError("invalid_args", "x");
  // @ts-expect-error: a sign-in fails with a sign-in's code.
  void new SignInError("signin_timout", "x");
  // @ts-expect-error: a fault carries a code of the list too ("config_invalid").
  void new MetatoolsError("confg_invalid", "x");
  // @ts-expect-error: the store fails with a store's code, not with any code of the list.
  void new StoreError("here", "x", { code: "timeout" });
  return [recoverable(code, "No tool."), recoverable(typo, ""), refused, literal];
}

/** What a reply carries is declared: a misspelled field does not compile. */
export function replyFields(): [SearchReply, RunResult, GuidanceFields, DescribeMany] {
  const search: SearchReply = {
    total: 0,
    shown: 0,
    offset: 0,
    mode: "bm25",
    hits: [],
    // @ts-expect-error: "hnit" is not a reply field ("hint" is).
    hnit: "Try another query.",
  };
  const run: RunResult = {
    ok: true,
    tool_id: "files:read",
    duration_ms: 3,
    // @ts-expect-error: "structure" is not a reply field ("structured" is).
    structure: {},
  };
  // @ts-expect-error: "warnnig" is not a guidance field.
  const guidance: GuidanceFields = { warnnig: "Cut to fit." };
  const many: DescribeMany = {
    tools: [],
    // @ts-expect-error: "not_show" is not a reply field ("not_shown" is).
    not_show: ["a:b"],
  };
  return [search, run, guidance, many];
}

/** Replies are read by their types: a failure's code, a search's hits, a run's result. */
export function readingReplies(search: Replies["search_tools"], run: Replies["run_tool"], body: Body): string[] {
  const read: string[] = [];
  if (search.ok === false) read.push(search.error.code);
  else read.push(...search.hits.map((h) => h.id));
  if (run.ok === true) read.push(run.result ?? "");
  else read.push(run.error.code);
  // @ts-expect-error: a search reply has no "result".
  if (search.ok !== false) read.push(search.result);
  // A built-in tool's refusal is told from its data by `ok`.
  if (body.ok === false) read.push(body.error.code);
  return [...read, ...Object.keys(guidanceFields(hint("x")))];
}
