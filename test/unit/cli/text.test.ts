import { describe, expect, it } from "vitest";
import { printable } from "../../../src/cli/format.js";
import { styleFor } from "../../../src/cli/style.js";
import { markdownTable, textTable } from "../../../src/util/table.js";

describe("text for a terminal", () => {
  it.each([
    ["a backend's clear-screen", "Reads files\u001b[2J\u001b[H.", "Reads files."],
    ["a window-title sequence", "ok\u001b]0;pwned\u0007 done", "ok done"],
    ["colour a backend sends", "\u001b[31mred\u001b[0m", "red"],
    ["C1 controls and NUL", "a\u009bb\u0000c", "abc"],
    ["nothing of newlines and tabs", "a\n\tb", "a\n\tb"],
  ])("drops %s", (_, input, expected) => {
    expect(printable(input)).toBe(expected);
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
