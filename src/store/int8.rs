//! Int8 vector codes: one signed byte per dimension and a scale per vector, and the integer
//! dot products the in-memory index scans with ([`super::vectors`]) and its partition's cells
//! are chosen by ([`super::partition`]).

/// A vector as one signed byte per dimension: `value ≈ code × scale`.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantized {
    pub codes: Vec<i8>,
    pub scale: f32,
}

/// Symmetric int8 quantisation with one scale per vector (its largest magnitude maps to 127).
pub fn quantize(values: &[f32]) -> Quantized {
    let max = values.iter().fold(0f32, |m, v| m.max(v.abs()));
    if max == 0.0 || !max.is_finite() {
        return Quantized {
            codes: vec![0; values.len()],
            scale: 0.0,
        };
    }
    let scale = max / 127.0;
    let codes = values
        .iter()
        .map(|v| round_half_even(v / scale).clamp(-127.0, 127.0) as i8)
        .collect();
    Quantized { codes, scale }
}

/// `x` rounded to the nearest integer, ties to even, by the float unit's own rounding: adding
/// and taking away 1.5 × 2²³ leaves no fraction bits, exact for |x| < 2²² (codes are within
/// ±127). `f32::round` is a library call natively and in wasm: it was half of quantising,
/// which every import, upsert and look-up does per dimension.
fn round_half_even(x: f32) -> f32 {
    const SHIFT: f32 = 12_582_912.0;
    (x + SHIFT) - SHIFT
}

/// Integer dot product of two code vectors; |sum| ≤ 128² × dim fits an i32 for any dimension
/// an embedder has. What scans call is [`Query`] (the query prepared once); this is for the
/// one-off products (a centroid's own norm) and natively the kernel a [`Query`] runs.
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return Query::new(b).dot(a);
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        return avx2::dot(a, b);
    }
    #[allow(unreachable_code)]
    dot_i8_lanes(a, b)
}

/// A query's codes prepared once for the many rows a look-up scores. In a wasm build with
/// simd128 (the npm package and the Worker) the codes are widened to i16 here, so that a row
/// costs one widening of its own codes and a `i32x4.dot_i16x8_s` (V8: `pmaddwd`) per eight
/// codes: the package is compiled for size (opt-level "s"), where LLVM does not vectorise
/// loops, and the plain loop scanned 100k vectors ~5× slower than natively; widening both
/// sides per row cost the scan a quarter to a third more (docs/BENCHMARKS.md, "The package's
/// scan kernel").
pub struct Query<'a> {
    codes: &'a [i8],
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    wide: Vec<core::arch::wasm32::v128>,
    /// Natively with AVX2, the codes as i16 (empty without AVX2): a row's sixteen codes then
    /// cost one widening, not two. Widening is a shuffle, and x86 cores run shuffles on one
    /// port: two per sixteen codes bound the scan (~44 cycles a 384-code row).
    #[cfg(target_arch = "x86_64")]
    wide: Vec<i16>,
}

impl<'a> Query<'a> {
    pub fn new(codes: &'a [i8]) -> Self {
        Self {
            codes,
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            wide: simd128::widen(codes),
            #[cfg(target_arch = "x86_64")]
            wide: match avx2::available() {
                true => codes.iter().map(|&c| i16::from(c)).collect(),
                false => Vec::new(),
            },
        }
    }

    /// The dot product with one row (the shorter length counts).
    pub fn dot(&self, row: &[i8]) -> i32 {
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return simd128::dot(row, self.codes, &self.wide);
        #[allow(unreachable_code)]
        dot_i8(row, self.codes)
    }

    /// The dot product with each row of `rows` (consecutive rows of the query's length), into
    /// `out` (one per whole row; `out` at least that long). What a full scan runs: natively
    /// with AVX2 one feature check for all the rows, in wasm a pointer loop over the rows.
    pub fn dot_rows(&self, rows: &[i8], out: &mut [i32]) {
        let dim = self.codes.len();
        if dim == 0 {
            return;
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return simd128::dot_rows(rows, self.codes, &self.wide, out);
        #[cfg(target_arch = "x86_64")]
        if self.wide.len() == dim {
            return avx2::dot_rows(rows, &self.wide, out);
        }
        #[allow(unreachable_code)]
        for (row, dot) in rows.chunks_exact(dim).zip(out) {
            *dot = dot_i8_lanes(row, self.codes);
        }
    }
}

/// [`dot_i8`] in sixteen independent lanes, which compilers optimising for speed turn into
/// SIMD multiply-adds (SSE2 natively; a plain sum scanned 100k vectors in ~8 ms natively
/// instead of ~4.5).
#[cfg_attr(
    all(target_arch = "wasm32", target_feature = "simd128"),
    allow(dead_code)
)]
fn dot_i8_lanes(a: &[i8], b: &[i8]) -> i32 {
    let mut acc = [0i32; 16];
    let (a_chunks, b_chunks) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: i32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for i in 0..16 {
            acc[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    acc.iter().sum::<i32>() + tail
}

/// Plain loops over pointers: at opt-level "s" an iterator adapter per row stays a call,
/// which cost about as much as the row's arithmetic.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::*;

    /// The query's whole sixteen-code chunks as i16: two vectors per chunk.
    pub fn widen(codes: &[i8]) -> Vec<v128> {
        let whole = codes.len() - codes.len() % 16;
        let mut wide = Vec::with_capacity(whole / 8);
        let mut at = 0;
        while at < whole {
            // SAFETY: `at + 16 <= whole <= len`; unaligned loads are allowed.
            let q = unsafe { v128_load(codes.as_ptr().add(at) as *const v128) };
            wide.push(i16x8_extend_low_i8x16(q));
            wide.push(i16x8_extend_high_i8x16(q));
            at += 16;
        }
        wide
    }

    /// One row; `wide` is [`widen`] of `codes`. Inlined into the scan's loop over rows: a
    /// call per row cost a few percent of a retrieval at 100k.
    #[inline(always)]
    pub fn dot(row: &[i8], codes: &[i8], wide: &[v128]) -> i32 {
        let len = row.len().min(codes.len());
        let whole = len - len % 16;
        let mut acc = i32x4_splat(0);
        let mut at = 0;
        while at < whole {
            // SAFETY: `at + 16 <= whole <= row.len()`; `wide` has two vectors per whole
            // chunk of `codes` (at least `len` long), so `at / 8 + 1` is in it.
            unsafe {
                let x = v128_load(row.as_ptr().add(at) as *const v128);
                let q = wide.as_ptr().add(at / 8);
                let low = i32x4_dot_i16x8(i16x8_extend_low_i8x16(x), *q);
                let high = i32x4_dot_i16x8(i16x8_extend_high_i8x16(x), *q.add(1));
                acc = i32x4_add(acc, i32x4_add(low, high));
            }
            at += 16;
        }
        let mut sum = i32x4_extract_lane::<0>(acc)
            + i32x4_extract_lane::<1>(acc)
            + i32x4_extract_lane::<2>(acc)
            + i32x4_extract_lane::<3>(acc);
        for i in whole..len {
            sum += i32::from(row[i]) * i32::from(codes[i]);
        }
        sum
    }

    /// [`super::dot_f32_i8`] of two slices of one length, in its eight lanes (as
    /// [`crate::retrieval::embed::simd128`]: bit for bit the plain loop's sum).
    pub fn dot_f32_i8(values: &[f32], codes: &[i8]) -> f32 {
        let whole = values.len() - values.len() % 8;
        let (mut low, mut high) = (f32x4_splat(0.0), f32x4_splat(0.0));
        let mut at = 0;
        while at < whole {
            // SAFETY: `at + 8 <= whole <= len` of both; unaligned loads are allowed.
            unsafe {
                let c = i16x8_load_extend_i8x8(codes.as_ptr().add(at));
                let v = values.as_ptr().add(at) as *const v128;
                let (c_low, c_high) = (i32x4_extend_low_i16x8(c), i32x4_extend_high_i16x8(c));
                low = f32x4_add(low, f32x4_mul(v128_load(v), f32x4_convert_i32x4(c_low)));
                high = f32x4_add(
                    high,
                    f32x4_mul(v128_load(v.add(1)), f32x4_convert_i32x4(c_high)),
                );
            }
            at += 8;
        }
        let tail: f32 = values[whole..]
            .iter()
            .zip(&codes[whole..])
            .map(|(v, c)| v * f32::from(*c))
            .sum();
        crate::retrieval::embed::simd128::lanes_sum(low, high) + tail
    }

    /// Whole rows of `codes.len()`.
    pub fn dot_rows(rows: &[i8], codes: &[i8], wide: &[v128], out: &mut [i32]) {
        let dim = codes.len();
        let count = (rows.len() / dim).min(out.len());
        for (r, dot) in out[..count].iter_mut().enumerate() {
            *dot = self::dot(&rows[r * dim..(r + 1) * dim], codes, wide);
        }
    }
}

/// x86-64 with AVX2 (checked at run time: the native build targets baseline x86-64, whose
/// SSE2 loop scanned 100k rows in ~3.5 ms, more than half of a retrieval at 100k): codes widened
/// to i16 sixteen at a time and multiplied pairwise into i32 lanes (`vpmaddwd`), exact for
/// every i8.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    pub fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx2")
    }

    /// [`super::Query::dot_rows`] with the query's codes widened to i16; the caller has
    /// checked [`available`].
    pub fn dot_rows(rows: &[i8], query: &[i16], out: &mut [i32]) {
        // SAFETY: AVX2 is present (checked by the caller).
        unsafe { dot_rows_avx2(rows, query, out) }
    }

    /// [`super::dot_i8`] of two slices of one length; the caller has checked [`available`].
    pub fn dot(a: &[i8], b: &[i8]) -> i32 {
        // SAFETY: AVX2 is present (checked by the caller).
        unsafe { dot_avx2(a, b) }
    }

    #[target_feature(enable = "avx2")]
    fn dot_rows_avx2(rows: &[i8], query: &[i16], out: &mut [i32]) {
        let len = query.len();
        let whole = len - len % 16;
        for (row, dot) in rows.chunks_exact(len).zip(out) {
            // SAFETY: every `at` below is `+ 16 <= whole <= len` of both; unaligned loads.
            let row_wide = |at: usize| {
                _mm256_cvtepi8_epi16(unsafe { _mm_loadu_si128(row.as_ptr().add(at).cast()) })
            };
            let query_wide =
                |at: usize| unsafe { _mm256_loadu_si256(query.as_ptr().add(at).cast()) };
            let (mut even, mut odd) = (_mm256_setzero_si256(), _mm256_setzero_si256());
            let mut at = 0;
            while at + 32 <= whole {
                even = _mm256_add_epi32(even, _mm256_madd_epi16(row_wide(at), query_wide(at)));
                odd = _mm256_add_epi32(
                    odd,
                    _mm256_madd_epi16(row_wide(at + 16), query_wide(at + 16)),
                );
                at += 32;
            }
            if at < whole {
                even = _mm256_add_epi32(even, _mm256_madd_epi16(row_wide(at), query_wide(at)));
            }
            let tail: i32 = row[whole..]
                .iter()
                .zip(&query[whole..])
                .map(|(x, y)| i32::from(*x) * i32::from(*y))
                .sum();
            *dot = horizontal_sum(_mm256_add_epi32(even, odd)) + tail;
        }
    }

    /// The sum of a vector's eight i32 lanes.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn horizontal_sum(sum: __m256i) -> i32 {
        let sum = _mm_add_epi32(
            _mm256_castsi256_si128(sum),
            _mm256_extracti128_si256(sum, 1),
        );
        let sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0b01_00_11_10));
        let sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0b10_11_00_01));
        _mm_cvtsi128_si32(sum)
    }

    #[target_feature(enable = "avx2")]
    #[inline]
    fn dot_avx2(a: &[i8], b: &[i8]) -> i32 {
        let len = a.len().min(b.len());
        let whole = len - len % 16;
        let wide = |codes: &[i8], at: usize| {
            // SAFETY: every `at` below is `+ 16 <= whole <= len` of both; unaligned loads.
            _mm256_cvtepi8_epi16(unsafe { _mm_loadu_si128(codes.as_ptr().add(at).cast()) })
        };
        // Two accumulators: consecutive multiply-adds do not wait on each other.
        let (mut even, mut odd) = (_mm256_setzero_si256(), _mm256_setzero_si256());
        let mut at = 0;
        while at + 32 <= whole {
            even = _mm256_add_epi32(even, _mm256_madd_epi16(wide(a, at), wide(b, at)));
            odd = _mm256_add_epi32(odd, _mm256_madd_epi16(wide(a, at + 16), wide(b, at + 16)));
            at += 32;
        }
        if at < whole {
            even = _mm256_add_epi32(even, _mm256_madd_epi16(wide(a, at), wide(b, at)));
        }
        let tail: i32 = a[whole..len]
            .iter()
            .zip(&b[whole..len])
            .map(|(x, y)| i32::from(*x) * i32::from(*y))
            .sum();
        horizontal_sum(_mm256_add_epi32(even, odd)) + tail
    }
}

/// Dot product of f32 values with int8 codes (the codes' scale not applied); only the
/// shortlist is rescored with it. Eight independent sums, as [`crate::retrieval::embed::dot`]:
/// one serial chain of float adds (a `.sum()`) neither pipelines nor vectorises, and each
/// conflict look-up rescores 32 rows.
pub fn dot_f32_i8(values: &[f32], codes: &[i8]) -> f32 {
    let n = values.len().min(codes.len());
    let (values, codes) = (&values[..n], &codes[..n]);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return simd128::dot_f32_i8(values, codes);
    #[allow(unreachable_code)]
    let mut acc = [0.0f32; 8];
    let (value_chunks, code_chunks) = (values.chunks_exact(8), codes.chunks_exact(8));
    let tail: f32 = value_chunks
        .remainder()
        .iter()
        .zip(code_chunks.remainder())
        .map(|(v, c)| v * f32::from(*c))
        .sum();
    for (v, c) in value_chunks.zip(code_chunks) {
        for i in 0..8 {
            acc[i] += v[i] * f32::from(c[i]);
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_to_the_nearest_code_with_ties_to_even() {
        for (x, want) in [
            (0.0, 0.0),
            (0.49999997, 0.0),
            (0.5, 0.0),
            (0.50000006, 1.0),
            (1.5, 2.0),
            (2.5, 2.0),
            (-0.5, -0.0),
            (-1.5, -2.0),
            (-2.5, -2.0),
            (126.6, 127.0),
            (-127.0, -127.0),
            (3.0, 3.0),
        ] {
            assert_eq!(round_half_even(x), want, "{x}");
        }
        for i in -2_540_000..=2_540_000 {
            let x = i as f32 / 20_000.0;
            assert_eq!(round_half_even(x), x.round_ties_even(), "{x}");
        }
    }

    #[test]
    fn the_rescoring_product_is_the_plain_sum() {
        for (values_len, codes_len) in [
            (0, 0),
            (1, 1),
            (7, 7),
            (8, 8),
            (9, 9),
            (17, 25),
            (25, 17),
            (256, 256),
        ] {
            let values: Vec<f32> = (0..values_len)
                .map(|i| ((i * 7919) % 201) as f32 / 100.0 - 1.0)
                .collect();
            let codes: Vec<i8> = (0..codes_len)
                .map(|i| ((i * 37 + 3) % 256) as u8 as i8)
                .collect();
            let plain: f64 = values
                .iter()
                .zip(&codes)
                .map(|(v, c)| f64::from(*v) * f64::from(*c))
                .sum();
            let got = f64::from(dot_f32_i8(&values, &codes));
            assert!(
                (got - plain).abs() <= 1e-4 * plain.abs().max(1.0),
                "{values_len}/{codes_len}: {got} vs {plain}"
            );
        }
        let extremes = [i8::MIN, i8::MAX, -1, 0, 1];
        let codes: Vec<i8> = (0..64).map(|i| extremes[i % 5]).collect();
        assert_eq!(
            dot_f32_i8(&[1.0; 64], &codes),
            codes.iter().map(|c| f32::from(*c)).sum::<f32>()
        );
    }

    fn plain(a: &[i8], b: &[i8]) -> i32 {
        a.iter()
            .zip(b)
            .map(|(x, y)| i32::from(*x) * i32::from(*y))
            .sum()
    }

    fn codes(len: usize, seed: usize) -> Vec<i8> {
        (0..len)
            .map(|i| ((i * 37 + seed * 101 + 3) % 256) as u8 as i8)
            .collect()
    }

    /// Natively on x86-64 this is the AVX2 kernel (where the CPU has it): every dimension
    /// around its 16- and 32-code steps, rows of every length, and the extremes of i8.
    #[test]
    fn row_dots_match_the_plain_sum() {
        for dim in (1..=70).chain([255, 256, 257, 384]) {
            let query = codes(dim, 0);
            let rows: Vec<i8> = (0..5).flat_map(|r| codes(dim, r + 1)).collect();
            let mut out = vec![i32::MIN; 6];
            Query::new(&query).dot_rows(&rows, &mut out);
            for (r, row) in rows.chunks_exact(dim).enumerate() {
                assert_eq!(out[r], plain(row, &query), "dim {dim}, row {r}");
                assert_eq!(dot_i8(row, &query), out[r], "dim {dim}, row {r}");
                assert_eq!(Query::new(&query).dot(row), out[r], "dim {dim}, row {r}");
            }
            assert_eq!(out[5], i32::MIN, "only whole rows are written");
        }
        for (x, y) in [
            (127i8, 127i8),
            (-128, -128),
            (-128, 127),
            (127, -127),
            (0, -128),
        ] {
            let (row, query) = (vec![x; 4096], vec![y; 4096]);
            let mut out = [0];
            Query::new(&query).dot_rows(&row, &mut out);
            assert_eq!(out[0], i32::from(x) * i32::from(y) * 4096);
            assert_eq!(dot_i8(&row, &query), out[0]);
        }
        // Slices of different lengths: the shorter one's length counts.
        assert_eq!(dot_i8(&[3; 40], &[-2; 33]), -6 * 33);
        Query::new(&[]).dot_rows(&[1, 2, 3], &mut []);
    }
}
