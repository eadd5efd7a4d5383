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
import { nextTurn } from "../util/turn.js";

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

/** How long after a start claimed hashes are checked. */
const CHECK_AFTER_MS = 1000;

export class ToolGate {
  /** Each tool object's definition hash, computed once (or claimed, then checked). */
  private readonly hashes = new WeakMap<UpstreamTool, string>();
  /** Tools whose hash was claimed and not yet checked. */
  private readonly unchecked = new WeakSet<UpstreamTool>();
  private readonly doubters: (() => void)[] = [];
  private checks: Promise<void> = Promise.resolve();

  constructor(
    readonly lock: LockFile | undefined,
    private readonly options: GateOptions,
  ) {}

  /** A tool's definition hash (what the lock file pins). */
  hashOf(tool: UpstreamTool): string {
    let hash = this.hashes.get(tool);
    if (hash === undefined) this.hashes.set(tool, (hash = definitionHash(tool)));
    return hash;
  }

  /**
   * Hashes recorded with tools earlier (the tool snapshot), taken as theirs
   * at once, so a restart need not hash 10,000 definitions before its first
   * search. Each is checked in the background right after; a record that
   * was wrong (a snapshot edited by hand, or damaged) is replaced by the
   * real hash and `onDoubt` listeners decide again.
   */
  claim(tools: readonly UpstreamTool[], hashes: readonly (string | undefined)[]): void {
    const claimed = tools.flatMap((tool, i) => (typeof hashes[i] === "string" ? [{ tool, hash: hashes[i] }] : []));
    for (const { tool, hash } of claimed) {
      this.hashes.set(tool, hash);
      this.unchecked.add(tool);
    }
    // After the first searches: a start answers them first, then checks.
    this.checks = this.checks.then(() => new Promise((resolve) => setTimeout(resolve, CHECK_AFTER_MS).unref())).then(() => this.check(claimed));
  }

  /** Called when a claimed hash was wrong: what was admitted with it must be decided again. */
  onDoubt(listener: () => void): void {
    this.doubters.push(listener);
  }

  /** Settles when every claim so far has been checked. */
  whenChecked(): Promise<void> {
    return this.checks;
  }

  /** A tool's real hash, computed now if it was only claimed. */
  private checked(tool: UpstreamTool): string {
    if (!this.unchecked.has(tool)) return this.hashOf(tool);
    this.unchecked.delete(tool);
    const real = definitionHash(tool);
    this.hashes.set(tool, real);
    return real;
  }

  private async check(claimed: readonly { tool: UpstreamTool; hash: string }[]): Promise<void> {
    let wrong = 0;
    for (let i = 0; i < claimed.length; i++) {
      // In slices, so searches are answered while 10,000 definitions are hashed.
      if (i % 250 === 249) await nextTurn();
      const { tool, hash } = claimed[i]!;
      if (!this.unchecked.has(tool)) continue;
      if (this.checked(tool) !== hash) wrong++;
    }
    if (wrong) for (const listener of this.doubters) listener();
  }

  admit(namespace: string, tools: readonly UpstreamTool[]): { admitted: UpstreamTool[]; quarantined: Quarantined[] } {
    if (this.options.exempt.has(namespace)) return { admitted: [...tools], quarantined: [] };
    const admitted: UpstreamTool[] = [];
    const quarantined: Quarantined[] = [];
    let pinned = 0;
    for (const tool of tools) {
      const id = `${namespace}:${tool.name}`;
      const pin = this.lock?.get(id);
      // A claimed hash that matches its pin admits the tool until checked; any other is checked first (never pinned, nor reported, unchecked).
      if (pin?.hash === this.hashOf(tool)) {
        admitted.push(tool);
        continue;
      }
      const hash = this.checked(tool);
      if (pin) {
        if (pin.hash === hash) admitted.push(tool);
        else
          quarantined.push({
            id,
            namespace,
            name: tool.name,
            kind: "changed",
            hash,
            reason: `its definition changed since it was pinned (${pin.by === "approved" ? "approved" : "first seen"} ${pin.at.slice(0, 10)})`,
          });
        continue;
      }
      const findings = this.options.scan ? scanTool(tool, this.options) : [];
      if (findings.length) {
        quarantined.push({
          id,
          namespace,
          name: tool.name,
          kind: "flagged",
          hash,
          reason: `its definition looks like tool poisoning: ${describeFindings(findings)}`,
        });
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
