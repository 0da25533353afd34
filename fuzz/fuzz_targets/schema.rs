//! Schemas and arguments checked as an agent's call is (fuzz/src/schema.rs):
//! a check passes, refuses with problems, or refuses as too costly, never
//! runs a tool unchecked, and a check that passed was counted within the
//! budget.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| toolgate_fuzz::schema::schema_check(data));
