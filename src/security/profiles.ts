/**
 * Profiles: which tools a caller sees, and what its calls need before they
 * reach a backend. A profile is chosen once per caller (its HTTP token, the
 * URL path, `serve --profile`) and everything it is shown or may run
 * follows it (src/meta/scoped.ts). metatools' own plumbing (`metatools:*`:
 * reading the caller's own stored outputs and links) is in every profile.
 */
import { DEFAULT_PROFILE, noProfile, type Decision, type ProfileSpec } from "../config/profiles-schema.js";
import { globMatcher } from "../util/glob.js";
import { namespaceOf, type ToolRecord } from "../model/tool.js";

export { DEFAULT_PROFILE };

/** The namespace every profile keeps: it reads only what the caller's own calls stored. */
const PLUMBING = "metatools";
/** The one tool of it a profile may turn off (`scripts: false`): it runs programs of the caller's calls. */
const PROGRAMS = "metatools:run_program";

/** The strictest first: where several rules match, the first of these wins. */
const STRICTNESS: readonly Decision[] = ["deny", "ask", "allow"];

export interface Approval {
  decision: Decision;
  /** Why, in words for the person asked or the agent refused: the rule that decided. */
  because: string;
}

export class Profile {
  private readonly allowIds: ((id: string) => boolean) | undefined;
  private readonly denyIds: (id: string) => boolean;
  private readonly rules: { glob: string; test: (id: string) => boolean; decision: Decision }[];
  /** Sees every tool: nothing to filter (the fast path). */
  readonly open: boolean;

  constructor(
    readonly name: string,
    private readonly spec: ProfileSpec = {},
  ) {
    this.allowIds = spec.tools?.allow?.length ? globMatcher(spec.tools.allow) : undefined;
    this.denyIds = globMatcher(spec.tools?.deny ?? []);
    this.rules = Object.entries(spec.approvals?.tools ?? {}).map(([glob, decision]) => ({ glob, test: globMatcher([glob]), decision }));
    this.open = !this.allowIds && !spec.tools?.deny?.length && !spec.readOnly && spec.scripts !== false;
  }

  /** Whether the profile's id rules let `id` in (annotations aside: a quarantined tool has none to trust). */
  seesId(id: string): boolean {
    if (id === PROGRAMS) return this.spec.scripts !== false;
    if (id.startsWith(`${PLUMBING}:`)) return true;
    return (!this.allowIds || this.allowIds(id)) && !this.denyIds(id);
  }

  /** Whether a tool is in the profile: rules match its id as served or as its backend spells it (as the registry's rules do). */
  sees(record: ToolRecord): boolean {
    if (record.id === PROGRAMS) return this.spec.scripts !== false;
    if (record.namespace === PLUMBING) return true;
    const ids = spellings(record);
    return (
      ids.some((id) => !this.allowIds || this.allowIds(id)) && !ids.some(this.denyIds) && (!this.spec.readOnly || record.annotations.readOnlyHint === true)
    );
  }

  /** Whether a quarantined tool may be mentioned to the caller: its id is in the profile and, for a read-only profile, its held definition says read-only. */
  seesHeld(id: string, annotations: { readOnlyHint?: boolean } | undefined): boolean {
    return this.seesId(id) && (!this.spec.readOnly || annotations?.readOnlyHint === true);
  }

  /**
   * Whether the caller may hear of a namespace at all: some of its tools
   * now are in the profile, or, with none listed now (a backend down or
   * starting), some allow rule could name one of them.
   */
  seesNamespace(namespace: string, records: readonly ToolRecord[]): boolean {
    if (this.open || namespace === PLUMBING) return true;
    if (records.length) return records.some((record) => this.sees(record));
    // Nothing listed to judge by: only an allow rule that names the namespace lets the caller hear of it.
    if (this.denyIds(`${namespace}:*`) || !this.spec.tools?.allow?.length) return false;
    return this.spec.tools.allow.some((glob) => globMatcher([namespaceOf(glob) ?? glob])(namespace));
  }

  /** What a call of `record` needs: the strictest matching id rule, else the destructive rule (allow by default). */
  approval(record: ToolRecord): Approval {
    if (record.namespace === PLUMBING) return { decision: "allow", because: "metatools' own tools read only your outputs" };
    const ids = spellings(record);
    const matching = this.rules.filter((rule) => ids.some(rule.test));
    for (const decision of STRICTNESS) {
      const rule = matching.find((r) => r.decision === decision);
      if (rule) return { decision, because: `profile "${this.name}" says ${decision} for ${rule.glob}` };
    }
    const destructive = this.spec.approvals?.destructive ?? "allow";
    if (destructive !== "allow" && isDestructive(record))
      return { decision: destructive, because: `profile "${this.name}" says ${destructive} for tools that may change or delete data` };
    return { decision: "allow", because: `profile "${this.name}" allows it` };
  }

  /** What this profile lowers of the limits of programs; undefined when it says nothing (or turns them off). */
  get scripts(): Exclude<ProfileSpec["scripts"], false> {
    return this.spec.scripts === false ? undefined : this.spec.scripts;
  }

  /** After a person accepts: "ask" offers to remember it for the session, "session" always does, "never" asks each time. */
  get remember(): "ask" | "session" | "never" {
    return this.spec.approvals?.remember ?? "ask";
  }
}

/** A tool's id as served and, when its name was respelled (registry/names.ts), as its backend spells it. */
function spellings(record: ToolRecord): string[] {
  return record.upstreamName === undefined ? [record.id] : [record.id, `${record.namespace}:${record.upstreamName}`];
}

/**
 * Whether a tool may change or delete data, as MCP defines the hints
 * (after catalog overrides): destructiveHint defaults to true, and means
 * something only when the tool is not read-only.
 */
export function isDestructive(record: ToolRecord): boolean {
  return record.annotations.readOnlyHint !== true && record.annotations.destructiveHint !== false;
}

/** The config's profiles by name, and the default one (every tool, unless the config defines `default`). */
export class Profiles {
  private readonly byName: Map<string, Profile>;

  /** Whether the config defines `default`: callers given no profile are then held to it, and may not pick another by the URL path. */
  readonly definesDefault: boolean;

  constructor(specs: Record<string, ProfileSpec>) {
    this.byName = new Map(Object.entries(specs).map(([name, spec]) => [name, new Profile(name, spec)]));
    this.definesDefault = this.byName.has(DEFAULT_PROFILE);
    if (!this.definesDefault) this.byName.set(DEFAULT_PROFILE, new Profile(DEFAULT_PROFILE));
  }

  /** The named profile (unset: the default); undefined for a name the config does not define. */
  get(name: string | undefined): Profile | undefined {
    return this.byName.get(name ?? DEFAULT_PROFILE);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** The error message for a name that is not a profile. */
  unknown(name: string): string {
    return noProfile(name, Object.fromEntries(this.byName));
  }
}
