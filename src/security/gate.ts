/**
 * Decides which tools an agent may see: a tool whose definition and terms
 * (terms.ts: server name, read-only and destructive as applied, catalog
 * entries, search hint) match its pin in the lock file is admitted; one
 * whose definition or terms changed since, or one never pinned that the
 * scanner flags, is quarantined with the reason; one never pinned and clean
 * is admitted and pinned (trust on first use). Pins are by the id a tool is
 * served as, so a new tool that takes a served id another tool had meets
 * that tool's pin. Tools read from the snapshot file go through the same
 * gate, checked against the hashes recorded beside them first, and are
 * never pinned. metatools' own namespaces are exempt.
 */
import type { UpstreamTool } from "../model/tool.js";
import { definitionHash, hasHash } from "./definition.js";
import { cacheHome } from "../config/env.js";
import type { ResolvedConfig } from "../config/resolved.js";
import { errorMessage } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { DefinitionStore, definitionsDir } from "./definitions.js";
import { LockFile, type Pin } from "./lock.js";
import { describeFindings, scanTool, type Finding } from "./scan.js";
import { sameTerms, termChanges, type Terms } from "./terms.js";

/** What a person and an agent are told changed, by term: metatools' own words, never a value the backend chose. */
const TERM_NAMES: Record<ReturnType<typeof termChanges>[number]["term"], string> = {
  server: "the server name its backend reports",
  readOnly: "whether it is read-only",
  destructive: "whether it may change or delete data",
  catalog: "the catalog entries that document it",
  hint: "its search hint",
};

const SNAPSHOT_MISMATCH =
  "the snapshot file's record of its definition does not match the definition beside it (the file was edited or damaged); it is held until its backend lists it";

/** A tool a backend lists, as the registry would serve it: under which id, and on which terms. */
export interface Candidate {
  /** The id it is served as: its backend's name, or the safe spelling of it (registry/names.ts). */
  id: string;
  tool: UpstreamTool;
  terms: Terms;
}

export interface Quarantined {
  id: string;
  namespace: string;
  /** The backend's own name for it. */
  name: string;
  kind: "flagged" | "changed";
  /** For a person: why, quoting what the scanner found. Never shown to an agent (a quote of an injection is an injection). */
  reason: string;
  hash: string;
  /** The definition held: what a person reviews (`metatools approve --show`) and what an approval pins. Never shown to an agent. */
  tool: UpstreamTool;
  /** The terms it would be served on: pinned with the definition by an approval. */
  terms: Terms;
  /** What the scanner found in it: why a flagged tool is held; for a changed one, what it finds in the new definition (none when scanning is off). */
  findings: Finding[];
  /** Read from the snapshot file, not listed by the backend (yet): never pinned, not even by an approval. */
  fromSnapshot?: true;
}

export interface GateOptions {
  scan: boolean;
  maxDescriptionChars: number;
  /** Namespaces metatools serves itself (code, metatools): trusted. */
  exempt: ReadonlySet<string>;
  /** Where pinned definitions are kept for review (none: only hashes are pinned). */
  definitions?: DefinitionStore;
}

export class ToolGate {
  /** Each tool object's definition hash, computed once. */
  private readonly hashes = new WeakMap<UpstreamTool, string>();
  /** Tools read from the snapshot file, with the hash recorded beside each (if any): never pinned, and checked before they are admitted. */
  private readonly fromSnapshot = new WeakMap<UpstreamTool, string | undefined>();

  constructor(
    readonly lock: LockFile | undefined,
    private readonly options: GateOptions,
  ) {}

  /** The kept definitions of pins, for `metatools approve --show`. */
  get definitions(): DefinitionStore | undefined {
    return this.options.definitions;
  }

  /** A tool's definition hash (what the lock file pins). */
  hashOf(tool: UpstreamTool): string {
    let hash = this.hashes.get(tool);
    if (hash === undefined) this.hashes.set(tool, (hash = definitionHash(tool)));
    return hash;
  }

  /**
   * Marks tools as read from the snapshot, with the hashes recorded beside
   * them. The file is only a cache anyone who can write the cache folder can
   * edit: each such tool is checked against its record before it is admitted
   * (a record that does not match quarantines it), the unpinned ones are
   * scanned, and none is ever pinned: pins come from what a backend lists.
   */
  claim(tools: readonly UpstreamTool[], hashes: readonly (string | undefined)[] = []): void {
    tools.forEach((tool, i) => this.fromSnapshot.set(tool, typeof hashes[i] === "string" ? hashes[i] : undefined));
  }

  /** Kept for listeners of the registry: snapshot records are now checked before admission, so no admitted tool is ever doubted later. */
  onDoubt(_listener: () => void): void {}

  /** Settles at once: nothing is checked after admission any more. */
  whenChecked(): Promise<void> {
    return Promise.resolve();
  }

  /** A snapshot tool's hash, checked against its record (cheaply when it matches); undefined when the record is wrong. */
  private snapshotHash(tool: UpstreamTool): string | undefined {
    const known = this.hashes.get(tool);
    if (known !== undefined) return known;
    const recorded = this.fromSnapshot.get(tool);
    if (recorded === undefined) return this.hashOf(tool);
    if (!hasHash(tool, recorded)) return undefined;
    this.hashes.set(tool, recorded);
    return recorded;
  }

  admit<C extends Candidate>(namespace: string, candidates: readonly C[]): { admitted: C[]; quarantined: Quarantined[] } {
    if (this.options.exempt.has(namespace)) return { admitted: [...candidates], quarantined: [] };
    const admitted: C[] = [];
    const quarantined: Quarantined[] = [];
    const ids: string[] = [];
    // Only a list the backend sent now tells which tools it no longer has: not the snapshot's, not the empty one a backend that went away leaves.
    let listedNow = candidates.length > 0;
    for (const candidate of candidates) {
      const { id, tool, terms } = candidate;
      const snapshot = this.fromSnapshot.has(tool);
      ids.push(id);
      if (snapshot) listedNow = false;
      const held = (kind: Quarantined["kind"], hash: string, reason: string, findings: Finding[]) =>
        quarantined.push({ id, namespace, name: tool.name, kind, hash, reason, tool, terms, findings, ...(snapshot ? { fromSnapshot: true } : {}) });
      const scan = () => (this.options.scan ? scanTool(tool, this.options) : []);
      const hash = snapshot ? this.snapshotHash(tool) : this.hashOf(tool);
      if (hash === undefined) {
        held("changed", definitionHash(tool), SNAPSHOT_MISMATCH, scan());
        continue;
      }
      const pin = this.pinOf(namespace, id, tool);
      if (pin) {
        const since = `${pin.by === "approved" ? "approved" : "first seen"} ${pin.at.slice(0, 10)}`;
        if (pin.hash !== hash) {
          held("changed", hash, `its definition changed since it was pinned (${since})`, scan());
          continue;
        }
        if (pin.terms !== undefined && !sameTerms(pin.terms, terms)) {
          // Named, not quoted: a server name is the backend's own word, and this reason reaches the agent (approve --show gives the values).
          const what = termChanges(pin.terms, terms).map((c) => TERM_NAMES[c.term]);
          held("changed", hash, `the terms it is served on changed since it was pinned (${since}): ${what.join(", ")}`, scan());
          continue;
        }
        admitted.push(candidate);
        // The pinned definition itself (its hash checked), kept if it is not yet: a pin of an earlier release gets its definition the next time its tool is listed.
        if (!snapshot) {
          this.options.definitions?.keep(hash, tool);
          // A pin of an earlier release knew no terms, or was made under the backend's spelling of a renamed tool: pinned as served now.
          if (pin.terms === undefined || !this.lock?.get(id)) this.lock?.adopt(id, { ...pin, terms });
        }
        continue;
      }
      const findings = scan();
      if (findings.length) {
        held("flagged", hash, `its definition looks like tool poisoning: ${describeFindings(findings)}`, findings);
        continue;
      }
      admitted.push(candidate);
      // Trust on first use, of what the backend itself listed: a snapshot tool is served (clean) but waits for its backend to be pinned.
      if (snapshot) continue;
      this.lock?.pin(id, hash, "first-use", terms);
      this.options.definitions?.keep(hash, tool);
    }
    if (listedNow) this.lock?.listed(namespace, ids);
    return { admitted, quarantined };
  }

  /**
   * The pin a tool meets: its served id's, or, for a tool served under a safe spelling that an earlier release pinned by
   * its backend's spelling (never a valid name, so never another tool's served id), that one: a definition changed since
   * is held as any changed one is.
   */
  private pinOf(namespace: string, id: string, tool: UpstreamTool): Pin | undefined {
    const pin = this.lock?.get(id);
    if (pin) return pin;
    const upstream = `${namespace}:${tool.name}`;
    return upstream === id ? undefined : this.lock?.get(upstream);
  }

  /** Pins quarantined tools' current definitions, written at once: a person has read them and trusts them. */
  approve(tools: readonly Quarantined[]): void {
    if (!this.lock) throw new Error("no lock file: approvals need a config file (the lock sits beside it) and metatools.security.lockFile not false");
    // What only the snapshot file says is never pinned: approving needs the definition its backend lists.
    for (const held of tools) {
      if (held.fromSnapshot) continue;
      this.lock.pin(held.id, held.hash, "approved", held.terms);
      this.options.definitions?.keep(held.hash, held.tool);
    }
    // Saving writes the kept definitions too (openGate).
    this.lock.save();
  }
}

/**
 * The configured lock file (none when `security.lockFile` is false), the
 * definitions its pins name kept in the cache folder (written and pruned
 * when the lock is saved), and the gate over both; the built-in namespaces
 * pass unchecked.
 */
export function openGate(security: ResolvedConfig["security"], logger: Logger): { lock?: LockFile; gate: ToolGate } {
  const onError = (error: unknown) => logger.error(`lock file: ${errorMessage(error)}`);
  const definitions = security.lockFile
    ? new DefinitionStore(definitionsDir(cacheHome(), security.lockFile), { onError: (error) => logger.warn(`kept tool definitions: ${errorMessage(error)}`) })
    : undefined;
  const lock = security.lockFile
    ? new LockFile(security.lockFile, {
        maxUnlistedPins: security.maxUnlistedPins,
        onError,
        onSave: (pinned, wrote, later) => definitions?.lockSaved(pinned, wrote, later),
      })
    : undefined;
  const gate = new ToolGate(lock, {
    scan: security.scan,
    maxDescriptionChars: security.maxDescriptionChars,
    exempt: new Set(["code", "metatools"]),
    definitions,
  });
  return { lock, gate };
}
