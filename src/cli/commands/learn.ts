/**
 * `metatools learn --export FILE | --import FILE | --reset`: what search
 * learned from use, moved between deployments or forgotten. It works on the
 * configured store, so it reaches what a server learned only when that store
 * is shared (redis://, sqlite://); a memory store lives in the server's
 * process alone (use `metatools.learn.seed` to load a file there).
 */
import { loadConfig } from "../../config/load.js";
import { readLearnedFile } from "../../learn/file.js";
import { LearnedStore } from "../../learn/store.js";
import { openConfiguredStore } from "../../store/open.js";
import { writeFileAtomic } from "../../util/files.js";
import { parseFlags, UsageError } from "../flags.js";
import { stderr, stdout } from "../output.js";

export async function learn(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { export: { type: "string" }, import: { type: "string" }, reset: { type: "boolean" } });
  const chosen = [values.export !== undefined, values.import !== undefined, values.reset === true].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError("pass one of --export FILE (or - for stdout), --import FILE, --reset");
  const config = loadConfig({ configPath: values.config });
  if (!config.learn) {
    stderr().write("metatools learn: search learning is off in this config (metatools.learn: false)\n");
    return 1;
  }
  if (config.store.url.startsWith("memory")) {
    stderr().write(
      "metatools learn: metatools.store is memory, so what a server learns lives in that server's process and this command cannot reach it. " +
        "Set metatools.store.url to redis://… (or sqlite://…) to share it, or load a file at start with metatools.learn.seed.\n",
    );
    return 1;
  }
  const kv = openConfiguredStore(config.store, "learn");
  const store = new LearnedStore(kv, { halfLifeMs: config.learn.halfLifeMs, shareAfterPrincipals: config.learn.shareAfterPrincipals });
  try {
    if (values.reset) {
      await store.reset();
      stdout().write(`forgot what search learned (store ${kv.where}); every server sharing it ranks without it within a second\n`);
    } else if (values.import !== undefined) {
      const terms = await store.import(readLearnedFile(values.import), Date.now());
      stdout().write(`imported ${terms} terms from ${values.import} into ${kv.where}\n`);
    } else {
      const file = await store.export(Date.now());
      const text = `${JSON.stringify(file, null, 2)}\n`;
      if (values.export === "-") stdout().write(text);
      else {
        // Terms and tool ids (and queries, when the config keeps them): readable by you alone.
        writeFileAtomic(values.export!, text, 0o600);
        stdout().write(`exported ${Object.keys(file.terms).length} terms to ${values.export}\n`);
      }
    }
    return 0;
  } finally {
    await kv.close();
  }
}
