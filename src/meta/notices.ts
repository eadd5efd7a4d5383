/**
 * What each session was last told under a topic (search's `unavailable`),
 * so an agent is told once, and again when it changes, instead of in every
 * reply. Sessions end without a word to the meta-tools: past `max`, the
 * least recently used are forgotten (such a session is told once more).
 */
export class SessionNotices {
  private readonly told = new Map<string, string>();

  constructor(private readonly max = 10_000) {}

  /** True when `session` was last told something other than `key` under `topic` (or nothing); `key` is what it was told now. */
  changed(session: string, topic: string, key: string): boolean {
    const id = `${session}\0${topic}`;
    const last = this.told.get(id);
    // Re-inserted, so the sessions still asking are the last to be forgotten.
    this.told.delete(id);
    this.told.set(id, key);
    if (this.told.size > this.max) this.told.delete(this.told.keys().next().value!);
    return last !== key;
  }
}
