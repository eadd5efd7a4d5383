/**
 * `metatools approve ID… | --all`: a person has read the quarantined tools'
 * definitions (shown by `metatools approve --list`, or in the log) and
 * trusts them. Their current definitions are pinned in the lock file; a
 * running server notices within seconds and lets them in.
 */
import { logLevel, parseFlags, UsageError } from "../flags.js";
import { COMMAND_FLAGS } from "../command-flags.js";
import { openApp } from "../open.js";
import { stderr, stdout } from "../output.js";

export async function approve(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, COMMAND_FLAGS.approve);
  if (!values.list && !values.all && !positionals.length)
    throw new UsageError("name the tool ids to approve, or pass --all (or --list to see what is quarantined)");
  if (values.all && positionals.length) throw new UsageError("pass tool ids or --all, not both");
  const app = await openApp(values, logLevel(values["log-level"], "warn"));
  try {
    const held = app.registry.quarantined();
    if (values.list || !held.length) {
      if (values.json) stdout().json({ quarantined: held });
      else stdout().write(held.length ? `${held.map((q) => `${q.id}: ${q.reason}`).join("\n")}\n` : "nothing is quarantined\n");
      return values.list || !positionals.length ? 0 : 1;
    }
    const chosen = values.all ? held : held.filter((q) => positionals.includes(q.id));
    const missing = positionals.filter((id) => !held.some((q) => q.id === id));
    if (missing.length) {
      stderr().write(`metatools approve: not quarantined: ${missing.join(", ")} (quarantined now: ${held.map((q) => q.id).join(", ")})\n`);
      return 1;
    }
    // A definition only the snapshot file holds is not what the backend serves: it cannot be approved until the backend lists it.
    const unlisted = chosen.filter((q) => q.fromSnapshot);
    const pinnable = chosen.filter((q) => !q.fromSnapshot);
    if (pinnable.length) app.gate.approve(pinnable);
    if (values.json)
      stdout().json({ approved: pinnable.map(({ id, hash }) => ({ id, hash })), notListed: unlisted.map((q) => q.id), lockFile: app.gate.lock?.file });
    else {
      if (pinnable.length) stdout().write(`${pinnable.map((q) => `approved ${q.id} (was: ${q.reason})`).join("\n")}\npinned in ${app.gate.lock?.file}\n`);
      if (unlisted.length)
        stderr().write(
          `metatools approve: not approved: ${unlisted.map((q) => q.id).join(", ")}: known only from the tool snapshot, not listed by the backend now; run metatools doctor to see why it is not up, then approve again\n`,
        );
    }
    return unlisted.length ? 1 : 0;
  } finally {
    await app.close();
  }
}
