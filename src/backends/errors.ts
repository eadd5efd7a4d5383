import { MetatoolsError } from "../util/errors.js";

/**
 * A backend failure. Codes: `connect_failed`, `backend_down`, `timeout`,
 * `cancelled`, `upstream_error` (the server answered with a JSON-RPC error),
 * `not_runnable` (catalog-only tool), `needs_login` (a person must
 * sign in with `metatools auth login`; the message names the command).
 */
export class BackendError extends MetatoolsError {
  constructor(
    code: string,
    message: string,
    readonly details: {
      upstreamCode?: number;
      /** On a timeout: the same call's arguments narrowed to less work, when the tool can say how. */
      narrowed?: Record<string, unknown>;
    } = {},
  ) {
    super(code, message);
    this.name = "BackendError";
  }
}
