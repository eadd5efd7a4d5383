/**
 * `metatools approve ID… | --all`: a person has read the quarantined tools'
 * definitions (`metatools approve --show ID` shows one, and what changed
 * since it was pinned; `--list` lists them) and trusts them. Their current
 * definitions are pinned in the lock file; a running server notices within
 * seconds and lets them in.
 */
import { flag, logLevel, parseFlags, SHARED, UsageError } from "../flags.js";
import { defineCommand } from "../command.js";
import { openApp } from "../open.js";
import { stderr, stdout } from "../output.js";
import { selfInvocation } from "../command-line.js";
import { shortHash, showQuarantined } from "./approve-show.js";
import { sealOf } from "../../security/terms.js";

export const command = defineCommand({
  name: "approve",
  group: "govern",
  summary: "let in quarantined tools a person has read (pins their definitions in the lock file)",
  usage: (f) => `ID... | ID ${f.hash} | ${f.all} | ${f.list} [${f.json}] | ${f.show} [${f.json}]`,
  details:
    "Review a tool with --show, then approve it by its id, with --hash and the hash --show printed: if the backend changed the tool again since, nothing is pinned and you are told to review it again.",
  flags: {
    hash: flag.string("HASH", "approve only the definition with this hash (approve --show prints it): the one that was reviewed"),
    all: flag.boolean("approve every quarantined tool"),
    list: flag.boolean("list what is quarantined and why"),
    show: flag.string(
      "ID",
      "print one quarantined tool for review: the definition pinned before (kept in the cache folder; a pin made by a release that kept only hashes has none) and the one held now, what changed (description by line and word, parameters added, removed or changed in type, requiredness or description, output schema, annotations such as readOnlyHint, title), and what the scanner found",
    ),
    json: { ...SHARED.json, help: "with --list: {quarantined}; with --show: {id, kind, reason, pinned, current, changes, findings}" },
  },
  run: approve,
});

export async function approve(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, command.flags);
  if (!values.list && !values.all && !positionals.length && values.show === undefined)
    throw new UsageError("name the tool ids to approve, or pass --all (or --list to see what is quarantined, --show ID to review one)");
  if (values.all && positionals.length) throw new UsageError("pass tool ids or --all, not both");
  if (values.show !== undefined && (values.list || values.all || positionals.length)) throw new UsageError("--show takes one tool id and nothing else");
  if (values.hash !== undefined && (positionals.length !== 1 || values.all || !/^(sha256:)?[0-9a-f]{8,64}$/i.test(values.hash)))
    throw new UsageError("--hash takes the hash (8 or more hex digits) that approve --show printed, with the one tool id it is for");
  const app = await openApp(values, logLevel(values["log-level"], "warn"));
  try {
    if (values.show !== undefined) return showQuarantined(app, values.show, values.json);
    const held = app.registry.quarantined();
    if (values.list || !held.length) {
      // The held definitions stay out of the list: --show prints one, for a person to read.
      const next = `review one (its definition, what changed, what the scanner found): ${selfInvocation()} approve --show ID\nthen let it in: ${selfInvocation()} approve ID`;
      if (values.json) stdout().json({ quarantined: held.map(({ tool: _tool, ...q }) => q) });
      else stdout().write(held.length ? `${held.map((q) => `${q.id}: ${q.reason}`).join("\n")}\n\n${next}\n` : "nothing is quarantined\n");
      return values.list || !positionals.length ? 0 : 1;
    }
    const chosen = values.all ? held : held.filter((q) => positionals.includes(q.id));
    const missing = positionals.filter((id) => !held.some((q) => q.id === id));
    if (missing.length) {
      stderr().write(`metatools approve: not quarantined: ${missing.join(", ")} (quarantined now: ${held.map((q) => q.id).join(", ")})\n`);
      return 1;
    }
    // Approved as reviewed: a definition that changed again since --show printed its hash is not the one the person read.
    const reviewed = values.hash?.toLowerCase().replace(/^sha256:/, "");
    const moved = reviewed === undefined ? undefined : chosen.find((q) => !shortHash(sealOf(q.hash, q.terms), 64).startsWith(reviewed));
    if (moved) {
      stderr().write(
        `metatools approve: not approved: ${moved.id} changed since the definition you reviewed (${reviewed}; now ${shortHash(sealOf(moved.hash, moved.terms))}): review it again with ${selfInvocation()} approve --show ${moved.id}\n`,
      );
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
