/**
 * Decides which tools an agent may see: a tool whose definition matches its
 * pin in the lock file is admitted; one whose definition changed since, or
 * one never pinned that the scanner flags, is quarantined with the reason;
 * one never pinned and clean is admitted and pinned (trust on first use).
 * metatools' own namespaces are exempt.
 */
import type { UpstreamTool } from "../model/tool.js";
import { definitionHash, type LockFile } from "./lock.js";
import { describeFindings, scanTool } from "./scan.js";

export interface Quarantined {
  id: string;
  namespace: string;
  name: string;
  kind: "flagged" | "changed";
  reason: string;
  hash: string;
}

export interface GateOptions {
  scan: boolean;
  maxDescriptionChars: number;
  /** Namespaces metatools serves itself (code, metatools): trusted. */
  exempt: ReadonlySet<string>;
}

export class ToolGate {
  constructor(
    readonly lock: LockFile | undefined,
    private readonly options: GateOptions,
  ) {}

  admit(namespace: string, tools: readonly UpstreamTool[]): { admitted: UpstreamTool[]; quarantined: Quarantined[] } {
    if (this.options.exempt.has(namespace)) return { admitted: [...tools], quarantined: [] };
    const admitted: UpstreamTool[] = [];
    const quarantined: Quarantined[] = [];
    let pinned = 0;
    for (const tool of tools) {
      const id = `${namespace}:${tool.name}`;
      const hash = definitionHash(tool);
      const pin = this.lock?.get(id);
      if (pin) {
        if (pin.hash === hash) admitted.push(tool);
        else quarantined.push({ id, namespace, name: tool.name, kind: "changed", hash, reason: `its definition changed since it was pinned (${pin.by === "approved" ? "approved" : "first seen"} ${pin.at.slice(0, 10)})` });
        continue;
      }
      const findings = this.options.scan ? scanTool(tool, this.options) : [];
      if (findings.length) {
        quarantined.push({ id, namespace, name: tool.name, kind: "flagged", hash, reason: `its definition looks like tool poisoning: ${describeFindings(findings)}` });
        continue;
      }
      admitted.push(tool);
      this.lock?.pin(id, hash, "first-use");
      pinned++;
    }
    if (pinned) this.lock?.save();
    return { admitted, quarantined };
  }

  /** Pins quarantined tools' current definitions: a person has read them and trusts them. */
  approve(tools: readonly Quarantined[]): void {
    if (!this.lock) throw new Error("no lock file: approvals need a config file (the lock sits beside it) and metatools.security.lockFile not false");
    for (const tool of tools) this.lock.pin(tool.id, tool.hash, "approved");
    this.lock.save();
  }
}
