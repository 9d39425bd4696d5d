//! The kernels of section 5.10 of "Ways to optimize web applications", written once: four
//! Canvas filters on an RGBA image (Listing 5.13) and the two Web Worker kernels over a
//! `Float64Array` (Listings 5.11 and 5.12), plus the inputs every build starts from and the
//! checksums every build must reproduce before its time counts.
//!
//! The same source builds natively (the reference rows, `wasm-kernels-native`) and to wasm32
//! (`wasm.rs`, the page's module). `subjects/wasm/js/kernels.ts` is the hand-written
//! JavaScript; `reference.json` holds this crate's checksums for the page to compare with.

#[cfg(target_arch = "wasm32")]
pub mod wasm;

/// The study's multiplier for the inputs: Knuth's multiplicative hash.
const HASH: u32 = 2_654_435_761;

/// The test image: RGBA, red a horizontal ramp, green a vertical one, blue hashed noise, alpha
/// opaque. Integer arithmetic only, so JavaScript makes the same bytes.
pub fn image(width: usize, height: usize) -> Vec<u8> {
    let mut data = vec![0u8; width * height * 4];
    for y in 0..height {
        for x in 0..width {
            let i = (y * width + x) * 4;
            data[i] = (x * 255 / (width - 1).max(1)) as u8;
            data[i + 1] = (y * 255 / (height - 1).max(1)) as u8;
            data[i + 2] = ((y * width + x) as u32).wrapping_mul(HASH).wrapping_shr(24) as u8;
            data[i + 3] = 255;
        }
    }
    data
}

/// The worker kernels' input: `len` values in [0, 10), one multiplication and one division
/// each, exact in any IEEE 754 double arithmetic.
pub fn array(len: usize) -> Vec<f64> {
    (0..len).map(|i| f64::from((i as u32).wrapping_mul(HASH)) / 4_294_967_296.0 * 10.0).collect()
}

/// Listing 5.13: luma with the study's integer weights.
pub fn grayscale(data: &mut [u8]) {
    for px in data.chunks_exact_mut(4) {
        let (r, g, b) = (u32::from(px[0]), u32::from(px[1]), u32::from(px[2]));
        let gray = ((299 * r + 587 * g + 114 * b) / 1000) as u8;
        px[0] = gray;
        px[1] = gray;
        px[2] = gray;
    }
}

/// Listing 5.13: adds `amount` to each colour channel, clamped to 0..=255.
pub fn brightness(data: &mut [u8], amount: i32) {
    for px in data.chunks_exact_mut(4) {
        for c in &mut px[..3] {
            *c = (i32::from(*c) + amount).clamp(0, 255) as u8;
        }
    }
}

/// Listing 5.13: the usual contrast factor, in f32 as the study wrote it (JavaScript rounds
/// each step to f32 with `Math.fround` to make the same bytes).
pub fn contrast(data: &mut [u8], factor: f32) {
    let f = (259.0 * (factor + 255.0)) / (255.0 * (259.0 - factor));
    for px in data.chunks_exact_mut(4) {
        for c in &mut px[..3] {
            *c = (f * (f32::from(*c) - 128.0) + 128.0).clamp(0.0, 255.0) as u8;
        }
    }
}

/// Listing 5.13: the naive box blur, O(pixels × (2r + 1)²), over a copy of the input; the
/// window is cut at the edges.
pub fn blur(data: &mut [u8], width: usize, height: usize, radius: usize) {
    let src = data.to_vec();
    for y in 0..height {
        let (y0, y1) = (y.saturating_sub(radius), (y + radius + 1).min(height));
        for x in 0..width {
            let (x0, x1) = (x.saturating_sub(radius), (x + radius + 1).min(width));
            let (mut r, mut g, mut b) = (0u32, 0u32, 0u32);
            for ny in y0..y1 {
                for nx in x0..x1 {
                    let i = (ny * width + nx) * 4;
                    r += u32::from(src[i]);
                    g += u32::from(src[i + 1]);
                    b += u32::from(src[i + 2]);
                }
            }
            let count = ((y1 - y0) * (x1 - x0)) as u32;
            let i = (y * width + x) * 4;
            data[i] = (r / count) as u8;
            data[i + 1] = (g / count) as u8;
            data[i + 2] = (b / count) as u8;
        }
    }
}

/// Listing 5.11, the light worker kernel: Σ sqrt(x)·ln(x + 1).
pub fn small(data: &[f64]) -> f64 {
    data.iter().fold(0.0, |sum, &x| sum + small_step(x))
}

/// One element of [`small`] (the per-element builds call it between boundary crossings).
#[inline(always)]
pub fn small_step(x: f64) -> f64 {
    x.sqrt() * (x + 1.0).ln()
}

/// Listing 5.12, the heavy worker kernel: two logistic-map steps per element, then
/// ln(sqrt(x² + y²)).
pub fn large(data: &[f64]) -> f64 {
    let mut state = Logistic::new();
    data.iter().fold(0.0, |acc, &v| acc + state.step(v))
}

/// The state [`large`] carries from element to element.
pub struct Logistic {
    seed: f64,
}

impl Logistic {
    pub fn new() -> Self {
        Logistic { seed: 0.123_456_789 }
    }

    #[inline(always)]
    pub fn step(&mut self, v: f64) -> f64 {
        self.seed = self.seed * 3.999_999 - self.seed * self.seed;
        let x = self.seed + v;
        self.seed = self.seed * 3.999_999 - self.seed * self.seed;
        let y = self.seed + v;
        (x * x + y * y).sqrt().ln()
    }
}

impl Default for Logistic {
    fn default() -> Self {
        Self::new()
    }
}

/// The filters' parameters the study left out, stated once for every build.
pub const BRIGHTNESS: i32 = 40;
pub const CONTRAST: f32 = 60.0;
pub const BLUR_RADIUS: usize = 2;

/// FNV-1a, 32 bits, over an image's bytes: what the page compares before timing.
pub fn checksum(data: &[u8]) -> u32 {
    data.iter().fold(0x811c_9dc5, |h: u32, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

/// One named filter applied to an image: the kernels by their ids in the suite.
pub fn filter(name: &str, data: &mut [u8], width: usize, height: usize) -> Option<()> {
    match name {
        "grayscale" => grayscale(data),
        "brightness" => brightness(data, BRIGHTNESS),
        "contrast" => contrast(data, CONTRAST),
        "blur" => blur(data, width, height, BLUR_RADIUS),
        _ => return None,
    }
    Some(())
}

pub const FILTERS: [&str; 4] = ["grayscale", "brightness", "contrast", "blur"];
pub const WORKER_KERNELS: [&str; 2] = ["small", "large"];

/// The inputs' sizes of a profile: the study's 4K image; the array length it did not give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    pub width: usize,
    pub height: usize,
    /// The worker kernels' `Float64Array` length.
    pub len: usize,
}

impl Sizes {
    pub fn of(profile: &str) -> Option<Sizes> {
        match profile {
            "smoke" => Some(Sizes { width: 384, height: 216, len: 100_000 }),
            "quick" | "full" => Some(Sizes { width: 3840, height: 2160, len: 1_000_000 }),
            _ => None,
        }
    }
}

/// Every kernel's result on a profile's inputs, natively: the filtered image's [`checksum`]
/// (exact for every build) or the worker kernel's sum (within a relative 1e-9: `ln` may differ
/// in its last bit between libm, wasm's and V8's).
pub fn checksums(sizes: &Sizes) -> std::collections::BTreeMap<&'static str, f64> {
    let image = image(sizes.width, sizes.height);
    let array = array(sizes.len);
    let mut out = std::collections::BTreeMap::new();
    for name in FILTERS {
        let mut data = image.clone();
        filter(name, &mut data, sizes.width, sizes.height);
        out.insert(name, f64::from(checksum(&data)));
    }
    out.insert("small", small(&array));
    out.insert("large", large(&array));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_do_what_the_listing_says_on_one_pixel() {
        let px = || vec![200u8, 100, 10, 255];
        let mut d = px();
        grayscale(&mut d);
        assert_eq!(d, [119, 119, 119, 255], "(299·200 + 587·100 + 114·10) / 1000 = 119");
        let mut d = px();
        brightness(&mut d, 100);
        assert_eq!(d, [255, 200, 110, 255], "clamped at 255, alpha untouched");
        let mut d = px();
        contrast(&mut d, 0.0);
        assert_eq!(d, [200, 100, 10, 255], "factor 0 changes nothing");
        contrast(&mut d, 255.0);
        assert_eq!(d, [255, 0, 0, 255], "factor 255 thresholds at 128");
    }

    #[test]
    fn blur_averages_the_window_cut_at_the_edges() {
        // 3×1 image, radius 1: the middle pixel averages all three, the ends two each.
        let mut d = vec![0, 0, 0, 255, 30, 60, 90, 255, 60, 0, 0, 255];
        blur(&mut d, 3, 1, 1);
        assert_eq!(d, [15, 30, 45, 255, 30, 20, 30, 255, 45, 30, 45, 255]);
        let mut flat = vec![7u8; 5 * 4 * 4];
        blur(&mut flat, 5, 4, 2);
        assert!(flat.iter().all(|&b| b == 7), "a flat image stays flat");
    }

    #[test]
    fn worker_kernels_sum_their_steps() {
        assert_eq!(small(&[0.0, 3.0]), 3f64.sqrt() * 4f64.ln());
        let data = array(1000);
        let mut state = Logistic::new();
        let by_hand: f64 = data.iter().map(|&v| state.step(v)).sum();
        assert_eq!(large(&data), by_hand);
        assert!(large(&data).is_finite());
    }

    #[test]
    fn inputs_are_deterministic_and_in_range() {
        assert_eq!(array(5), array(5));
        assert!(array(10_000).iter().all(|&x| (0.0..10.0).contains(&x)));
        let img = image(4, 3);
        assert_eq!(&img[..4], &[0, 0, 0, 255]);
        assert_eq!(img[11 * 4..][..2], [255, 255], "the last pixel has both ramps at 255");
        assert_ne!(checksum(&image(64, 64)), checksum(&image(64, 63)));
    }
}
