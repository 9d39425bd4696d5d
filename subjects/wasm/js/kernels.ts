/**
 * The kernels of section 5.10 of "Ways to optimize web applications" in plain TypeScript, as a
 * web developer would write them: the same arithmetic as ../rust/src/lib.rs, element for
 * element, so that both make the same bytes and (within rounding of `Math.log`) the same sums.
 * Contrast computes in f32 as the study's Rust did: each step rounded with `Math.fround`.
 */

const HASH = 2654435761;

/** The test image (RGBA): red a horizontal ramp, green a vertical one, blue hashed noise. */
export function image(width: number, height: number): Uint8ClampedArray {
  const data = new Uint8ClampedArray(width * height * 4);
  const wx = Math.max(width - 1, 1);
  const wy = Math.max(height - 1, 1);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = ((x * 255) / wx) | 0;
      data[i + 1] = ((y * 255) / wy) | 0;
      data[i + 2] = Math.imul(y * width + x, HASH) >>> 24;
      data[i + 3] = 255;
    }
  }
  return data;
}

/** The worker kernels' input: `len` values in [0, 10). */
export function array(len: number): Float64Array {
  const data = new Float64Array(len);
  for (let i = 0; i < len; i++) data[i] = ((Math.imul(i, HASH) >>> 0) / 4294967296) * 10;
  return data;
}

export function grayscale(data: Uint8ClampedArray): void {
  for (let i = 0; i < data.length; i += 4) {
    const gray = ((299 * data[i] + 587 * data[i + 1] + 114 * data[i + 2]) / 1000) | 0;
    data[i] = gray;
    data[i + 1] = gray;
    data[i + 2] = gray;
  }
}

export function brightness(data: Uint8ClampedArray, amount: number): void {
  // A Uint8ClampedArray clamps on store, as the Rust clamps before its cast.
  for (let i = 0; i < data.length; i += 4) {
    data[i] = data[i] + amount;
    data[i + 1] = data[i + 1] + amount;
    data[i + 2] = data[i + 2] + amount;
  }
}

export function contrast(data: Uint8ClampedArray, factor: number): void {
  const f = Math.fround(Math.fround(259 * Math.fround(factor + 255)) / Math.fround(255 * Math.fround(259 - factor)));
  const level = (c: number) => {
    const v = Math.fround(Math.fround(f * (c - 128)) + 128);
    return v <= 0 ? 0 : v >= 255 ? 255 : v | 0; // clamp, then truncate as Rust's `as u8`
  };
  for (let i = 0; i < data.length; i += 4) {
    data[i] = level(data[i]);
    data[i + 1] = level(data[i + 1]);
    data[i + 2] = level(data[i + 2]);
  }
}

export function blur(data: Uint8ClampedArray, width: number, height: number, radius: number): void {
  const src = data.slice();
  for (let y = 0; y < height; y++) {
    const y0 = Math.max(y - radius, 0);
    const y1 = Math.min(y + radius + 1, height);
    for (let x = 0; x < width; x++) {
      const x0 = Math.max(x - radius, 0);
      const x1 = Math.min(x + radius + 1, width);
      let r = 0;
      let g = 0;
      let b = 0;
      for (let ny = y0; ny < y1; ny++) {
        for (let nx = x0; nx < x1; nx++) {
          const i = (ny * width + nx) * 4;
          r += src[i];
          g += src[i + 1];
          b += src[i + 2];
        }
      }
      const count = (y1 - y0) * (x1 - x0);
      const i = (y * width + x) * 4;
      data[i] = (r / count) | 0;
      data[i + 1] = (g / count) | 0;
      data[i + 2] = (b / count) | 0;
    }
  }
}

/** Listing 5.11: Σ sqrt(x)·ln(x + 1). */
export function small(data: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < data.length; i++) {
    const x = data[i];
    sum += Math.sqrt(x) * Math.log(x + 1);
  }
  return sum;
}

/** Listing 5.12: two logistic-map steps per element, then ln(sqrt(x² + y²)). */
export function large(data: Float64Array): number {
  let acc = 0;
  let seed = 0.123456789;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    seed = seed * 3.999999 - seed * seed;
    const x = seed + v;
    seed = seed * 3.999999 - seed * seed;
    const y = seed + v;
    acc += Math.log(Math.sqrt(x * x + y * y));
  }
  return acc;
}

/** The parameters the study left out, as ../rust/src/lib.rs states them. */
export const BRIGHTNESS = 40;
export const CONTRAST = 60;
export const BLUR_RADIUS = 2;

export const FILTERS = ["grayscale", "brightness", "contrast", "blur"] as const;
export type Filter = (typeof FILTERS)[number];

export function filter(name: Filter, data: Uint8ClampedArray, width: number, height: number): void {
  if (name === "grayscale") grayscale(data);
  else if (name === "brightness") brightness(data, BRIGHTNESS);
  else if (name === "contrast") contrast(data, CONTRAST);
  else blur(data, width, height, BLUR_RADIUS);
}

/** FNV-1a, 32 bits, over an image's bytes (as `wasm_kernels::checksum`). */
export function checksum(data: ArrayLike<number>): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < data.length; i++) h = Math.imul(h ^ data[i], 0x01000193);
  return h >>> 0;
}
