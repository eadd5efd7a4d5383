/**
 * disclosure/budget.ts: response size in UTF-8 bytes of compact JSON (jsonBytes), the largest prefix of items that
 * fits a byte budget (fitItems, at and around the limit), and byte-bounded string cuts that never split a character.
 */
import { describe, expect, it } from "vitest";
import { fitItems, jsonBytes, truncateBytes } from "../../../src/disclosure/budget.js";

describe("jsonBytes", () => {
  it.each<[string, unknown, number]>([
    ["an empty object", {}, 2],
    ["an empty array", [], 2],
    ["an empty string", "", 2],
    ["null", null, 4],
    ["a number", 12345, 5],
    ["a compact array (no spaces)", [1, 2], 5],
    ["a compact object", { a: 1 }, 7],
    ["a 2-byte character", "é", 4],
    ["a 3-byte character", "€", 5],
    ["a 4-byte character (a surrogate pair)", "😀", 6],
    ["an escaped newline", "\n", 4],
    ["an escaped control character", "\u0000", 8],
    ["an escaped lone surrogate", "\ud800", 8],
    ["an escaped quote and backslash", '"\\', 6],
    ["a dropped undefined field", { a: undefined, b: 1 }, 7],
    ["a non-ASCII key", { ключ: 1 }, 14],
  ])("%s", (_name, value, bytes) => {
    expect(jsonBytes(value)).toBe(bytes);
  });

  it("counts a megabyte string exactly", () => {
    expect(jsonBytes("€".repeat(1_000_000))).toBe(3_000_002);
  });
});

describe("fitItems", () => {
  const build = (shown: readonly number[]) => ({ items: shown });
  // {"items":[]} is 12 bytes; each further one-digit item adds 1 (the first) or 2 (",n").
  const sizes = [12, 13, 15, 17, 19];

  it.each<[string, number, number]>([
    ["everything, with room to spare", 1000, 4],
    ["everything, exactly at the limit", 19, 4],
    ["one byte under the full response", 18, 3],
    ["exactly three items", 17, 3],
    ["one item, exactly", 13, 1],
    ["nothing: only the empty response fits", 12, 0],
    ["nothing: even the empty response is too big", 11, 0],
    ["nothing: a zero budget", 0, 0],
    ["nothing: a negative budget", -5, 0],
  ])("%s (budget %i → %i shown)", (_name, budget, shown) => {
    const items = [1, 2, 3, 4];
    expect(sizes.map((_, n) => jsonBytes(build(items.slice(0, n))))).toEqual(sizes);
    expect(fitItems(items, budget, build)).toEqual({ value: { items: items.slice(0, shown) }, shown });
  });

  it("builds the empty response for no items, whatever the budget", () => {
    expect(fitItems([], 0, build)).toEqual({ value: { items: [] }, shown: 0 });
    expect(fitItems([], 100, build)).toEqual({ value: { items: [] }, shown: 0 });
  });

  it("finds the largest fitting prefix of many items of uneven size, as a linear scan would", () => {
    const items = Array.from({ length: 300 }, (_, i) => "é".repeat(i % 7) + String(i));
    const render = (shown: readonly string[]) => ({ hits: shown, total: items.length });
    for (const budget of [0, 30, 31, 1000, 2345, jsonBytes(render(items)) - 1, jsonBytes(render(items))]) {
      let expected = 0;
      while (expected < items.length && jsonBytes(render(items.slice(0, expected + 1))) <= budget) expected++;
      const { value, shown } = fitItems(items, budget, render);
      expect(shown).toBe(expected);
      expect(value).toEqual(render(items.slice(0, expected)));
    }
  });

  it("when nothing fits and cutting adds a note, returns the whole set: never a larger reply with less in it", () => {
    const note = "the response byte budget cut this list short";
    const noted = (shown: readonly string[]) => (shown.length < 4 ? { items: shown, note } : { items: shown });
    // Sizes: all four 35 (without the note); none 66, one 71, two 77, three 83 (with it).
    expect(fitItems(["aaa", "bbb", "ccc", "ddd"], 34, noted)).toEqual({ value: { items: ["aaa", "bbb", "ccc", "ddd"] }, shown: 4 });
    // Long items outweigh the note: a cut reply that fits is the one returned, and when none fits, the smallest.
    const long = ["a".repeat(40), "b".repeat(40), "c".repeat(40), "d".repeat(40)];
    expect(fitItems(long, 150, noted)).toEqual({ value: { items: long.slice(0, 1), note }, shown: 1 });
    expect(fitItems(long, 20, noted)).toEqual({ value: { items: [], note }, shown: 0 });
  });

  it("tries the whole set first, and returns the build of the prefix it settled on", () => {
    const built: number[] = [];
    const { value } = fitItems([1, 2, 3], 15, (shown) => {
      built.push(shown.length);
      return { items: shown };
    });
    expect(value).toEqual({ items: [1, 2] });
    expect(built[0]).toBe(3);
    expect(built.at(-1)).toBe(2);
  });
});

describe("truncateBytes", () => {
  it.each<[string, string, number, string]>([
    ["ASCII under the limit", "abc", 10, "abc"],
    ["ASCII exactly at the limit", "abc", 3, "abc"],
    ["ASCII one byte over", "abcd", 3, "abc"],
    ["an empty string", "", 0, ""],
    ["a zero budget", "abc", 0, ""],
    ["a negative budget", "abc", -1, ""],
    ["a 2-byte character exactly at the limit", "aé", 3, "aé"],
    ["a 2-byte character cut in half", "aé", 2, "a"],
    ["a 2-byte character with no room", "é", 1, ""],
    ["a 3-byte character after 1 of its bytes", "a€b", 2, "a"],
    ["a 3-byte character after 2 of its bytes", "a€b", 3, "a"],
    ["a 3-byte character whole", "a€b", 4, "a€"],
    ["a 4-byte character after 1 byte", "a😀b", 2, "a"],
    ["a 4-byte character after 3 bytes", "a😀b", 4, "a"],
    ["a 4-byte character whole", "a😀b", 5, "a😀"],
    ["combining marks stay as code points", "e\u0301e\u0301", 3, "e\u0301"],
    ["a lone surrogate (3 bytes as U+FFFD) cut", "a\ud800b", 2, "a"],
    ["a string of CJK", "日本語テキスト", 10, "日本語"],
    ["a real U+FFFD that fits is kept", "ab\uFFFDcd", 5, "ab\uFFFD"],
    ["a real U+FFFD cut in half", "ab\uFFFDcd", 4, "ab"],
  ])("%s", (_name, text, maxBytes, expected) => {
    const cut = truncateBytes(text, maxBytes);
    expect(cut).toBe(expected);
    expect(Buffer.byteLength(cut, "utf8")).toBeLessThanOrEqual(Math.max(0, maxBytes));
  });

  it("returns the very same string when it fits, and cuts a huge one to the byte", () => {
    const text = "x".repeat(2_000_000);
    expect(truncateBytes(text, 2_000_000)).toBe(text);
    expect(truncateBytes(text, 1_999_999)).toHaveLength(1_999_999);
    expect(truncateBytes("😀".repeat(250_000), 999_999)).toBe("😀".repeat(249_999));
  });
});
