//! The trainer's view of the core's detector: the very files the core
//! carries (`src/page/addressed/learned.rs` and the `fold.rs` it reads
//! characters with), so that features at training and at run time cannot
//! drift; and a timing hook for the Wasm build.

/// The core's fold of a character as a person reads it, which the model's
/// features use.
#[path = "../../src/page/addressed/fold.rs"]
#[allow(dead_code)]
mod fold;
#[path = "../../src/page/addressed/learned.rs"]
mod learned;
pub use learned::*;

/// A measuring hook for the Wasm build only (`detector/wasm-time.mjs`): the
/// committed weights, and one text scored. Not what the core would export.
#[cfg(target_arch = "wasm32")]
mod wasm_time {
    use super::Weights;
    static WEIGHTS: &[u8] = include_bytes!("../../src/page/addressed/learned.bin");

    #[no_mangle]
    pub extern "C" fn text_buffer(len: usize) -> *mut u8 {
        let mut v = vec![0_u8; len];
        let p = v.as_mut_ptr();
        std::mem::forget(v);
        p
    }

    /// The best window's score of the UTF-8 text at `ptr`.
    #[no_mangle]
    pub extern "C" fn best_score(ptr: *const u8, len: usize) -> f64 {
        let bytes = unsafe { std::slice::from_raw_parts(ptr, len) };
        let text = std::str::from_utf8(bytes).unwrap_or("");
        let model = Weights::parse(WEIGHTS).expect("weights");
        model.best(text).map_or(f64::NEG_INFINITY, |b| b.score)
    }
}
