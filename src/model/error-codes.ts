/**
 * Every error code metatools gives, declared once, grouped by where it
 * arises. A reply's `error.code` (recoverable, `ok: false`), a backend
 * failure's kind (`BackendError`), an executor outcome's code and a
 * sign-in's fault are all `ErrorCode`s, so a code misspelt anywhere fails
 * the typecheck; the table of docs/responses.md is generated from this list
 * (src/docs/error-codes.ts). Adding a code is one entry here.
 *
 * `meaning` says when the code is given; `guidance`, what the reply offers
 * to get past it (its `hint`/`warning`, `next`, or fields of its own).
 */

/** Where codes arise, in the order the docs list them; `note` says what the docs say of the group as a whole. */
export const ERROR_GROUPS = {
  arguments: { title: "Meta-tool arguments" },
  lookup: { title: "Tool lookup" },
  approvals: {
    title: "Approvals",
    note: "The caller's profile decides before the backend hears of the call ([security.md](security.md#who-may-run-what-profiles-and-approvals)).",
  },
  backend: { title: "Backends and transport" },
  execution: { title: "Execution" },
  outputs: { title: "The budget, output handles and links" },
  programs: {
    title: "Programs",
    note: "`metatools:run_program` ([scripts.md](scripts.md)); a call a program makes fails with run_tool's own codes, thrown into the program.",
  },
  reading: { title: "Reading part of an output or a file", note: "`metatools:read_output`, `code:read_file`, `code:grep`." },
  code: { title: "The code tools", note: "Refusals of the built-in `code:` tools, given as run_tool's own ([code.md](code.md))." },
  auth: {
    title: "Sign-in",
    note: "Not replies: `metatools auth login` stops with one of these (exit code 1) and says why on stderr ([oauth.md](oauth.md)); an agent is told `needs_login`.",
  },
  faults: {
    title: "Faults",
    note: "Not replies: thrown where metatools cannot go on, and said on stderr by the command that stopped (exit code 2 for `config_invalid`, else 1), or in a log line by a running server.",
  },
} as const satisfies Record<string, { title: string; note?: string }>;

export type ErrorGroup = keyof typeof ERROR_GROUPS;

export interface ErrorCodeDoc {
  code: string;
  group: ErrorGroup;
  /** When it is given: one line. */
  meaning: string;
  /** What the reply offers to get past it. */
  guidance?: string;
}

export const ERROR_CODES = [
  {
    code: "invalid_args",
    group: "arguments",
    meaning: "arguments fail the meta-tool's or the tool's input schema; the backend is not called",
    guidance:
      "`problems: [{field, expected, got}]` and a corrected call in `next` that validates. A required value only the caller knows (no default, example or allowed value in the schema, nothing sent under another name) is asked for in the hint, with no `next`: no placeholder is ever sent. An unknown field whose value fits the one missing required field is moved there, value and all; `args` sent as a JSON string are read as the object they spell",
  },
  {
    code: "missing_tool_id",
    group: "arguments",
    meaning: "describe_tool got neither `tool_id` nor `tool_ids`",
    guidance: "a `search_tools` call that finds ids",
  },
  { code: "too_many_ids", group: "arguments", meaning: "describe_tool got more than five ids", guidance: "the first five, as a corrected call" },
  {
    code: "unknown_tool",
    group: "lookup",
    meaning: "the id does not exist (or the caller's profile does not show it)",
    guidance:
      "`did_you_mean` (same name in another namespace, typos, shared words) and a ready `next` call with the best one (the same arguments when they fit it, else its `describe_tool`). A tool of a backend still starting is waited for; one whose backend is down, needs a sign-in or a config fix says so (`backend_unavailable`, `needs_login`, `needs_config`) rather than that it does not exist, and suggests no other tools",
  },
  { code: "not_runnable", group: "lookup", meaning: "the tool comes from a catalog-only list", guidance: "its docs" },
  {
    code: "quarantined",
    group: "lookup",
    meaning: "the tool's definition changed since it was pinned, or the scanner flags it: it waits for a person's review",
    guidance: "a `warning` and `quarantine: {kind, waiting_for, review, approve}` with the commands a person runs; nothing of the held definition",
  },
  {
    code: "denied",
    group: "approvals",
    meaning: "the caller's profile denies the tool; nothing was sent to it",
    guidance: "a `warning`: only an operator can change it",
  },
  {
    code: "approval_required",
    group: "approvals",
    meaning: "the profile asks a person first, and the client cannot ask (no MCP elicitation); nothing was sent",
    guidance: "a `warning` with how an operator allows it without asking",
  },
  {
    code: "declined",
    group: "approvals",
    meaning: "the person asked declined or cancelled, or the question got no answer; nothing was sent",
    guidance: "a `warning` not to run it again unless the user asks",
  },
  {
    code: "too_many_questions",
    group: "approvals",
    meaning:
      "the caller has its share of questions waiting for an answer (`metatools.serve.questionsPerCaller`: approvals and backends' questions together); this one was not asked, and nothing was sent to the tool",
    guidance: "a `warning` to answer or cancel the waiting ones first",
  },
  {
    code: "backend_unavailable",
    group: "backend",
    meaning: "the backend is connecting, reconnecting or failed; answered at once when its last start failed (no wait on its next attempt)",
    guidance:
      "a `hint` with when metatools tries it again and the same call as `next`; or, when only a person can fix it (a program not on PATH, not executable), a `warning` with the fix and no `next`",
  },
  {
    code: "needs_config",
    group: "backend",
    meaning: "the backend's config entry cannot be used as written (a `${VAR}` not set, a bad field): it is never started",
    guidance: "a `warning` with what a person must change; no `next`",
  },
  {
    code: "needs_login",
    group: "backend",
    meaning: "the backend needs a person to sign in (`metatools auth login`), or a broader sign-in for this call",
    guidance: "a `warning` with the command to run in a terminal; the running server picks the sign-in up",
  },
  {
    code: "connect_failed",
    group: "backend",
    meaning: "a backend could not be started or reached; agents are told `backend_unavailable`, `doctor` and `unavailable` say why",
  },
  {
    code: "timeout",
    group: "backend",
    meaning: "no answer within the timeout",
    guidance: "the same call with twice the `timeout_ms` (a built-in tool: first a narrower call)",
  },
  {
    code: "busy",
    group: "backend",
    meaning:
      "the backend asks questions (elicitation, sampling) during another caller's call, and this call waited its longest for its turn (the default call timeout, whatever `timeout_ms` says) without starting",
    guidance: "the same call, unchanged, a little later",
  },
  { code: "cancelled", group: "backend", meaning: "the call was cancelled before the backend answered", guidance: "the tool's docs" },
  { code: "upstream_error", group: "backend", meaning: "the backend failed the request (a JSON-RPC error)", guidance: "the tool's docs" },
  { code: "backend_down", group: "backend", meaning: "the backend closed the connection, or is not connected, during the call", guidance: "the tool's docs" },
  {
    code: "tool_error",
    group: "execution",
    meaning: "the tool itself reported an error (`isError`): the reply carries its text",
    guidance: "its docs; or, when the error names what a sibling tool with no arguments lists, a `next` that runs it",
  },
  {
    code: "too_many_calls",
    group: "execution",
    meaning:
      "the caller has its share of run_tool calls running (`metatools.serve.callsPerCaller`, tasks included, under every profile and replica); refused before anything ran",
    guidance: "a `hint` to wait for one to finish or cancel a task, then run the same call",
  },
  {
    code: "tool_failed",
    group: "execution",
    meaning: "a built-in tool failed unexpectedly (a bug in metatools, said as that call's failure)",
    guidance: "the tool's docs",
  },
  {
    code: "invalid_output",
    group: "execution",
    meaning: "strict output validation: the result does not match the tool's output schema",
    guidance: "`problems`, and how to switch to warnings",
  },
  { code: "over_budget", group: "outputs", meaning: "a last-line check: a response would exceed the budget", guidance: "ask for less" },
  { code: "too_large", group: "outputs", meaning: "a tool's docs do not fit the budget even abridged", guidance: "its `summary` level" },
  {
    code: "unknown_handle",
    group: "outputs",
    meaning: "a `read_output` handle expired, was never issued by this store, or is another caller's",
    guidance: "rerun the original call",
  },
  {
    code: "evicted_handle",
    group: "outputs",
    meaning: "a `read_output` handle of this caller's was evicted for room by its later outputs (or dropped by the store itself)",
    guidance: "rerun the original call; read handles before making many more large outputs",
  },
  {
    code: "store_full",
    group: "outputs",
    meaning: "a result needed a handle, and the output store is at its total bound (`metatools.outputs.totalBytes`) or Redis at its `maxmemory`",
    guidance: "narrow the call, or retry as outputs expire",
  },
  {
    code: "store_unavailable",
    group: "outputs",
    meaning: "the Redis or SQLite store cannot be reached, and a result (or a handle, a link) needed it",
    guidance: "ask for less, or retry",
  },
  {
    code: "unknown_resource",
    group: "outputs",
    meaning: "a resource link never handed out, expired, or handed to another caller (MCP error -32002 from `resources/read`)",
    guidance: "rerun the call that returned the link",
  },
  {
    code: "program_error",
    group: "programs",
    meaning: "the program did not parse, threw, or waits on nothing; nothing more of it runs",
    guidance: "the line and column, its `trace` of the calls made so far and its `logs`",
  },
  {
    code: "program_limit",
    group: "programs",
    meaning: "the program passed a limit of `metatools.scripts` (CPU time, memory, calls, the size of what it returns) or was cancelled, and was stopped",
    guidance: "which `limit` and its `setting`, the `trace` and `logs`",
  },
  {
    code: "result_too_large",
    group: "programs",
    meaning: "a call's result is larger than a program may read of one call (`metatools.scripts.resultBytes`); thrown into the program",
    guidance: "ask the tool for less",
  },
  {
    code: "not_json",
    group: "reading",
    meaning: "a `json_path` on an output or file that is not JSON",
    guidance: "the same part by line range or grep",
  },
  { code: "json_path_miss", group: "reading", meaning: "the `json_path` matches nothing", guidance: "what is there, and a path that matches" },
  { code: "invalid_regex", group: "reading", meaning: "the pattern is not a usable regular expression (RE2 syntax)", guidance: "the same search, literally" },
  { code: "invalid_range", group: "reading", meaning: "`end_line` before `start_line`, or `start_line` past the end", guidance: "a range that reads" },
  { code: "path_not_found", group: "code", meaning: "the path does not exist in the project", guidance: "the nearest paths, the best as `next`" },
  { code: "outside_root", group: "code", meaning: "the path, or a symlink on it, leads outside the project root", guidance: "the project's files" },
  {
    code: "secret_path",
    group: "code",
    meaning: "the path may hold secrets (credentials, keys, `.env`, `.git` internals)",
    guidance: "a `warning`, and the project's files",
  },
  { code: "not_a_file", group: "code", meaning: "a file tool was given a folder", guidance: "`code:tree` on it" },
  { code: "not_a_dir", group: "code", meaning: "a folder tool was given a file", guidance: "the project's files" },
  { code: "special_file", group: "code", meaning: "not a regular file (a socket, a device, a FIFO)", guidance: "the project's files" },
  { code: "hard_link", group: "code", meaning: "a file with more than one name (`metatools.code.allowHardLinks` allows it)" },
  { code: "binary_file", group: "code", meaning: "`code:read_file` reads text only" },
  { code: "unreadable", group: "code", meaning: "the file changed or went away while being opened" },
  { code: "invalid_glob", group: "code", meaning: "the glob cannot be used", guidance: "the call without it" },
  { code: "not_an_identifier", group: "code", meaning: "`code:references` takes one identifier, not `a.b`", guidance: "its last name" },
  { code: "unsupported_language", group: "code", meaning: "`code:symbols` does not parse the file's language", guidance: "`code:read_file` on it" },
  {
    code: "signin_timeout",
    group: "auth",
    meaning: "no answer from the browser within the sign-in's time (a registration the page may have refused is dropped, so the next sign-in registers anew)",
  },
  { code: "signin_cancelled", group: "auth", meaning: "the sign-in was stopped while waiting for the browser" },
  { code: "signin_refused", group: "auth", meaning: "the authorization server refused the sign-in, or the browser came back without a code" },
  { code: "signin_failed", group: "auth", meaning: "anything else the sign-in could not get past (an unexpected answer, no tokens)" },
  { code: "callback_port", group: "auth", meaning: "the sign-in's callback cannot listen on its port on 127.0.0.1 (`oauth.callbackPort` taken)" },
  { code: "oauth_answer_too_large", group: "auth", meaning: "an OAuth answer over the size bound" },
  { code: "oauth_unsafe_url", group: "auth", meaning: "an endpoint named with a scheme other than http(s)" },
  { code: "oauth_resource_mismatch", group: "auth", meaning: "protected-resource metadata names another resource than the server asked" },
  {
    code: "oauth_issuer_mismatch",
    group: "auth",
    meaning:
      "the browser came back from another authorization server than the one the sign-in was sent to: its `iss` (RFC 9207) names another issuer, or is missing where the server promises it; the code was not used",
  },
  { code: "oauth_bad_answer", group: "auth", meaning: "an answer that is not JSON, or not the JSON OAuth expects" },
  { code: "oauth_refused", group: "auth", meaning: "the authorization server refused, with an OAuth error code" },
  { code: "oauth_unreachable", group: "auth", meaning: "no answer: the network, or the deadline" },
  { code: "config_invalid", group: "faults", meaning: "a config or catalog file that cannot be used as written; the message names the file and the field" },
  { code: "no_config", group: "faults", meaning: "a command that needs a config file (`auth`) found none" },
  { code: "listen_failed", group: "faults", meaning: "`serve --http` cannot listen on the address and port asked (taken, or not this machine's)" },
  { code: "auth_file", group: "faults", meaning: "the token file of sign-ins cannot be read, parsed, locked or written; the message says which" },
  { code: "embedder_unavailable", group: "faults", meaning: "the embedder asked for cannot load (a missing table or model, an unreadable vectors file)" },
  { code: "vectors_invalid", group: "faults", meaning: "`metatools vectors import` was given a file that is not word vectors it can read" },
  { code: "learned_file_invalid", group: "faults", meaning: "`metatools learn --import` was given a file `learn --export` did not make" },
  { code: "dataset_invalid", group: "faults", meaning: "`eval` or `bench` was given a dataset folder without readable tools.jsonl and queries.jsonl" },
  { code: "mode_unavailable", group: "faults", meaning: "`eval` was asked for a ranking (semantic, hybrid) the config or the embedder cannot give" },
  { code: "learning_off", group: "faults", meaning: "`eval --replay` needs search learning, which the config turns off" },
  { code: "invalid_option", group: "faults", meaning: "an option outside its range (`--replay-noise`)" },
  {
    code: "answer_too_large",
    group: "faults",
    meaning: "a backend's answer went past the size bound; the connection is dropped and the call fails as `upstream_error`, saying why",
  },
  {
    code: "event_too_large",
    group: "faults",
    meaning: "an event of a backend's event stream went past its bound; only the stream is dropped (and opened again)",
  },
] as const satisfies readonly ErrorCodeDoc[];

/** An error code: a string the code branches on, so a typo fails the typecheck. */
export type ErrorCode = (typeof ERROR_CODES)[number]["code"];

/** The codes of one group. */
export type ErrorCodeIn<G extends ErrorGroup> = Extract<(typeof ERROR_CODES)[number], { group: G }>["code"];

/** What a backend call fails with (`BackendError`): the backend's own failures, and the built-in and catalog-only backends'. */
export type BackendErrorCode = Exclude<ErrorCodeIn<"backend">, "backend_unavailable"> | "not_runnable" | "tool_failed";

/** What `metatools auth login` fails with. */
export type SignInErrorCode = ErrorCodeIn<"auth">;

/** What an OAuth exchange fails with (`OAuthProblem`). */
export type OAuthProblemCode = Extract<SignInErrorCode, `oauth_${string}` | "signin_failed">;

/** What the shared store fails with (`StoreError`). */
export type StoreErrorCode = Extract<ErrorCode, `store_${string}`>;

/** Why the code tools refuse a path (`Workspace.resolve`). */
export type PathRefusalCode = Extract<
  ErrorCodeIn<"code">,
  "outside_root" | "secret_path" | "path_not_found" | "not_a_file" | "not_a_dir" | "special_file" | "hard_link"
>;
