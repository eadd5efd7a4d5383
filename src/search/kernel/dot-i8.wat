;; The vector leg's inner loop (src/search/kernel/dot-i8.ts): int8 dot
;; products of one query against every row of a matrix, with 128-bit SIMD.
;; `npm run generate` compiles this file into dot-i8.wasm.ts (wabt, a dev
;; dependency); the package ships only that.
;;
;; dots(query, matrix, rows, dims, out):
;;   query: dims int16 values (an int8 query widened once, 2 bytes each)
;;   matrix: rows × dims int8 values, row after row
;;   out: rows int32 values, out[r] = Σ_k query[k] · matrix[r·dims + k]
;; dims is a multiple of 16, and every address is 16-byte aligned. The sum
;; fits an int32: |query[k]|, |matrix[…]| ≤ 127 and dims ≤ 4096 give at most
;; 127 · 127 · 4096 = 66,064,384.
(module
  (memory (export "memory") 1)
  (func (export "dots") (param $q i32) (param $m i32) (param $rows i32) (param $dims i32) (param $out i32)
    (local $r i32) (local $k i32) (local $row i32) (local $b v128) (local $acc v128)
    (local.set $row (local.get $m))
    (block $done
      (loop $each_row
        (br_if $done (i32.ge_u (local.get $r) (local.get $rows)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $k (i32.const 0))
        (block $row_done
          (loop $each_16
            (br_if $row_done (i32.ge_u (local.get $k) (local.get $dims)))
            ;; 16 int8 of the row, widened to two int16x8 halves, each dotted with 8 int16 of the query
            (local.set $b (v128.load (i32.add (local.get $row) (local.get $k))))
            (local.set $acc
              (i32x4.add (local.get $acc)
                (i32x4.dot_i16x8_s
                  (i16x8.extend_low_i8x16_s (local.get $b))
                  (v128.load (i32.add (local.get $q) (i32.shl (local.get $k) (i32.const 1)))))))
            (local.set $acc
              (i32x4.add (local.get $acc)
                (i32x4.dot_i16x8_s
                  (i16x8.extend_high_i8x16_s (local.get $b))
                  (v128.load offset=16 (i32.add (local.get $q) (i32.shl (local.get $k) (i32.const 1)))))))
            (local.set $k (i32.add (local.get $k) (i32.const 16)))
            (br $each_16)))
        (i32.store
          (i32.add (local.get $out) (i32.shl (local.get $r) (i32.const 2)))
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $row (i32.add (local.get $row) (local.get $dims)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $each_row)))))
