//! Native microbenchmarks of an agent's arguments' check (issue 37), with
//! criterion: `Plan::steps`, the count a check runs before the validator,
//! which matches each text its patterns are charged for
//! (src/page/schema/pattern/search.rs), on honest calls:
//!
//! - `schema/count, an email`: one string against
//!   `^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$`;
//! - `schema/count, a date`: one string against a date pattern;
//! - `schema/count, 300 tags`: 300 words, accents among them, against
//!   `^\p{L}{1,20}$` (figure 13's `tags`);
//! - `schema/count, 500 characters`: 500 "é" against `^.{0,500}$`, the
//!   costliest honest shape for a lazy DFA (a state for each byte);
//! - `schema/count, a wide repetition refused`: 16,000 "a" against
//!   `a{0,2000}b`, refused as too costly (the Pike VM took 1.0-2.6 s in the
//!   worker before).
//!
//! Each count is a check of its own, so the lazy DFA's states are built anew
//! each time, as in the worker. Run with `cargo bench --bench schema`; under
//! `cargo test` each runs once, untimed.

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use std::hint::black_box;
use std::time::Duration;
use toolgate::page::schema::Plan;

fn string(pattern: &str) -> Value {
    json!({"type": "object", "properties": {"v": {"type": "string", "pattern": pattern}}})
}

fn bench_count(c: &mut Criterion) {
    let tags = json!({"type": "object", "properties": {"tags": {"type": "array",
        "items": {"type": "string", "pattern": "^\\p{L}{1,20}$"}}}});
    let words: Vec<Value> = (0..300)
        .map(|i| json!(format!("mot{}", "é".repeat(i % 12))))
        .collect();
    let cases = [
        (
            "count, an email",
            string("^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$"),
            json!({"v": "someone.else@example.co.uk"}),
        ),
        (
            "count, a date",
            string("^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$"),
            json!({"v": "2026-12-04"}),
        ),
        ("count, 300 tags", tags, json!({ "tags": words })),
        (
            "count, 500 characters",
            string("^.{0,500}$"),
            json!({"v": "é".repeat(500)}),
        ),
        (
            "count, a wide repetition refused",
            string("a{0,2000}b"),
            json!({"v": "a".repeat(16_000)}),
        ),
    ];
    let mut group = c.benchmark_group("schema");
    for (name, schema, arguments) in cases {
        let plan = Plan::read(&schema).expect("an honest schema");
        group.bench_function(name, |b| {
            b.iter(|| black_box(plan.steps(black_box(&schema), black_box(&arguments))))
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .without_plots()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_count
}
criterion_main!(benches);
