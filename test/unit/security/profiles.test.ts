import { describe, expect, it } from "vitest";
import { isDestructive, Profile, Profiles } from "../../../src/security/profiles.js";
import { toolRecord } from "../../helpers/records.js";

const write = toolRecord("files", "write_file", { annotations: { readOnlyHint: false, destructiveHint: true } });
const read = toolRecord("files", "read_file", { annotations: { readOnlyHint: true } });
const silent = toolRecord("files", "touch");
const mkdir = toolRecord("files", "create_directory", { annotations: { readOnlyHint: false, destructiveHint: false } });
const output = toolRecord("metatools", "read_output", { annotations: { readOnlyHint: true } });

describe("a profile", () => {
  it("takes a tool that does not say as one that may change or delete data, as MCP does", () => {
    expect([write, read, silent, mkdir].map(isDestructive)).toEqual([true, false, true, false]);
  });

  it("keeps tools by id globs and read-only hints, and always metatools' own", () => {
    const files = new Profile("files", { tools: { allow: ["files:*"], deny: ["files:touch"] } });
    expect([write, read, silent, output, toolRecord("github", "x")].map((r) => files.sees(r))).toEqual([true, true, false, true, false]);
    const readonly = new Profile("ro", { readOnly: true });
    expect([write, read, silent, mkdir, output].map((r) => readonly.sees(r))).toEqual([false, true, false, false, true]);
    expect(new Profile("open").open).toBe(true);
    expect(readonly.open).toBe(false);
  });

  it("hears of a namespace with none of its tools listed only when an allow rule could name one", () => {
    const files = new Profile("files", { tools: { allow: ["files:*", "git*:status"] } });
    expect(files.seesNamespace("files", [])).toBe(true);
    expect(files.seesNamespace("github", [])).toBe(true);
    expect(files.seesNamespace("everything", [])).toBe(false);
    expect(files.seesNamespace("files", [toolRecord("files", "nope", { id: "files:nope" })])).toBe(true);
    expect(new Profile("d", { tools: { deny: ["secret:*"] } }).seesNamespace("secret", [])).toBe(false);
    // With no allow rule, nothing listed says whether any of its tools would be in: it is not mentioned.
    expect(new Profile("ro", { readOnly: true }).seesNamespace("down", [])).toBe(false);
    expect(new Profile("open").seesNamespace("down", [])).toBe(true);
  });

  it("decides by the strictest matching glob, then the destructive rule", () => {
    const profile = new Profile("p", { approvals: { destructive: "ask", tools: { "files:*": "allow", "files:write_*": "deny", "files:read_file": "ask" } } });
    expect(profile.approval(write).decision).toBe("deny");
    expect(profile.approval(read).decision).toBe("ask");
    expect(profile.approval(silent).decision).toBe("allow");
    expect(profile.approval(toolRecord("github", "push")).decision).toBe("ask");
    expect(profile.approval(toolRecord("github", "get", { annotations: { readOnlyHint: true } })).decision).toBe("allow");
    expect(profile.approval(output).decision).toBe("allow");
    expect(new Profile("q").approval(write).decision).toBe("allow");
  });

  it("is looked up by name, the default one every tool unless the config defines it", () => {
    const profiles = new Profiles({ ro: { readOnly: true } });
    expect(profiles.get(undefined)!.open).toBe(true);
    expect(profiles.get("ro")!.sees(write)).toBe(false);
    expect(profiles.get("nope")).toBeUndefined();
    expect(new Profiles({ default: { readOnly: true } }).get(undefined)!.open).toBe(false);
    expect(profiles.unknown("nope")).toMatch(/no profile "nope".*ro/);
  });

  it("matches a tool by its backend's spelling too, and mentions a held tool only as its profile would show it", () => {
    const respelled = toolRecord("fs", "Delete_File", { upstreamName: "Delete File", annotations: { destructiveHint: true } });
    expect(new Profile("hide", { tools: { deny: ["fs:Delete File"] } }).sees(respelled)).toBe(false);
    expect(new Profile("only", { tools: { allow: ["fs:Delete File"] } }).sees(respelled)).toBe(true);
    expect(new Profile("refuse", { approvals: { tools: { "fs:Delete File": "deny" } } }).approval(respelled).decision).toBe("deny");
    const readonly = new Profile("ro", { readOnly: true });
    expect(readonly.seesHeld("x:exfil", {})).toBe(false);
    expect(readonly.seesHeld("x:list", { readOnlyHint: true })).toBe(true);
    expect(new Profile("files", { tools: { allow: ["files:*"] } }).seesHeld("x:list", { readOnlyHint: true })).toBe(false);
  });
});
