;; The vector leg's inner loops (src/search/kernel/dot-i8.ts), with 128-bit
;; SIMD: int8 dot products of a request's query vectors against every row
;; of a matrix (each row's best), and float dot products of one query
;; against a few int16 rows (the best candidates, scored again from their
;; stored codes).
;; The memory is imported, and shared: a second thread runs `best` over some of the rows of a large matrix
;; (src/search/kernel/helper.ts), each thread writing its own rows' scores and its own part of the sample.
;; `npm run generate` compiles this file into dot-i8.wasm.ts (wabt, a dev
;; dependency); the package ships only that.
;;
;; best(queries, count, matrix, rows, dims, qscales, rscales, out, step, sample):
;;   queries: count × dims int16 values (each query's codes, within 2047)
;;   matrix: rows × dims int8 values, row after row
;;   qscales: count float32 values; rscales: rows float32 values
;;   out: rows float32 values, out[r] = rscales[r] · max_j qscales[j] · Σ_k queries[j·dims + k] · matrix[r·dims + k]
;;   sample: ceil(rows / step) float32 values, sample[i] = out[i · step] (written as they are scored, so the
;;   floor guessed from them reads a few kilobytes still in cache, not every step-th value of out)
;; Each row is read from memory once, for all the queries, 64 values a
;; step. dims is a multiple of 64, and every address is 16-byte aligned. A sum fits an
;; int32: |queries[…]| ≤ 2047, |matrix[…]| ≤ 127 and dims ≤ 4096 give at
;; most 2047 · 127 · 4096 = 1,064,828,928.
;;
;; above(out, rows, floor, dst): writes to dst (int32 values) the rows r with out[r] > floor, in order, and
;; returns how many (4 scores compared a step).
;;
;; rescore(query, rows, count, dims, out):
;;   query: dims float32 values
;;   rows: count × dims int16 values, row after row
;;   out: count float32 values, out[r] = Σ_k query[k] · rows[r·dims + k]
;; (dims a multiple of 64 and 16-byte aligned addresses, as above).
(module
  (import "env" "memory" (memory 1 65536 shared))
  (func (export "best") (param $q i32) (param $count i32) (param $m i32) (param $rows i32) (param $dims i32) (param $qs i32) (param $rs i32) (param $out i32) (param $step i32) (param $sample i32)
    (local $r i32) (local $j i32) (local $row i32) (local $end i32) (local $p i32) (local $qj i32) (local $qp i32)
    (local $b v128) (local $acc v128) (local $acc2 v128) (local $best f32) (local $score f32) (local $countdown i32)
    (local.set $row (local.get $m))
    (block $done
      (loop $each_row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $end (i32.add (local.get $row) (local.get $dims)))
        (local.set $best (f32.const -inf))
        (local.set $j (i32.const 0))
        (local.set $qj (local.get $q))
        (block $queries_done
          (loop $each_query
            (br_if $queries_done (i32.ge_u (local.get $j) (local.get $count)))
            (local.set $acc (v128.const i32x4 0 0 0 0))
            (local.set $acc2 (v128.const i32x4 0 0 0 0))
            (local.set $p (local.get $row))
            (local.set $qp (local.get $qj))
            (block $row_done
              (loop $each_64
                (br_if $row_done (i32.ge_u (local.get $p) (local.get $end)))
                ;; 64 int8 of the row, 16 at a time, widened to int16x8 halves, each dotted with 8 int16 of the query
                (local.set $b (v128.load offset=0 (local.get $p)))
                (local.set $acc
                  (i32x4.add (local.get $acc)
                    (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $b)) (v128.load offset=0 (local.get $qp)))))
                (local.set $acc2
                  (i32x4.add (local.get $acc2)
                    (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $b)) (v128.load offset=16 (local.get $qp)))))
                (local.set $b (v128.load offset=16 (local.get $p)))
                (local.set $acc
                  (i32x4.add (local.get $acc)
                    (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $b)) (v128.load offset=32 (local.get $qp)))))
                (local.set $acc2
                  (i32x4.add (local.get $acc2)
                    (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $b)) (v128.load offset=48 (local.get $qp)))))
                (local.set $b (v128.load offset=32 (local.get $p)))
                (local.set $acc
                  (i32x4.add (local.get $acc)
                    (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $b)) (v128.load offset=64 (local.get $qp)))))
                (local.set $acc2
                  (i32x4.add (local.get $acc2)
                    (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $b)) (v128.load offset=80 (local.get $qp)))))
                (local.set $b (v128.load offset=48 (local.get $p)))
                (local.set $acc
                  (i32x4.add (local.get $acc)
                    (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $b)) (v128.load offset=96 (local.get $qp)))))
                (local.set $acc2
                  (i32x4.add (local.get $acc2)
                    (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $b)) (v128.load offset=112 (local.get $qp)))))
                (local.set $p (i32.add (local.get $p) (i32.const 64)))
                (local.set $qp (i32.add (local.get $qp) (i32.const 128)))
                (br $each_64)))
            (local.set $acc (i32x4.add (local.get $acc) (local.get $acc2)))
            (local.set $best
              (f32.max (local.get $best)
                (f32.mul
                  (f32.convert_i32_s
                    (i32.add
                      (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
                      (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
                  (f32.load (i32.add (local.get $qs) (i32.shl (local.get $j) (i32.const 2)))))))
            (local.set $qj (i32.add (local.get $qj) (i32.shl (local.get $dims) (i32.const 1))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $each_query)))
        (local.set $score (f32.mul (local.get $best) (f32.load (i32.add (local.get $rs) (i32.shl (local.get $r) (i32.const 2))))))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2))) (local.get $score))
        ;; every step-th row's score also goes to the sample
        (if (i32.eqz (local.get $countdown))
          (then
            (f32.store (local.get $sample) (local.get $score))
            (local.set $sample (i32.add (local.get $sample) (i32.const 4)))
            (local.set $countdown (local.get $step))))
        (local.set $countdown (i32.sub (local.get $countdown) (i32.const 1)))
        (local.set $row (local.get $end))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each_row))))
  (func (export "above") (param $out i32) (param $rows i32) (param $floor f32) (param $dst i32) (result i32)
    (local $r i32) (local $end4 i32) (local $at i32) (local $lane i32) (local $floors v128)
    (local.set $floors (f32x4.splat (local.get $floor)))
    (local.set $end4 (i32.and (local.get $rows) (i32.const -4)))
    (local.set $at (local.get $dst))
    (block $done
      (loop $each_4
        (br_if $done (i32.ge_u (local.get $r) (local.get $end4)))
        ;; most steps: none of the 4 is above the floor
        (if (v128.any_true (f32x4.gt (v128.load (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))) (local.get $floors)))
          (then
            (local.set $lane (i32.const 0))
            (block $lanes_done
              (loop $each_lane
                (br_if $lanes_done (i32.ge_u (local.get $lane) (i32.const 4)))
                (if (f32.gt (f32.load (i32.add (local.get $out) (i32.shl (i32.add (local.get $r) (local.get $lane)) (i32.const 2)))) (local.get $floor))
                  (then
                    (i32.store (local.get $at) (i32.add (local.get $r) (local.get $lane)))
                    (local.set $at (i32.add (local.get $at) (i32.const 4)))))
                (local.set $lane (i32.add (local.get $lane) (i32.const 1)))
                (br $each_lane)))))
        (local.set $r (i32.add (local.get $r) (i32.const 4)))
        (br $each_4)))
    (block $tail_done
      (loop $each_tail
        (br_if $tail_done (i32.ge_u (local.get $r) (local.get $rows)))
        (if (f32.gt (f32.load (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))) (local.get $floor))
          (then
            (i32.store (local.get $at) (local.get $r))
            (local.set $at (i32.add (local.get $at) (i32.const 4)))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each_tail)))
    (i32.shr_u (i32.sub (local.get $at) (local.get $dst)) (i32.const 2)))
  (func (export "rescore") (param $q i32) (param $m i32) (param $count i32) (param $dims i32) (param $out i32)
    (local $r i32) (local $k i32) (local $row i32) (local $b v128) (local $acc v128) (local $at i32)
    (local.set $row (local.get $m))
    (block $done
      (loop $each_row
        (br_if $done (i32.ge_u (local.get $r) (local.get $count)))
        (local.set $acc (v128.const f32x4 0 0 0 0))
        (local.set $k (i32.const 0))
        (block $row_done
          (loop $each_8
            (br_if $row_done (i32.ge_u (local.get $k) (local.get $dims)))
            ;; 8 int16 of the row, widened to two int32x4 halves, converted to float, each times 4 floats of the query
            (local.set $b (v128.load (i32.add (local.get $row) (i32.shl (local.get $k) (i32.const 1)))))
            (local.set $at (i32.add (local.get $q) (i32.shl (local.get $k) (i32.const 2))))
            (local.set $acc
              (f32x4.add (local.get $acc)
                (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_low_i16x8_s (local.get $b))) (v128.load (local.get $at)))))
            (local.set $acc
              (f32x4.add (local.get $acc)
                (f32x4.mul (f32x4.convert_i32x4_s (i32x4.extend_high_i16x8_s (local.get $b))) (v128.load offset=16 (local.get $at)))))
            (local.set $k (i32.add (local.get $k) (i32.const 8)))
            (br $each_8)))
        (f32.store
          (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
            (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc)))))
        (local.set $row (i32.add (local.get $row) (i32.shl (local.get $dims) (i32.const 1))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each_row)))))
