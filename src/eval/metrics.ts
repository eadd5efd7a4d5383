/**
 * Retrieval metrics over ranked id lists, binary relevance:
 * hit@k (any relevant in the top k), MRR@10, nDCG@10, recall@10.
 */

export interface Metrics {
  "hit@1": number;
  "hit@5": number;
  "hit@10": number;
  "mrr@10": number;
  "ndcg@10": number;
  "recall@10": number;
  queries: number;
  tools: number;
}

export interface Accumulator {
  add(ranked: readonly string[], relevant: readonly string[]): void;
  result(tools: number): Metrics;
}

export function createAccumulator(): Accumulator {
  const sums = { hit1: 0, hit5: 0, hit10: 0, mrr: 0, ndcg: 0, recall: 0 };
  let n = 0;
  return {
    add(ranked, relevant) {
      const wanted = new Set(relevant);
      const top = ranked.slice(0, 10);
      const first = top.findIndex((id) => wanted.has(id));
      n++;
      if (first === 0) sums.hit1++;
      if (first >= 0 && first < 5) sums.hit5++;
      if (first >= 0) {
        sums.hit10++;
        sums.mrr += 1 / (first + 1);
      }
      let dcg = 0;
      let found = 0;
      top.forEach((id, i) => {
        if (wanted.has(id)) {
          dcg += 1 / Math.log2(i + 2);
          found++;
        }
      });
      let ideal = 0;
      for (let i = 0; i < Math.min(wanted.size, 10); i++) ideal += 1 / Math.log2(i + 2);
      sums.ndcg += ideal ? dcg / ideal : 0;
      sums.recall += wanted.size ? found / wanted.size : 0;
    },
    result(tools) {
      const avg = (x: number) => (n ? Math.round((x / n) * 10000) / 10000 : 0);
      return {
        "hit@1": avg(sums.hit1),
        "hit@5": avg(sums.hit5),
        "hit@10": avg(sums.hit10),
        "mrr@10": avg(sums.mrr),
        "ndcg@10": avg(sums.ndcg),
        "recall@10": avg(sums.recall),
        queries: n,
        tools,
      };
    },
  };
}
