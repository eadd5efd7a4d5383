/** Each caller's share of calls in flight and questions waiting: counted in this process, or across replicas on a shared Redis. */
import type { ResolvedConfig } from "../config/resolved.js";
import { CallerShares } from "../meta/shares.js";
import type { KeyValue } from "../store/kv.js";
import { LocalSlots, SharedSlots } from "../store/slots.js";
import type { Logger } from "../util/log.js";

export function openShares(config: ResolvedConfig, relay: KeyValue, logger: Logger): CallerShares {
  const slots = (kind: string) => (relay.kind === "redis" ? new SharedSlots(relay, kind, (message) => logger.warn(message)) : new LocalSlots());
  return new CallerShares(slots("calls"), slots("questions"), config.serve);
}
