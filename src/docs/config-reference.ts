/**
 * docs/reference/config.md, generated from the config's JSON Schema (itself
 * generated from the zod definitions): every field with its type and what
 * its description says, defaults included. Never edited by hand.
 */
import { cell, typeOf } from "../util/schema-words.js";

type Schema = Record<string, unknown>;

interface Row {
  path: string;
  type: string;
  description: string;
}

export function configReference(schema: Schema): string {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const servers = ((props.mcpServers?.additionalProperties as Schema | undefined)?.anyOf ?? []) as Schema[];
  const lines = [
    "# Configuration reference",
    "",
    "<!-- Generated from the config schema by `npm run generate`; a test fails when it is stale. Do not edit by hand. -->",
    "",
    "Every field of `metatools.json`. All are optional unless marked required; strings may use `${VAR}` or `${VAR:-default}` to read the environment. The file is checked against [schema/config.schema.json](../../schema/config.schema.json) at start, and a mistake is reported with the file and the field. The guide is [configuration.md](../configuration.md).",
    "",
    "## `mcpServers.<name>`",
    "",
    "One entry per backend; the name becomes the namespace of its tools (`name:tool`), so it keeps to letters, digits, `_`, `.` and `-`. An entry takes one of these shapes:",
  ];
  servers.forEach((shape, i) => {
    lines.push("", `### ${(shape.description as string | undefined) ?? `shape ${i + 1}`}`, "", table(fields(shape, "")));
  });
  const section = props.metatools;
  if (section) {
    lines.push("", "## `metatools`", "", (section.description as string | undefined) ?? "metatools' own settings.");
    const sectionProps = (section.properties ?? {}) as Record<string, Schema>;
    for (const [name, child] of Object.entries(sectionProps)) {
      lines.push("", `### \`metatools.${name}\``, "");
      if (child.description) lines.push(String(child.description), "");
      const rows = child.properties ? fields(child, "") : [{ path: "", type: typeOf(child), description: "" }];
      lines.push(table(rows.map((r) => ({ ...r, path: r.path ? `${name}.${r.path}` : name }))));
    }
  }
  return `${lines.join("\n")}\n`;
}

/** The leaves under an object schema, nested objects flattened to dotted paths. */
function fields(schema: Schema, prefix: string): Row[] {
  const required = new Set((schema.required ?? []) as string[]);
  const rows: Row[] = [];
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const path = prefix ? `${prefix}.${name}` : name;
    const description = `${required.has(name) ? "**Required.** " : ""}${(child.description as string | undefined) ?? ""}`;
    if (child.properties && child.type === "object") {
      if (child.description) rows.push({ path, type: "object", description });
      rows.push(...fields(child, path));
    } else if (Array.isArray(child.oneOf) || Array.isArray(child.anyOf)) {
      const all = alternatives(child);
      const variants = all.filter((v) => v.properties);
      if (!variants.length) rows.push({ path, type: typeOf(child), description });
      else {
        // Objects told apart by `type`, and maybe a plain value beside them (`false`): "object or false".
        const type = ["object", ...all.filter((v) => !v.properties).map(typeOf)].join(" or ");
        rows.push({ path, type, description: `${description} One of: ${variants.map((v) => `\`${discriminator(v)}\``).join(", ")}.` });
        for (const v of variants) rows.push(...fields(v, `${path} (${discriminator(v)})`));
      }
    } else rows.push({ path, type: typeOf(child), description });
  }
  return rows;
}

/** The branches of a union, nested unions flattened. */
function alternatives(schema: Schema): Schema[] {
  const branches = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  return branches ? branches.flatMap(alternatives) : [schema];
}

function discriminator(schema: Schema): string {
  const type = (schema.properties as Record<string, Schema> | undefined)?.type;
  return type?.const !== undefined ? `type: ${JSON.stringify(type.const)}` : "object";
}

function table(rows: readonly Row[]): string {
  return ["| field | type | meaning |", "| --- | --- | --- |", ...rows.map((r) => `| \`${r.path}\` | ${cell(r.type)} | ${cell(r.description)} |`)].join("\n");
}
