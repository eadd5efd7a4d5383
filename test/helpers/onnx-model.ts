/**
 * Writes a small but real sentence-embedding model folder that
 * transformers.js loads offline: a WordPiece tokenizer over a given word
 * list, and an ONNX graph whose token vectors are a lookup table
 * (`last_hidden_state = embeddings[input_ids] · attention_mask`), so the
 * pipeline's mean pooling gives the mean of the words' vectors. Both weight
 * files are written: onnx/model.onnx (fp32) and onnx/model_quantized.onnx
 * (a real uint8 table behind DequantizeLinear). The ONNX protobuf is encoded
 * by hand (field numbers from onnx.proto), so tests need no model download.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// Protobuf: wire type 0 is a varint, 2 is length-delimited.
function varint(value: number): Uint8Array {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return Uint8Array.from(out);
}
const concat = (parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const int = (field: number, n: number) => concat([varint(field << 3), varint(n)]);
const bytes = (field: number, b: Uint8Array) => concat([varint((field << 3) | 2), varint(b.length), b]);
const str = (field: number, s: string) => bytes(field, new TextEncoder().encode(s));

const FLOAT = 1;
const UINT8 = 2;
const INT64 = 7;
const ATTR_INT = 2;

/** TensorProto: dims 1, data_type 2, name 8, raw_data 9. */
const tensor = (name: string, type: number, dims: number[], raw: Uint8Array) =>
  concat([...dims.map((d) => int(1, d)), int(2, type), str(8, name), bytes(9, raw)]);
/** ValueInfoProto{name 1, type 2} → TypeProto{tensor_type 1} → Tensor{elem_type 1, shape 2} → Shape{dim 1} → Dimension{dim_value 1, dim_param 2}. */
function valueInfo(name: string, type: number, dims: (number | string)[]): Uint8Array {
  const shape = concat(dims.map((d) => bytes(1, typeof d === "string" ? str(2, d) : int(1, d))));
  return concat([str(1, name), bytes(2, bytes(1, concat([int(1, type), bytes(2, shape)])))]);
}
/** AttributeProto: name 1, i 3, type 20. */
const intAttr = (name: string, i: number) => concat([str(1, name), int(3, i), int(20, ATTR_INT)]);
/** NodeProto: input 1, output 2, name 3, op_type 4, attribute 5. */
const node = (op: string, inputs: string[], outputs: string[], attrs: Uint8Array[] = []) =>
  concat([...inputs.map((s) => str(1, s)), ...outputs.map((s) => str(2, s)), str(3, `${op}_${outputs[0]}`), str(4, op), ...attrs.map((a) => bytes(5, a))]);

function onnxModel(table: Float32Array, rows: number, dim: number, quantized: boolean): Uint8Array {
  const initializers = [tensor("axes", INT64, [1], new Uint8Array(BigInt64Array.from([2n]).buffer))];
  const nodes: Uint8Array[] = [];
  if (quantized) {
    let lo = 0;
    let hi = 0;
    for (const v of table) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
    const scale = hi > lo ? (hi - lo) / 255 : 1;
    const zero = Math.min(255, Math.max(0, Math.round(-lo / scale)));
    const q = Uint8Array.from(table, (v) => Math.min(255, Math.max(0, Math.round(v / scale) + zero)));
    initializers.push(
      tensor("table_q", UINT8, [rows, dim], q),
      tensor("scale", FLOAT, [], new Uint8Array(Float32Array.of(scale).buffer)),
      tensor("zero", UINT8, [], Uint8Array.of(zero)),
    );
    nodes.push(
      node("Gather", ["table_q", "input_ids"], ["tokens_q"], [intAttr("axis", 0)]),
      node("DequantizeLinear", ["tokens_q", "scale", "zero"], ["tokens"]),
    );
  } else {
    initializers.push(tensor("table", FLOAT, [rows, dim], new Uint8Array(table.buffer)));
    nodes.push(node("Gather", ["table", "input_ids"], ["tokens"], [intAttr("axis", 0)]));
  }
  nodes.push(
    node("Cast", ["attention_mask"], ["mask"], [intAttr("to", FLOAT)]),
    node("Unsqueeze", ["mask", "axes"], ["mask3"]),
    node("Mul", ["tokens", "mask3"], ["last_hidden_state"]),
  );
  /** GraphProto: node 1, name 2, initializer 5, input 11, output 12. */
  const graph = concat([
    ...nodes.map((n) => bytes(1, n)),
    str(2, "lookup"),
    ...initializers.map((t) => bytes(5, t)),
    bytes(11, valueInfo("input_ids", INT64, ["batch", "sequence"])),
    bytes(11, valueInfo("attention_mask", INT64, ["batch", "sequence"])),
    bytes(12, valueInfo("last_hidden_state", FLOAT, ["batch", "sequence", dim])),
  ]);
  /** ModelProto: ir_version 1, producer_name 2, graph 7, opset_import 8 {domain 1, version 2}. */
  return concat([int(1, 8), str(2, "metatools-test"), bytes(7, graph), bytes(8, concat([str(1, ""), int(2, 13)]))]);
}

const SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"];

/** Writes the model folder for `words` (lower case, no punctuation) with their vectors. */
export function writeModelFolder(dir: string, words: readonly string[], vectors: readonly number[][]): void {
  const dim = vectors[0]!.length;
  const vocab: Record<string, number> = Object.fromEntries([...SPECIALS, ...words].map((w, i) => [w, i]));
  const rows = SPECIALS.length + words.length;
  const table = new Float32Array(rows * dim);
  vectors.forEach((v, i) => table.set(v, (SPECIALS.length + i) * dim));
  const special = (t: string) => ({ SpecialToken: { id: t, type_id: 0 } });
  const tokenizer = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map((t, id) => ({ id, content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: "Sequence", normalizers: [{ type: "NFC" }, { type: "Lowercase" }] },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [special("[CLS]"), { Sequence: { id: "A", type_id: 0 } }, special("[SEP]")],
      pair: [special("[CLS]"), { Sequence: { id: "A", type_id: 0 } }, special("[SEP]"), { Sequence: { id: "B", type_id: 1 } }, special("[SEP]")],
      special_tokens: Object.fromEntries(["[CLS]", "[SEP]"].map((t) => [t, { id: t, ids: [vocab[t]], tokens: [t] }])),
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    // WordPiece with no "##" pieces is a whole-word lookup: any other word is one [UNK].
    model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100, vocab },
  };
  const config = {
    architectures: ["BertModel"],
    model_type: "bert",
    hidden_size: dim,
    vocab_size: rows,
    num_hidden_layers: 0,
    num_attention_heads: 1,
    max_position_embeddings: 512,
    pad_token_id: 0,
    "transformers.js_config": { dtype: "q8" },
  };
  const tokenizerConfig = {
    tokenizer_class: "BertTokenizer",
    do_lower_case: true,
    model_max_length: 512,
    pad_token: "[PAD]",
    unk_token: "[UNK]",
    cls_token: "[CLS]",
    sep_token: "[SEP]",
  };
  mkdirSync(join(dir, "onnx"), { recursive: true });
  writeFileSync(join(dir, "config.json"), JSON.stringify(config));
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(tokenizer));
  writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify(tokenizerConfig));
  writeFileSync(join(dir, "onnx", "model.onnx"), onnxModel(table, rows, dim, false));
  writeFileSync(join(dir, "onnx", "model_quantized.onnx"), onnxModel(table, rows, dim, true));
}
