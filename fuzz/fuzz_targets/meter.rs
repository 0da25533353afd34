//! The count against the real work (fuzz/src/meter.rs): a check takes at
//! most a fixed time a step it was charged.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| toolgate_fuzz::meter::meter(data));
