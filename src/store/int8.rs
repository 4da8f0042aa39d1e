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
        .map(|v| (v / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    Quantized { codes, scale }
}

/// Integer dot product of two code vectors; |sum| ≤ 127² × dim fits an i32 for any dimension
/// an embedder has. In a wasm build with simd128 (the npm package and the Worker) it is written
/// with the SIMD instructions themselves: the package is compiled for size (opt-level "s"),
/// where LLVM does not vectorise loops, and the plain loop scanned 100k vectors ~5× slower
/// than natively (docs/BENCHMARKS.md, "npm").
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd128::dot_i8(a, b)
    }
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        return avx2::dot(a, b);
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        dot_i8_lanes(a, b)
    }
}

/// The dot product of `query` with each row of `rows` (consecutive rows of `query.len()`
/// codes), into `out` (one per whole row; `out` at least that long). What a full scan runs:
/// natively with AVX2 one feature check for all the rows.
pub fn dot_rows(rows: &[i8], query: &[i8], out: &mut [i32]) {
    if query.is_empty() {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        return avx2::dot_rows(rows, query, out);
    }
    for (row, dot) in rows.chunks_exact(query.len()).zip(out) {
        *dot = dot_i8(row, query);
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

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::*;

    /// Sixteen codes at a time: products widened to i16 (127² fits), summed pairwise into
    /// four i32 lanes; the tail as in [`super::dot_i8_lanes`].
    pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
        let len = a.len().min(b.len());
        let whole = len - len % 16;
        let mut acc = i32x4_splat(0);
        let mut at = 0;
        while at < whole {
            // SAFETY: `at + 16 <= whole <= len` of both slices; v128_load reads 16 bytes
            // unaligned, which wasm allows.
            let (x, y) = unsafe {
                (
                    v128_load(a.as_ptr().add(at) as *const v128),
                    v128_load(b.as_ptr().add(at) as *const v128),
                )
            };
            let low = i16x8_extmul_low_i8x16(x, y);
            let high = i16x8_extmul_high_i8x16(x, y);
            acc = i32x4_add(acc, i32x4_extadd_pairwise_i16x8(low));
            acc = i32x4_add(acc, i32x4_extadd_pairwise_i16x8(high));
            at += 16;
        }
        let lanes = i32x4_extract_lane::<0>(acc)
            + i32x4_extract_lane::<1>(acc)
            + i32x4_extract_lane::<2>(acc)
            + i32x4_extract_lane::<3>(acc);
        let tail: i32 = a[whole..len]
            .iter()
            .zip(&b[whole..len])
            .map(|(x, y)| i32::from(*x) * i32::from(*y))
            .sum();
        lanes + tail
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

    /// [`super::dot_rows`]; the caller has checked [`available`].
    pub fn dot_rows(rows: &[i8], query: &[i8], out: &mut [i32]) {
        // SAFETY: AVX2 is present (checked by the caller).
        unsafe { dot_rows_avx2(rows, query, out) }
    }

    /// [`super::dot_i8`] of two slices of one length; the caller has checked [`available`].
    pub fn dot(a: &[i8], b: &[i8]) -> i32 {
        // SAFETY: AVX2 is present (checked by the caller).
        unsafe { dot_avx2(a, b) }
    }

    #[target_feature(enable = "avx2")]
    fn dot_rows_avx2(rows: &[i8], query: &[i8], out: &mut [i32]) {
        for (row, dot) in rows.chunks_exact(query.len()).zip(out) {
            *dot = dot_avx2(row, query);
        }
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
        let sum = _mm256_add_epi32(even, odd);
        let sum = _mm_add_epi32(
            _mm256_castsi256_si128(sum),
            _mm256_extracti128_si256(sum, 1),
        );
        let sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0b01_00_11_10));
        let sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0b10_11_00_01));
        let tail: i32 = a[whole..len]
            .iter()
            .zip(&b[whole..len])
            .map(|(x, y)| i32::from(*x) * i32::from(*y))
            .sum();
        _mm_cvtsi128_si32(sum) + tail
    }
}

/// Dot product of f32 values with int8 codes (the codes' scale not applied); only the
/// shortlist is rescored with it.
pub fn dot_f32_i8(values: &[f32], codes: &[i8]) -> f32 {
    values
        .iter()
        .zip(codes)
        .map(|(v, c)| v * f32::from(*c))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

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
            dot_rows(&rows, &query, &mut out);
            for (r, row) in rows.chunks_exact(dim).enumerate() {
                assert_eq!(out[r], plain(row, &query), "dim {dim}, row {r}");
                assert_eq!(
                    dot_i8(row, &query),
                    plain(row, &query),
                    "dim {dim}, row {r}"
                );
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
            dot_rows(&row, &query, &mut out);
            assert_eq!(out[0], i32::from(x) * i32::from(y) * 4096);
            assert_eq!(dot_i8(&row, &query), out[0]);
        }
        // Slices of different lengths: the shorter one's length counts.
        assert_eq!(dot_i8(&[3; 40], &[-2; 33]), -6 * 33);
        dot_rows(&[1, 2, 3], &[], &mut []);
    }
}
