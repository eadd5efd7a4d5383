import { describe, expect, it } from "vitest";
import { ajvCached } from "../../helpers/ajv-cache.js";
import { sdkSchemaValidator } from "../../../src/backends/sdk-validator.js";
import { SchemaValidator } from "../../../src/exec/validator.js";

describe("the schema validator the SDK's client is given", () => {
  it("compiles nothing for the output schemas of a listing (the SDK asks for one per tool, at every listing)", () => {
    const inner = new SchemaValidator();
    const sdk = sdkSchemaValidator(inner);
    for (let i = 0; i < 2000; i++) sdk.getValidator({ type: "object", properties: { [`out_${i}`]: { type: "string" } } });
    expect(ajvCached(inner)).toBe(0);
  });

  it("validates what it is asked to (an elicitation answer), saying what is wrong", () => {
    const check = sdkSchemaValidator().getValidator<{ name: string }>({
      type: "object",
      properties: { name: { type: "string", minLength: 2 } },
      required: ["name"],
    });
    expect(check({ name: "Ada" })).toEqual({ valid: true, data: { name: "Ada" }, errorMessage: undefined });
    const wrong = check({ name: "A" });
    expect(wrong.valid).toBe(false);
    expect(wrong.errorMessage).toContain("/name");
  });
});
