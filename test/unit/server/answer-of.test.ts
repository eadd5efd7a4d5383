import { describe, expect, it } from "vitest";
import { answerOf } from "../../../src/server/parked-call.js";

describe("a client's answer to a backend's question, as the backend takes it", () => {
  it("keeps an answer the spec allows: an action, and content of strings, numbers, booleans or lists of strings", () => {
    expect(answerOf({ action: "accept", content: { name: "Ada", age: 36, ok: true, tags: ["a", "b"] } })).toEqual({
      action: "accept",
      content: { name: "Ada", age: 36, ok: true, tags: ["a", "b"] },
    });
    expect(answerOf({ action: "decline" })).toEqual({ action: "decline" });
    expect(answerOf({ action: "cancel", _meta: { x: 1 } })).toEqual({ action: "cancel" });
  });

  it("reads anything else as cancel", () => {
    for (const response of [
      undefined,
      null,
      "accept",
      [],
      { action: "yes" },
      { action: "accept", content: [] },
      { action: "accept", content: { a: { b: 1 } } },
      { action: "accept", content: { a: [1] } },
    ])
      expect(answerOf(response), JSON.stringify(response)).toEqual({ action: "cancel" });
  });
});
