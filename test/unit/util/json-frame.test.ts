/**
 * Messages checked on their bytes (src/util/json-frame.ts): the nesting
 * counted equals the value's own, however the bytes are cut into chunks
 * (strings and escapes included); lines pass whole, a last one without its
 * newline too; a line too large or too deep is refused with the id found at
 * its start or end, and whether it asked something; the next line reads.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countDepth, depthState, EventDepth, idIn, isRequest, JsonLines, nestsDeeper, type RefusedLine } from "../../../src/util/json-frame.js";

/** How deep a value nests, as JSON counts brackets and braces. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  const items = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...items.map(depthOf));
}

/** `bytes` in pieces cut at the given points. */
function pieces(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    out.push(bytes.subarray(from, cut));
    from = cut;
  }
  return out;
}

const json = fc.jsonValue({ maxDepth: 8 }).map((value) => ({ value, text: JSON.stringify(value) }));
const withTrickyStrings = fc
  .record({ a: fc.string({ unit: "binary" }), b: fc.constantFrom('\\"{[', '"]}', "\\\\", "x\\u0022[") })
  .map((value) => ({ value, text: JSON.stringify(value) }));

describe("the nesting of a message, counted on its bytes", () => {
  it("is the value's own, however the bytes come in chunks", () => {
    fc.assert(
      fc.property(fc.oneof(json, withTrickyStrings), fc.array(fc.nat(), { maxLength: 6 }), ({ value, text }, cuts) => {
        const state = depthState();
        for (const piece of pieces(Buffer.from(text), cuts)) countDepth(piece, state, 1000);
        expect(state.deepest).toBe(depthOf(value));
        expect(state.depth).toBe(0);
        expect(nestsDeeper(Buffer.from(text), depthOf(value))).toBe(false);
        if (depthOf(value) > 0) expect(nestsDeeper(Buffer.from(text), depthOf(value) - 1)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("lines of messages", () => {
  const run = (chunks: (string | Buffer)[], limits = { maxBytes: 1000, maxDepth: 4 }) => {
    const lines: string[] = [];
    const refused: RefusedLine[] = [];
    const framer = new JsonLines(
      limits,
      (line) => lines.push(line.toString()),
      (r) => refused.push(r),
    );
    for (const chunk of chunks) framer.push(Buffer.from(chunk));
    framer.end();
    return { lines, refused };
  };

  it("pass whole, however cut, a last line without its newline too; empty lines are nothing", () => {
    fc.assert(
      fc.property(fc.array(json, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 8 }), fc.boolean(), (messages, cuts, newlineAtEnd) => {
        const shallow = messages.filter((m) => depthOf(m.value) <= 4 && m.text.length < 1000);
        const text = shallow.map((m) => m.text).join("\n\n") + (newlineAtEnd ? "\n" : "");
        const { lines, refused } = run(pieces(Buffer.from(text), cuts));
        expect(refused).toEqual([]);
        expect(lines).toEqual(shallow.map((m) => `${m.text}\n`));
      }),
      { numRuns: 500 },
    );
  });

  it("refuse one too deep or too large with its id and kind, and read the next", () => {
    const deep = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":${"[".repeat(10)}${"]".repeat(10)}}`;
    const large = `{"jsonrpc":"2.0","method":"tools/call","params":{"x":"${"a".repeat(2000)}"},"id":"late"}`;
    const response = `{"jsonrpc":"2.0","id":3,"result":{"x":"${"a".repeat(2000)}"}}`;
    const { lines, refused } = run([deep.slice(0, 30), `${deep.slice(30)}\n{"id":1}\n`, large.slice(0, 900), `${large.slice(900)}\n${response}\n{"id":2}`]);
    expect(lines).toEqual(['{"id":1}\n', '{"id":2}\n']);
    expect(refused).toEqual([
      { id: 7, request: true, cause: "depth", reason: expect.stringContaining("nests deeper than 4 levels"), bytes: deep.length },
      { id: "late", request: true, cause: "size", reason: expect.stringContaining("larger than 1000 bytes"), bytes: large.length },
      { id: 3, request: false, cause: "size", reason: expect.stringContaining("larger than 1000 bytes"), bytes: response.length },
    ]);
  });

  it.each([
    ['{"jsonrpc":"2.0","id":5,"method":"x","params":', "", 5, true],
    ['{"method":"x","params":', ',"jsonrpc":"2.0","id":"a\\"b"}', 'a"b', true],
    ['{"jsonrpc":"2.0","method":"notifications/x","params":', "}", null, true],
    ['{"jsonrpc":"2.0","id":9,"result":', "}}", 9, false],
    ["[", "]", null, false],
  ] as const)("read %s…%s as id %s, request %s", (head, tail, id, request) => {
    expect(idIn(head, tail)).toEqual(id);
    expect(isRequest(head, tail)).toBe(request);
  });
});

describe("the nesting of an event stream's data", () => {
  /** An event stream of `events` (each JSON split over data lines), with fields that hold brackets and quotes, in the given line ends. */
  const stream = (events: string[], end: string) =>
    events
      .map(
        (text, i) =>
          `id: "[${i}{\\${end}event: message${end}: a comment with ] and "${end}${text
            .split("\n")
            .map((part) => `data: ${part}`)
            .join(end)}${end}${end}`,
      )
      .join("");

  it("counts only data, each event afresh, however the bytes are cut and whatever the line ends", () => {
    fc.assert(
      fc.property(
        fc.array(json, { minLength: 1, maxLength: 4 }),
        fc.constantFrom("\n", "\r\n", "\r"),
        fc.array(fc.nat(), { maxLength: 6 }),
        (events, end, cuts) => {
          const deepest = Math.max(...events.map((e) => depthOf(e.value)));
          const texts = events.map((e) => e.text.replace(/,/g, ",\n"));
          for (const [limit, over] of [
            [deepest, false],
            [deepest - 1, deepest > 0],
          ] as const) {
            const counter = new EventDepth(limit);
            const found = pieces(Buffer.from(stream(texts, end)), cuts).some((piece) => counter.push(piece));
            expect(found).toBe(over);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
