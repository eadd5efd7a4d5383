/**
 * Profiles over HTTP: three tokens, three profiles (every tool; read-only;
 * only `files:*`, asking before anything destructive), a real SDK client
 * per token, the public everything and filesystem servers. Each caller's
 * search totals, namespace counts, describe_tool and run_tool follow its
 * profile exactly, and no reply to a caller names a tool its profile hides.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "../helpers/cli.js";
import { servers, tempDir, testHomes } from "../helpers/harness.js";
import { httpClientTransport, startHttp, TEST_TOKEN, type HttpChild } from "../helpers/serve.js";

const READONLY_TOKEN = "readonly-token-0123456789abcdef";
const FILES_TOKEN = "files-token-0123456789abcdef";
const SECRET = "s3cret-value-for-the-approval-test";

type Body = Record<string, any>;

interface Caller {
  client: Client;
  /** Every reply this caller got, as sent, with what was asked: no hidden tool the caller did not name may appear in one. */
  seen: { asked: string; reply: string }[];
  call(tool: string, args: Record<string, unknown>): Promise<Body>;
}

let server: HttpChild;
let notes: string;
let configFile: string;
const opened: Client[] = [];

async function connect(token: string, options: { elicitation?: boolean; path?: string } = {}): Promise<Caller> {
  const client = new Client({ name: "profile-test", version: "1" }, { capabilities: options.elicitation ? { elicitation: {} } : {} });
  await client.connect(httpClientTransport(server.url + (options.path ?? ""), token));
  opened.push(client);
  const seen = [{ asked: "", reply: client.getInstructions() ?? "" }];
  return {
    client,
    seen,
    call: async (tool, args) => {
      const reply = await client.callTool({ name: tool, arguments: args });
      const text = (reply.content as { text: string }[])[0]!.text;
      seen.push({ asked: JSON.stringify(args), reply: JSON.stringify(reply) });
      return JSON.parse(text) as Body;
    },
  };
}

/** Every tool a caller can list, with its read-only flag, paging through search_tools' browse. */
async function listAll(caller: Caller): Promise<{ total: number; tools: Map<string, boolean>; byNamespace: Body[] }> {
  const tools = new Map<string, boolean>();
  let offset = 0;
  let first: Body | undefined;
  for (;;) {
    const page = await caller.call("search_tools", { query: "", limit: 50, offset });
    first ??= page;
    for (const hit of page.hits as Body[]) tools.set(hit.id, hit.read_only === true);
    if (page.next_offset === undefined) break;
    offset = page.next_offset;
  }
  return { total: first!.total, tools, byNamespace: first!.by_namespace };
}

beforeAll(async () => {
  const dir = tempDir();
  notes = join(dir, "notes");
  mkdirSync(notes);
  writeFileSync(join(notes, "todo.md"), "water the plants\n");
  const config = (configFile = join(dir, "metatools.json"));
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { everything: servers.everything(), files: { ...servers.filesystem(notes), env: { NOTE_KEY: "${PROFILE_TEST_SECRET}" } } },
      metatools: {
        code: { enabled: false },
        profiles: { readonly: { readOnly: true }, files: { tools: { allow: ["files:*"] }, approvals: { destructive: "ask", remember: "never" } } },
        http: {
          tokens: [
            { token: READONLY_TOKEN, profile: "readonly" },
            { token: FILES_TOKEN, profile: "files" },
          ],
        },
      },
    }),
  );
  server = await startHttp(["--config", config], { PROFILE_TEST_SECRET: SECRET });
}, 60_000);

afterAll(async () => {
  await Promise.all(opened.map((c) => c.close().catch(() => {})));
  await server?.stop();
});

describe("profiles over HTTP", () => {
  it("give each token exactly its profile's tools, in search, describe and run, and name no other tool in any reply", async () => {
    const everyone = await connect(TEST_TOKEN);
    const all = await listAll(everyone);
    expect(all.total).toBe(all.tools.size);
    expect([...all.tools.keys()].some((id) => id.startsWith("everything:"))).toBe(true);

    const profiles = {
      readonly: { token: READONLY_TOKEN, sees: (id: string) => all.tools.get(id) === true || id.startsWith("metatools:") },
      files: { token: FILES_TOKEN, sees: (id: string) => id.startsWith("files:") || id.startsWith("metatools:") },
    };
    for (const [name, profile] of Object.entries(profiles)) {
      const caller = await connect(profile.token);
      const expected = [...all.tools.keys()].filter(profile.sees).sort();
      const hidden = [...all.tools.keys()].filter((id) => !profile.sees(id));
      expect(hidden.length, name).toBeGreaterThan(0);
      const mine = await listAll(caller);
      expect([...mine.tools.keys()].sort(), name).toEqual(expected);
      expect(mine.total, name).toBe(expected.length);
      const counts = new Map<string, number>();
      for (const id of expected) counts.set(id.split(":")[0]!, (counts.get(id.split(":")[0]!) ?? 0) + 1);
      expect(Object.fromEntries(mine.byNamespace.map((n) => [n.namespace, n.count])), name).toEqual(Object.fromEntries(counts));

      // A hidden tool is unknown, exactly as a tool that never existed.
      const ghost = hidden[0]!;
      const described = await caller.call("describe_tool", { tool_id: ghost });
      expect(described.ok, name).toBe(false);
      expect(described.error.code).toBe("unknown_tool");
      const ran = await caller.call("run_tool", { tool_id: ghost, args: {} });
      expect(ran.error.code, name).toBe("unknown_tool");
      expect(ran.error.message).toBe(`No tool "${ghost}".`);
      // Searches in words of the hidden tools, a namespace it cannot see, and ids one typo away.
      for (const query of ["echo a message", "add two numbers", "write a file", "delete", "tiny image", "read a file", "long running operation"])
        await caller.call("search_tools", { query });
      await caller.call("search_tools", { query: "add", namespace: "everything" });
      await caller.call("describe_tool", { tool_id: `${ghost}x` });
      await caller.call("run_tool", { tool_id: ghost.replace(/.$/, ""), args: {} });
      const visible = (await caller.call("describe_tool", { tool_id: expected.find((id) => !id.startsWith("metatools:"))! })) as Body;
      expect(visible.ok, name).not.toBe(false);
      for (const id of hidden) {
        const named = new RegExp(`(^|[^\\w:-])${id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^\\w-])`);
        for (const { asked, reply } of caller.seen)
          if (!asked.includes(id)) expect(named.test(reply), `${name} was told of ${id}: ${reply.slice(0, 300)}`).toBe(false);
      }
    }
  });

  it("a token may not take another profile by the URL path, and a path names only profiles that exist", async () => {
    await expect(connect(READONLY_TOKEN, { path: "/files" })).rejects.toThrow(/may use profile .{1,4}readonly.{1,4} only/);
    await expect(connect(TEST_TOKEN, { path: "/nope" })).rejects.toThrow(/no profile .{1,4}nope/);
    const byPath = await connect(TEST_TOKEN, { path: "/readonly" });
    const listed = await listAll(byPath);
    expect(listed.tools.size).toBeGreaterThan(2);
    for (const [id, readOnly] of listed.tools) expect(readOnly || id.startsWith("metatools:"), id).toBe(true);
  });

  it("ask: the client is asked once, with the tool and redacted arguments; accept writes the file, decline writes nothing", async () => {
    const caller = await connect(FILES_TOKEN, { elicitation: true });
    const asked: { message: string }[] = [];
    let answer: "accept" | "decline" = "accept";
    caller.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push({ message: request.params.message });
      return { action: answer, content: {} };
    });
    const yes = join(notes, "yes.md");
    const accepted = await caller.call("run_tool", { tool_id: "files:write_file", args: { path: yes, content: `key ${SECRET}` } });
    expect(accepted.ok, JSON.stringify(accepted)).not.toBe(false);
    expect(readFileSync(yes, "utf8")).toBe(`key ${SECRET}`);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain("files:write_file");
    expect(asked[0]!.message).toContain("yes.md");
    expect(asked[0]!.message).not.toContain(SECRET);

    answer = "decline";
    const no = join(notes, "no.md");
    const declined = await caller.call("run_tool", { tool_id: "files:write_file", args: { path: no, content: "never" } });
    expect(declined.ok).toBe(false);
    expect(declined.error.code).toBe("declined");
    expect(existsSync(no)).toBe(false);
    expect(asked).toHaveLength(2);

    // A read-only tool is not asked about.
    const read = await caller.call("run_tool", { tool_id: "files:read_text_file", args: { path: join(notes, "todo.md") } });
    expect(JSON.stringify(read)).toContain("water the plants");
    expect(asked).toHaveLength(2);
  });

  it("ask, with a client that cannot be asked: refused, naming the config to change, and nothing written", async () => {
    const caller = await connect(FILES_TOKEN);
    const target = join(notes, "unasked.md");
    const refused = await caller.call("run_tool", { tool_id: "files:write_file", args: { path: target, content: "x" } });
    expect(refused.error.code).toBe("approval_required");
    expect(JSON.stringify(refused)).toContain("metatools.profiles.files.approvals");
    expect(existsSync(target)).toBe(false);
  });

  it("the audit trail holds each approval's outcome, with the caller's profile, and no argument value", async () => {
    const { code, stdout } = await runCli(["audit", "--json", "--last", "100", "--tool", "files:write_file", "--config", configFile]);
    expect(code).toBe(0);
    const records = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Body);
    expect(records.map((r) => [r.profile, r.approval, r.status])).toEqual([
      ["files", "accepted", "ok"],
      ["files", "declined", "declined"],
      ["files", "unasked", "approval_required"],
    ]);
    expect(stdout).not.toContain(SECRET);
    expect(stdout).not.toContain("never");
  });
});

describe("a profile over stdio (serve --profile)", () => {
  async function stdio(config: string, profile: string, elicitation: boolean): Promise<Caller> {
    const client = new Client({ name: "profile-stdio", version: "1" }, { capabilities: elicitation ? { elicitation: {} } : {} });
    const env = { ...getDefaultEnvironment(), ...testHomes() };
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, "serve", "--config", config, "--profile", profile], env, stderr: "pipe" }),
    );
    opened.push(client);
    return {
      client,
      seen: [],
      call: async (tool, args) => JSON.parse(((await client.callTool({ name: tool, arguments: args })).content as { text: string }[])[0]!.text) as Body,
    };
  }

  it("shows the profile's tools, asks before a destructive call, and refuses it to a client that cannot be asked", async () => {
    const dir = tempDir();
    const config = join(dir, "metatools.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { everything: servers.everything(), files: servers.filesystem(dir) },
        metatools: { code: { enabled: false }, profiles: { files: { tools: { allow: ["files:*"] }, approvals: { destructive: "ask" } } } },
      }),
    );
    const asking = await stdio(config, "files", true);
    const page = await asking.call("search_tools", { query: "", limit: 50 });
    expect((page.hits as Body[]).every((h) => h.id.startsWith("files:") || h.id.startsWith("metatools:"))).toBe(true);
    expect((page.hits as Body[]).some((h) => h.id.startsWith("files:"))).toBe(true);
    let answer: "accept" | "decline" = "decline";
    const asked: string[] = [];
    const offered: unknown[] = [];
    asking.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      offered.push("requestedSchema" in request.params ? request.params.requestedSchema : undefined);
      // Accepting, the person also takes the offer to allow the tool for the rest of the session.
      return { action: answer, content: answer === "accept" ? { remember: true } : {} };
    });
    const target = join(dir, "out.md");
    const declined = await asking.call("run_tool", { tool_id: "files:write_file", args: { path: target, content: "x" } });
    expect(declined.error.code).toBe("declined");
    expect(existsSync(target)).toBe(false);
    answer = "accept";
    const accepted = await asking.call("run_tool", { tool_id: "files:write_file", args: { path: target, content: "y" } });
    expect(accepted.ok).not.toBe(false);
    expect(readFileSync(target, "utf8")).toBe("y");
    expect(asked).toHaveLength(2);
    expect(asked[1]).toContain("files:write_file");
    expect(JSON.stringify(offered[1])).toContain("remember");
    // Remembered for this session: the next call of the same tool runs unasked; another session is asked again.
    const again = await asking.call("run_tool", { tool_id: "files:write_file", args: { path: target, content: "z" } });
    expect(again.ok).not.toBe(false);
    expect(readFileSync(target, "utf8")).toBe("z");
    expect(asked).toHaveLength(2);

    const mute = await stdio(config, "files", false);
    const refused = await mute.call("run_tool", { tool_id: "files:write_file", args: { path: join(dir, "mute.md"), content: "z" } });
    expect(refused.error.code).toBe("approval_required");
    expect(existsSync(join(dir, "mute.md"))).toBe(false);
  });

  it("an unknown profile stops serve with the names it has", async () => {
    const dir = tempDir();
    const config = join(dir, "metatools.json");
    writeFileSync(config, JSON.stringify({ mcpServers: {}, metatools: { code: { enabled: false }, profiles: { files: {} } } }));
    const { code, stderr } = await runCli(["serve", "--config", config, "--profile", "nope"]);
    expect(code).toBe(2);
    expect(stderr).toContain('no profile "nope"');
    expect(stderr).toContain("files");
  });
});

describe("a server entry's own tools rules", () => {
  it("hide the tools they leave out from everyone: search, describe and run", async () => {
    const dir = tempDir();
    const config = join(dir, "metatools.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { everything: { ...servers.everything(), tools: { allow: ["get-*", "echo"], deny: ["get-env"] } } },
        metatools: { code: { enabled: false } },
      }),
    );
    const listed = await runCli(["search", "", "--limit", "50", "--json", "--config", config]);
    const ids = (JSON.parse(listed.stdout) as Body).hits.map((h: Body) => h.id as string).filter((id: string) => id.startsWith("everything:"));
    expect(ids.length).toBeGreaterThan(2);
    expect(ids.every((id: string) => id === "everything:echo" || id.startsWith("everything:get-"))).toBe(true);
    expect(ids).not.toContain("everything:get-env");
    const ran = await runCli(["run", "everything:get-env", "--json", "--config", config]);
    expect((JSON.parse(ran.stdout) as Body).error.code).toBe("unknown_tool");
  });
});
