//! The declaration reader: a raw snapshot, as a page (or a page forging the
//! shim's messages) sends it, to a validated, classed declaration.
//! ARCHITECTURE.md, "Invariants": reading a declaration never fails but for
//! the spec's validation errors; anything else unreadable is Consequential.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The worker reads page text as a string.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    toolgate_fuzz::declaration(text);
});
