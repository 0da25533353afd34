//! The decision engine: random sequences of page events, agent requests,
//! card answers, closed windows, outcomes and worker restarts, checked
//! against a model of what the person allowed (`toolgate_fuzz::decisions`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|script: toolgate_fuzz::decisions::Script| {
    toolgate_fuzz::decisions::run(&script);
});
