/**
 * Resource links a backend hands out, passed on under names of metatools'
 * own: `metatools://<namespace>/<the backend's uri>`, so two backends' URIs
 * never collide and a read goes to the backend that gave the link. A link
 * can be read only by the caller it was handed to, while it lives (as an
 * output handle): it is kept in the shared store under that caller, so
 * replicas that share a store read each other's links.
 */
import { createHash } from "node:crypto";
import type { KeyValue } from "../store/kv.js";

export const SHARED_SCHEME = "metatools://";
export const READ_RESOURCE_ID = "metatools:read_resource";

export interface LinkTarget {
  namespace: string;
  /** The URI as the backend wrote it. */
  uri: string;
}

export class ResourceLinks {
  constructor(
    private readonly store: KeyValue,
    private readonly ttlMs: number,
  ) {}

  /** Hands `uri` of `namespace` to `principal`: the name it is read by. */
  async share(principal: string, target: LinkTarget): Promise<string> {
    const shared = sharedUri(target);
    await this.store.set(keyOf(principal, shared), target, this.ttlMs);
    return shared;
  }

  /** What a shared name stands for, when it was handed to `principal` and still lives. */
  async resolve(principal: string, shared: string): Promise<LinkTarget | undefined> {
    if (!shared.startsWith(SHARED_SCHEME)) return undefined;
    const target = await this.store.get<LinkTarget>(keyOf(principal, shared));
    return target && sharedUri(target) === shared ? target : undefined;
  }
}

export function sharedUri({ namespace, uri }: LinkTarget): string {
  return `${SHARED_SCHEME}${encodeURIComponent(namespace)}/${uri}`;
}

function keyOf(principal: string, shared: string): string {
  return `link/${principal}/${createHash("sha256").update(shared).digest("base64url")}`;
}
