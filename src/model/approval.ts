/**
 * How a call's approval went (src/meta/approval.ts decides it, the audit
 * trail records it): `not_needed` when the caller's profile lets the call
 * run unasked, `accepted` / `remembered` when a person said yes (now, or
 * earlier in the session), `declined` / `cancelled` when they did not,
 * `denied` by the profile, `unasked` when the client could not be asked.
 */
export const APPROVALS = ["not_needed", "accepted", "remembered", "declined", "cancelled", "denied", "unasked"] as const;

export type ApprovalOutcome = (typeof APPROVALS)[number];
