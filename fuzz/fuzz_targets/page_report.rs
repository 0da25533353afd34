//! The page-report reader: a content script's message (`FromPage`), read as
//! the worker reads it, applied to a registry, stored and loaded again.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    toolgate_fuzz::page_report(text);
});
