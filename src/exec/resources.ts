/**
 * Reading a resource a backend linked to: the shared name (resource-links.ts)
 * is resolved for the caller it was handed to, the backend that gave it is
 * asked (`resources/read`, under the call timeout), and the contents come
 * back under shared names again. Used by the server's `resources/read` and
 * by the built-in `metatools:read_resource` tool.
 */
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { BackendError, withoutTrace } from "../backends/errors.js";
import type { ErrorCode } from "../model/error-codes.js";
import type { BackendManager } from "../backends/manager.js";
import type { LinkTarget, ResourceLinks } from "../disclosure/resource-links.js";
import { errorMessage } from "../util/errors.js";
import type { BackendOfferings, Sees } from "./offerings.js";

export type ReadOutcome =
  | { kind: "ok"; target: LinkTarget; result: ReadResourceResult }
  /** Not a link this caller was given, or one that expired. */
  | { kind: "unknown"; message: string }
  | { kind: "failed"; code: ErrorCode; message: string };

export class ResourceReader {
  constructor(
    readonly links: ResourceLinks,
    private readonly backends: BackendManager,
    private readonly timeoutMs: number,
    /** Backends' listed resources, which anyone who sees their namespace may read. */
    private readonly offerings?: BackendOfferings,
  ) {}

  /** `sees`: the namespaces the caller's profile shows; with it, a resource a backend lists can be read too, not only a link handed to this caller. */
  async read(shared: string, principal: string, signal?: AbortSignal, sees?: Sees): Promise<ReadOutcome> {
    let target: LinkTarget | undefined;
    try {
      target = await this.links.resolve(principal, shared);
    } catch (error) {
      return { kind: "failed", code: "store_unavailable", message: `Could not look up ${shared}: ${errorMessage(error)}.` };
    }
    if (!target && sees) target = await this.offerings?.listed(shared, sees, signal);
    if (!target) {
      return {
        kind: "unknown",
        message: `${shared} is neither a resource a backend lists (resources/list) nor a link this caller was given, or it expired (links live as long as output handles). Run the call that returned it again for a fresh one.`,
      };
    }
    const status = this.backends.state(target.namespace)?.status;
    if (status === "connecting" || status === "reconnecting") await this.backends.whenReady(target.namespace, signal);
    const backend = this.backends.backend(target.namespace);
    if (!backend?.readResource || this.backends.state(target.namespace)?.status !== "ready") {
      return {
        kind: "failed",
        code: "backend_unavailable",
        message: `Backend "${target.namespace}" is ${this.backends.state(target.namespace)?.status ?? "not configured"}; its resources cannot be read now.`,
      };
    }
    try {
      const result = await backend.readResource(target.uri, { signal, timeoutMs: this.timeoutMs });
      // Contents name themselves: under shared names too, so what they point to can be read the same way.
      const contents = await Promise.all(
        result.contents.map(async (c) => ({ ...c, uri: await this.links.share(principal, { namespace: target.namespace, uri: c.uri }) })),
      );
      return { kind: "ok", target, result: { ...result, contents } };
    } catch (error) {
      // The agent is shown the message, never a stack trace from the backend.
      return { kind: "failed", code: error instanceof BackendError ? error.code : "upstream_error", message: withoutTrace(errorMessage(error)).message };
    }
  }
}
