/**
 * Re-indents valid JSON text without parsing it into values, so nothing is
 * lost on the way: large integers keep every digit, duplicate keys stay,
 * numbers keep their spelling. The layout matches JSON.stringify(v, null, 2).
 */
export function indentJson(text: string, indent = "  "): string {
  const out: string[] = [];
  let depth = 0;
  const newline = () => `\n${indent.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      // Copy the whole string literal as it is, escapes included.
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out.push(text.slice(i, j + 1));
      i = j;
      continue;
    }
    switch (c) {
      case "{":
      case "[": {
        let j = i + 1;
        while (j < text.length && isSpace(text[j]!)) j++;
        if (text[j] === (c === "{" ? "}" : "]")) {
          out.push(c + text[j]);
          i = j;
        } else {
          depth++;
          out.push(c + newline());
        }
        break;
      }
      case "}":
      case "]":
        depth--;
        out.push(newline() + c);
        break;
      case ",":
        out.push(`,${newline()}`);
        break;
      case ":":
        out.push(": ");
        break;
      default: {
        if (isSpace(c!)) break;
        // A number or a literal: copy the run up to the next structural character.
        let j = i + 1;
        while (j < text.length && !isSpace(text[j]!) && !'{}[],:"'.includes(text[j]!)) j++;
        out.push(text.slice(i, j));
        i = j - 1;
      }
    }
  }
  return out.join("");
}

function isSpace(c: string): boolean {
  return c === " " || c === "\n" || c === "\r" || c === "\t";
}
