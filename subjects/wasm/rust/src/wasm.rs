//! The page's WebAssembly module (wasm-bindgen), in the two ways a kernel can meet its data:
//!
//! - as the study called it: the filters take `&mut [u8]` (wasm-bindgen's glue copies the
//!   image into wasm memory and back around every call) and the worker kernels read a JS
//!   `Float64Array` one element at a time (`get_index`, a call out of wasm per element);
//! - over a buffer that lives in wasm memory ([`Image`], [`Floats`]): the page copies its data
//!   in once, timed apart, and each call is the kernel alone.

use js_sys::Float64Array;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub fn grayscale(data: &mut [u8]) {
    crate::grayscale(data);
}

#[wasm_bindgen]
pub fn brightness(data: &mut [u8], amount: i32) {
    crate::brightness(data, amount);
}

#[wasm_bindgen]
pub fn contrast(data: &mut [u8], factor: f32) {
    crate::contrast(data, factor);
}

#[wasm_bindgen]
pub fn blur(data: &mut [u8], width: usize, height: usize, radius: usize) {
    crate::blur(data, width, height, radius);
}

/// Listing 5.11 as the study wrote it: one `get_index` call per element.
#[wasm_bindgen]
pub fn small_per_element(data: &Float64Array) -> f64 {
    let mut sum = 0.0;
    for i in 0..data.length() {
        sum += crate::small_step(data.get_index(i));
    }
    sum
}

/// Listing 5.12 as the study wrote it: one `get_index` call per element.
#[wasm_bindgen]
pub fn large_per_element(data: &Float64Array) -> f64 {
    let mut state = crate::Logistic::new();
    let mut acc = 0.0;
    for i in 0..data.length() {
        acc += state.step(data.get_index(i));
    }
    acc
}

/// An RGBA image in wasm memory: the page writes it through a view at [`Image::ptr`].
#[wasm_bindgen]
pub struct Image {
    data: Vec<u8>,
    width: usize,
    height: usize,
}

#[wasm_bindgen]
impl Image {
    #[wasm_bindgen(constructor)]
    pub fn new(width: usize, height: usize) -> Image {
        Image { data: vec![0; width * height * 4], width, height }
    }

    pub fn ptr(&self) -> *const u8 {
        self.data.as_ptr()
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Applies a filter by name (`grayscale`, `brightness`, `contrast`, `blur`) in place.
    pub fn filter(&mut self, name: &str) -> Result<(), JsError> {
        crate::filter(name, &mut self.data, self.width, self.height)
            .ok_or_else(|| JsError::new(&format!("unknown filter `{name}`")))
    }
}

/// A `Float64Array`'s worth of doubles in wasm memory.
#[wasm_bindgen]
pub struct Floats {
    data: Vec<f64>,
}

#[wasm_bindgen]
impl Floats {
    #[wasm_bindgen(constructor)]
    pub fn new(len: usize) -> Floats {
        Floats { data: vec![0.0; len] }
    }

    pub fn ptr(&self) -> *const f64 {
        self.data.as_ptr()
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn small(&self) -> f64 {
        crate::small(&self.data)
    }

    pub fn large(&self) -> f64 {
        crate::large(&self.data)
    }
}
