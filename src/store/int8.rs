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
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        dot_i8_lanes(a, b)
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

/// Dot product of f32 values with int8 codes (the codes' scale not applied); only the
/// shortlist is rescored with it.
pub fn dot_f32_i8(values: &[f32], codes: &[i8]) -> f32 {
    values
        .iter()
        .zip(codes)
        .map(|(v, c)| v * f32::from(*c))
        .sum()
}
