import { describe, expect, it } from "vitest";
import { isPrintable, printable, printableJson } from "../../../src/util/terminal.js";
import { styleFor } from "../../../src/cli/style.js";
import { markdownTable, textTable } from "../../../src/util/table.js";

describe("text for a terminal", () => {
  it.each([
    ["a backend's clear-screen", "Reads files\u001b[2J\u001b[H.", "Reads files."],
    ["a window-title sequence", "ok\u001b]0;pwned\u0007 done", "ok done"],
    ["colour a backend sends", "\u001b[31mred\u001b[0m", "red"],
    ["a C1 CSI and NUL (NUL made visible)", "a\u009b31mb\u0000c", "ab\\u0000c"],
    ["a hyperlink (OSC 8) ended by ST", "see \u001b]8;;https://evil.example\u001b\\here\u001b]8;;\u001b\\.", "see here."],
    ["a DCS string", "x\u001bPq#0;2;0;0;0\u001b\\y", "xy"],
    ["an OSC that never ends", "ok\u001b]0;title without end", "ok"],
    ["a carriage return that would overwrite the line", "safe\rEVIL", "safe\\u000dEVIL"],
    ["bidi overrides that reorder text", "abc\u202edcba\u2066", "abc\\u202edcba\\u2066"],
    ["a lone ESC at the end", "end\u001b", "end"],
    ["nothing of newlines and tabs", "a\n\tb", "a\n\tb"],
  ])("drops %s", (_, input, expected) => {
    expect(printable(input)).toBe(expected);
    expect(isPrintable(printable(input))).toBe(true);
  });

  it("keeps JSON parseable while making C1 and bidi controls visible", () => {
    const value = { name: "a\u009b2Jb\u202ec\u001b[31m" };
    const text = printableJson(JSON.stringify(value));
    expect(isPrintable(text)).toBe(true);
    expect(JSON.parse(text)).toEqual(value);
  });

  it("keeps every cell on one line and aligns numbers right", () => {
    const table = {
      head: ["name", "count"],
      rows: [
        ["two\nlines", "5"],
        ["b", "120"],
      ],
    };
    expect(textTable(table)).toBe("name       count\ntwo lines      5\nb            120");
    expect(markdownTable(table)).toBe("| name | count |\n| --- | ---: |\n| two lines | 5 |\n| b | 120 |");
  });

  it.each([
    [{}, true, true],
    [{}, false, false],
    [{ NO_COLOR: "1" }, true, false],
    [{ NO_COLOR: "" }, true, true],
    [{ FORCE_COLOR: "1" }, false, true],
    [{ FORCE_COLOR: "0" }, true, false],
    [{ FORCE_COLOR: "false" }, true, false],
    [{ FORCE_COLOR: "1", NO_COLOR: "1" }, true, false],
  ])("colour with %o on a %s terminal: %s", (env, tty, enabled) => {
    const style = styleFor({ isTTY: tty } as NodeJS.WriteStream, env);
    expect(style.enabled).toBe(enabled);
    expect(style.bold("x")).toBe(enabled ? "\u001b[1mx\u001b[22m" : "x");
  });
});
