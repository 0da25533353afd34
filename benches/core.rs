//! Native microbenchmarks of the core (issue 4), with criterion:
//!
//! - `classify/10000 declarations`: `Declaration::from_raw` + `classify` over
//!   a realistic mix of paths, hint combinations, schemas, skills, unreadable
//!   and refused snapshots;
//! - `registry/register 1000 tools`: one page event registering 1,000 tools,
//!   applied to an empty `Registry` (the effects, with each tool's stored
//!   entry, included);
//! - `registry/load 100 tabs x 50 tools`: `Registry::load` of stored tools
//!   and every tab read, as a worker does when a listing needs them all (a
//!   start alone reads none);
//! - `palette/1000 tools`: the palette of a tab of 1,000 tools (the mix
//!   above), as the popup asks for it on every poll;
//! - `decide/call among 500 always-allowed tools`: `Session::request` for
//!   `browser_call_webmcp_tool` on a tab publishing 500 tools, in a chat that
//!   answered "Always allow" for each of them;
//! - `decide/read-only call, request + finish`: the core's whole part of an
//!   agent call to a Read-only tool on a localhost tab of three tools (what
//!   figure 4 of the browser benchmark pays in the Wasm).
//! - `untrusted/honest result, 100 KB` and `… 1 MB`: `page::untrusted::untrusted`
//!   on the JSON text of a result of honest messages (ordinary words, a few
//!   accents, typographic apostrophes and line breaks, nothing addressed to
//!   the model), as `Session::finish` reads every result after a call
//!   (docs/cards.md, "After untrusted content"); the whole detector runs,
//!   since nothing in it is found; `… in Russian, 100 KB`: the same of
//!   Russian words, which the first look cannot clear, read string by string;
//! - `read/page report of 1000 tools`: the JSON text of one page report
//!   registering 1,000 tools (the mix above) read as a `FromPage`, as the
//!   service worker reads every report; `read/settings change` and
//!   `read/navigated`: a small message of the settings page (`FromUi`) and
//!   of the shell (`Event`).
//!
//! "A decision with 500 tools set apart" is about site rules, which are not
//! built yet. The closest decision the core makes today is the one benched
//! here — a call decided against 500 per-tool grants in the chat — and it is
//! where site rules will be decided too, so it is their baseline.
//!
//! Run with `cargo bench --bench core` (or `./build.sh bench`). Under
//! `cargo test` each benchmark runs once, untimed, so they keep working.
//! Inputs are built outside the timed routine (`iter_batched`), and what a
//! routine returns is dropped outside it too.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use serde_json::value::RawValue;
use serde_json::{json, Value};

use std::hint::black_box;
use std::time::Duration;
use toolgate::decisions::agent::{Session, Step, TabInfo, World};
use toolgate::decisions::answers::{CallAnswer, SiteAnswer, ToolFacts};
use toolgate::messages::{FromPage, FromUi};
use toolgate::page::classify::classify;
use toolgate::page::declaration::{Declaration, Kind, Path, RawDeclaration, RawHint};
use toolgate::page::registry::{Event, FrameRef, Op, Registry, StoredTool};

#[path = "../tests/common/mod.rs"]
mod common;
use toolgate::protocol::CALL_TOOL;
use toolgate::vecmap::VecMap;

/// A small deterministic generator (xorshift64*): the same inputs every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[(self.next() % items.len() as u64) as usize]
    }
}

/// Registration paths, weighted roughly as pages use them: mostly the draft's
/// object form, then the legacy API, forms and the rest.
const PATHS: [Path; 12] = [
    Path::DocumentObject,
    Path::DocumentObject,
    Path::DocumentObject,
    Path::DocumentObject,
    Path::DocumentObject,
    Path::NavigatorObject,
    Path::NavigatorObject,
    Path::Declarative,
    Path::DocumentPositional,
    Path::NavigatorPositional,
    Path::ProvideContext,
    Path::Unknown,
];

const CLASS_HINTS: [&str; 5] = [
    "readOnlyHint",
    "consequentialHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

const SCHEMAS: [&str; 4] = [
    r#"{"type":"object","properties":{}}"#,
    r#"{"type":"object","properties":{"id":{"type":"integer","minimum":1}},"required":["id"],"additionalProperties":false}"#,
    r#"{"type":"object","properties":{"query":{"type":"string","description":"What to look for","maxLength":200},"limit":{"type":"integer","minimum":1,"maximum":100},"tags":{"type":"array","items":{"type":"string"}}},"required":["query"]}"#,
    r#"{"type":"object","properties":{"title":{"type":"string"},"body":{"type":"string"},"priority":{"enum":["low","normal","high"]},"due":{"type":"string","format":"date-time"}},"required":["title","body"],"additionalProperties":false}"#,
];

/// One snapshot as a page's registration produces it. Besides the usual
/// tools: ~5% skills, ~10% without `annotations`, ~2% with a hint that is not
/// a boolean, ~2% with hints beside `annotations`, ~1% the shim could not
/// read, ~1% with a schema that is not JSON, ~1% refused (a bad name).
fn raw_declaration(rng: &mut Rng, i: usize) -> RawDeclaration {
    let name = if rng.chance(1) {
        format!("tool {i}") // not a valid name: refused
    } else {
        format!("tool_{i}")
    };
    if rng.chance(5) {
        return RawDeclaration {
            kind: Some(Kind::Skill),
            path: Some(Path::DocumentObject),
            name: Some(name),
            description: Some("How this site's tools are best used".into()),
            instructions: Some("Search before you add; never delete without asking.".into()),
            ..RawDeclaration::default()
        };
    }
    let annotations = (!rng.chance(10)).then(|| {
        let mut hints = VecMap::new();
        for key in CLASS_HINTS {
            match rng.next() % 3 {
                0 => {}
                1 => {
                    hints.insert(key.to_owned(), RawHint::Bool(true));
                }
                _ => {
                    hints.insert(key.to_owned(), RawHint::Bool(false));
                }
            }
        }
        if rng.chance(2) {
            hints.insert(
                rng.pick(&CLASS_HINTS).to_owned(),
                RawHint::Other("the string \"false\"".into()),
            );
        }
        if rng.chance(10) {
            hints.insert("untrustedContentHint".into(), RawHint::Bool(true));
        }
        if rng.chance(5) {
            hints.insert("title".into(), RawHint::Other("a string".into()));
        }
        hints
    });
    let stray_hints = if rng.chance(2) {
        vec![rng.pick(&CLASS_HINTS).to_owned()]
    } else {
        Vec::new()
    };
    let input_schema = if rng.chance(1) {
        Some("{not json".to_owned())
    } else if rng.chance(75) {
        Some(rng.pick(&SCHEMAS).to_owned())
    } else {
        None
    };
    RawDeclaration {
        kind: Some(Kind::Tool),
        path: Some(rng.pick(&PATHS)),
        title: rng.chance(50).then(|| format!("Tool number {i}")),
        description: Some(format!(
            "Does thing {i} on this site; returns what changed, as JSON."
        )),
        input_schema,
        annotations,
        stray_hints,
        unreadable: rng.chance(1).then(|| "annotations is a Proxy".to_owned()),
        name: Some(name),
        ..RawDeclaration::default()
    }
}

fn raw_declarations(seed: u64, count: usize) -> Vec<RawDeclaration> {
    let mut rng = Rng(seed);
    (0..count).map(|i| raw_declaration(&mut rng, i)).collect()
}

fn bench_classify(c: &mut Criterion) {
    const COUNT: usize = 10_000;
    let raws = raw_declarations(0x5eed_0001, COUNT);
    let mut group = c.benchmark_group("classify");
    group.throughput(Throughput::Elements(COUNT as u64));
    group.sample_size(30);
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("10000 declarations", |b| {
        b.iter_batched(
            || raws.clone(),
            |raws| {
                let mut verdicts = Vec::with_capacity(raws.len());
                for raw in raws {
                    if let Ok(decl) = Declaration::from_raw(raw) {
                        let verdict = classify(&decl);
                        verdicts.push((decl, verdict));
                    }
                }
                verdicts
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

fn frame_ref(tab_id: i64, frame_id: i64, origin: &str) -> FrameRef {
    common::frame(
        tab_id,
        frame_id,
        &format!("doc-{tab_id}-{frame_id}"),
        origin,
    )
}

fn bench_registry(c: &mut Criterion) {
    let mut group = c.benchmark_group("registry");
    group.sample_size(30);
    group.measurement_time(Duration::from_secs(8));

    const TOOLS: usize = 1_000;
    let event = Event::Page {
        from: frame_ref(1, 0, "https://shop.example"),
        ops: raw_declarations(0x5eed_0002, TOOLS)
            .into_iter()
            .map(|decl| Op::Register {
                decl: Box::new(decl),
            })
            .collect(),
    };
    group.throughput(Throughput::Elements(TOOLS as u64));
    group.bench_function("register 1000 tools", |b| {
        b.iter_batched(
            || (Registry::new(), event.clone()),
            |(mut registry, event)| {
                let applied = registry.apply(event);
                (registry, applied)
            },
            BatchSize::PerIteration,
        )
    });

    // 100 tabs of 50 tools each: 40 in the top frame, 10 in an iframe of
    // another site.
    const TABS: usize = 100;
    const PER_TAB: usize = 50;
    let mut raws = raw_declarations(0x5eed_0003, TABS * PER_TAB).into_iter();
    // Stored as the registry stores them: one `StoredTool` per key.
    let records: Vec<(String, String)> = (0..TABS as i64)
        .flat_map(|tab_id| {
            let mut frame = |frame_id: i64, origin: String, count: usize| {
                raws.by_ref()
                    .take(count)
                    .enumerate()
                    .map(|(i, decl)| StoredTool {
                        tab_id,
                        frame_id,
                        document_id: format!("doc-{tab_id}-{frame_id}"),
                        origin: origin.clone(),
                        seq: (tab_id as u64) * 100 + frame_id as u64 * 10 + i as u64,
                        provided: false,
                        decl,
                    })
                    .collect::<Vec<_>>()
            };
            let mut tools = frame(0, format!("https://site{tab_id}.example"), 40);
            tools.extend(frame(7, "https://widgets.example".to_owned(), 10));
            tools
        })
        .map(|t| (t.key(), serde_json::to_string(&t).expect("a stored tool")))
        .collect();
    group.throughput(Throughput::Elements((TABS * PER_TAB) as u64));
    group.bench_function("load 100 tabs x 50 tools", |b| {
        // Every tab read, as a listing of all of them reads them.
        b.iter(|| {
            let registry =
                Registry::load(records.iter().map(|(k, t)| (k, t.as_str()))).expect("loads");
            registry
                .tab_ids()
                .map(|tab| registry.count(tab))
                .sum::<usize>()
        })
    });
    group.finish();

    // The palette of the 1,000-tool tab above: what the popup asks for on
    // every poll, each text escaped and cut and each schema indented.
    let mut registry = Registry::new();
    registry.apply(event);
    let mut group = c.benchmark_group("palette");
    group.sample_size(30);
    group.throughput(Throughput::Elements(TOOLS as u64));
    group.bench_function("1000 tools", |b| {
        b.iter(|| toolgate::views::palette::palette(&registry, 1))
    });
    group.finish();
}

fn bench_decide(c: &mut Criterion) {
    const SITE: &str = "https://shop.example";
    const CHAT: &str = "chat-1";
    const TOOLS: usize = 500;

    // One tab publishing 500 tools: Mutating and Consequential ones, each
    // with a schema, so every one is above the chat's read-only width.
    let ops: Vec<Value> = (0..TOOLS)
        .map(|i| {
            let hints = match i % 3 {
                0 => json!({"consequentialHint": false, "readOnlyHint": false, "openWorldHint": false}),
                1 => json!({"consequentialHint": true}),
                _ => json!({"destructiveHint": true, "idempotentHint": true}),
            };
            json!({"op": "register", "decl": {
                "path": "document_object", "name": format!("tool_{i}"),
                "title": format!("Tool {i}"), "description": format!("Does thing {i}"),
                "input_schema": SCHEMAS[1 + i % 3], "annotations": hints}})
        })
        .collect();
    let mut registry = Registry::new();
    registry.apply(Event::Page {
        from: frame_ref(1, 0, SITE),
        ops: serde_json::from_value(Value::Array(ops)).expect("ops parse"),
    });
    let tabs = vec![TabInfo {
        id: 1,
        title: "Shop".into(),
        url: format!("{SITE}/"),
    }];
    let world = World {
        checking: Default::default(),
        registry: &registry,
        tabs: Some(&tabs),
        now_ms: 1_000_000,
    };

    // The chat allowed read-only tools on the site, then "Always allow" on
    // each of the 500 tools.
    let mut session = Session::default();
    assert!(session.open_chat(CHAT, "Chat 1", false).is_ok());
    session
        .answers
        .answer_site(CHAT, SITE, SiteAnswer::AllowReadOnly);
    let frame = registry.frames(1).next().expect("the tab's frame");
    for tool in &frame.tools {
        let facts = ToolFacts::of(tool, SITE, &registry.flags).expect("a tool, not a skill");
        session.answers.answer_call(
            CHAT,
            &facts,
            "{}",
            CallAnswer::AlwaysAllowTool,
            world.now_ms,
        );
    }
    let grants = |s: &Session| {
        let chat = s.answers.chats.get(CHAT)?;
        Some(chat.sites.get(SITE)?.always.len())
    };
    assert_eq!(grants(&session), Some(TOOLS));

    // The last tool registered (Consequential), with arguments its schema
    // checks: decided by its "Always allow" grant.
    let request = json!({"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {
        "name": CALL_TOOL,
        "arguments": {"tabId": 1, "name": "tool_499",
                      "arguments": {"query": "blue shoes", "limit": 10, "tags": ["sale"]}}}})
    .to_string();
    match session.clone().request(CHAT, &request, &world) {
        Step::Run { run } => assert_eq!(run.target.name, "tool_499"),
        other => panic!("the call should run by its grant, not {other:?}"),
    }

    let mut group = c.benchmark_group("decide");
    group.bench_function("call among 500 always-allowed tools", |b| {
        b.iter_batched(
            || session.clone(),
            |mut session| {
                let step = session.request(CHAT, black_box(&request), &world);
                (session, step)
            },
            BatchSize::SmallInput,
        )
    });

    // A localhost tab of three tools; a Read-only call runs without a card.
    const LOCAL: &str = "http://notes.localhost:8000";
    let ops = json!([
        {"op": "register", "decl": {"path": "document_object", "name": "noop", "description": "Does nothing",
            "input_schema": "{\"type\":\"object\",\"properties\":{}}", "annotations": {"readOnlyHint": true}}},
        {"op": "register", "decl": {"path": "document_object", "name": "clock", "description": "The time",
            "annotations": {"readOnlyHint": true}}},
        {"op": "register", "decl": {"path": "document_object", "name": "count", "description": "Counts",
            "annotations": {"readOnlyHint": false, "consequentialHint": false}}},
    ]);
    let mut small = Registry::new();
    small.apply(Event::Page {
        from: frame_ref(2, 0, LOCAL),
        ops: serde_json::from_value(ops).expect("ops parse"),
    });
    let world = World {
        checking: Default::default(),
        registry: &small,
        tabs: None,
        now_ms: 1_000_000,
    };
    let mut session = Session::default();
    assert!(session.open_chat(CHAT, "Chat 1", false).is_ok());
    let mut id = 0_u64;
    let ok = serde_json::value::to_raw_value("ok").expect("JSON");
    group.bench_function("read-only call, request + finish", |b| {
        b.iter(|| {
            id += 1;
            let request = noop_call(id);
            let Step::Run { run } = session.request(CHAT, black_box(&request), &world) else {
                panic!("a Read-only call on localhost runs");
            };
            let (_, _, reply) = session
                .finish(run.call_id, Ok(&ok), 1 << 20, true, None, 0)
                .expect("running");
            reply
        })
    });
    // The same, as the service worker pays it: JSON text in and out of each
    // of the two calls into the core (src/wasm.rs).
    group.bench_function(
        "read-only call, request + finish, JSON text in and out",
        |b| {
            b.iter(|| {
                id += 1;
                let text = noop_call(id);
                let step = session.request(CHAT, black_box(&text), &world);
                let step_text = serde_json::to_string(&step).expect("JSON");
                let Step::Run { run } = step else {
                    panic!("a Read-only call on localhost runs");
                };
                let outcome: &RawValue = serde_json::from_str(black_box(r#""ok""#)).expect("JSON");
                let (_, _, reply) = session
                    .finish(run.call_id, Ok(outcome), 1 << 20, true, None, 0)
                    .expect("running");
                (step_text, reply.text().to_owned())
            })
        },
    );
    group.finish();
}

fn bench_read(c: &mut Criterion) {
    const TOOLS: usize = 1_000;
    let ops: Vec<Op> = raw_declarations(0x5eed_0004, TOOLS)
        .into_iter()
        .map(|decl| Op::Register {
            decl: Box::new(decl),
        })
        .collect();
    let report = json!({"type": "updates", "batch": 1, "ops": ops}).to_string();
    let change = json!({"type": "change_rules", "site": "https://shop.example", "changes": [
        {"target": "kind", "kind": "delete", "level": "allowed"},
        {"target": "tool", "name": "tool_7", "level": null}]})
    .to_string();
    let navigated =
        json!({"type": "navigated", "tab_id": 1, "frame_id": 0, "document_id": "D"}).to_string();
    let mut group = c.benchmark_group("read");
    group.sample_size(30);
    group.throughput(Throughput::Elements(TOOLS as u64));
    group.bench_function("page report of 1000 tools", |b| {
        b.iter(|| serde_json::from_str::<FromPage>(black_box(&report)).expect("a report"))
    });
    group.throughput(Throughput::Elements(1));
    group.bench_function("settings change", |b| {
        b.iter(|| serde_json::from_str::<FromUi>(black_box(&change)).expect("a change"))
    });
    group.bench_function("navigated", |b| {
        b.iter(|| serde_json::from_str::<Event>(black_box(&navigated)).expect("an event"))
    });
    group.finish();
}

/// Ordinary words of mail and reviews, some of them the words of the
/// phrases addressed to the model (so that the detector meets partial
/// matches), never all of one phrase in a row.
const WORDS: [&str; 40] = [
    "the",
    "a",
    "and",
    "of",
    "to",
    "in",
    "is",
    "it",
    "for",
    "on",
    "with",
    "was",
    "we",
    "they",
    "order",
    "kettle",
    "delivery",
    "Friday",
    "lunch",
    "meeting",
    "café",
    "naïve",
    "it\u{2019}s",
    "don\u{2019}t",
    "ignore",
    "previous",
    "system",
    "must",
    "call",
    "tell",
    "users",
    "important",
    "instruction",
    "thanks!",
    "Best,",
    "Zoë",
    "price",
    "42",
    "déjà",
    "vu",
];

/// Ordinary Russian words, whose letters the confusable skeletons read
/// as Latin ones ("о", "е", "а", "р", "с"): a result no first look clears.
const RUSSIAN: [&str; 16] = [
    "привет",
    "заказ",
    "доставка",
    "пятница",
    "обед",
    "встреча",
    "спасибо",
    "система",
    "цена",
    "мы",
    "они",
    "и",
    "в",
    "не",
    "это",
    "сообщение",
];

/// An honest result of about `bytes` bytes, as a mail tool returns it: the
/// JSON text of an array of messages `{from, subject, body}`.
fn honest_result(bytes: usize) -> String {
    honest_result_of(bytes, &WORDS)
}

/// As [`honest_result`], of `words`.
fn honest_result_of(bytes: usize, words: &[&str]) -> String {
    let mut rng = Rng(0x5eed_0038);
    let mut messages = Vec::new();
    let mut size = 0;
    while size < bytes {
        let mut body = String::new();
        for i in 0..(40 + rng.next() % 160) {
            if i > 0 {
                body.push_str(if rng.chance(3) { "\n" } else { " " });
            }
            body.push_str(rng.pick(words));
        }
        let message = json!({
            "from": format!("person{}@mail.example", rng.next() % 1000),
            "subject": format!("Re: {} {}", rng.pick(words), rng.pick(words)),
            "body": body,
        });
        size += message.to_string().len() + 1;
        messages.push(message);
    }
    Value::Array(messages).to_string()
}

fn bench_untrusted(c: &mut Criterion) {
    use toolgate::page::untrusted::{untrusted, Declared};
    let mut group = c.benchmark_group("untrusted");
    for (label, result) in [
        ("100 KB", honest_result(100_000)),
        ("1 MB", honest_result(1_000_000)),
        ("in Russian, 100 KB", honest_result_of(100_000, &RUSSIAN)),
    ] {
        assert_eq!(
            untrusted(Ok(&result), Declared::default()),
            None,
            "an honest result"
        );
        group.throughput(Throughput::Bytes(result.len() as u64));
        group.bench_function(format!("honest result, {label}"), |b| {
            b.iter(|| untrusted(Ok(black_box(&result)), Declared::default()))
        });
    }
    group.finish();
}

/// An agent's call of the Read-only tool `noop` on tab 2, as JSON text.
fn noop_call(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{CALL_TOOL}","arguments":{{"tabId":2,"name":"noop","arguments":{{}}}}}}}}"#
    )
}

fn config() -> Criterion {
    // No plots: nothing to render, and no gnuplot needed.
    Criterion::default()
        .without_plots()
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(5))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_classify, bench_registry, bench_decide, bench_untrusted, bench_read
}
criterion_main!(benches);
