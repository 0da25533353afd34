//! `pattern` and `patternProperties`, matched in time linear in the text
//! (docs/agents.md, "Arguments and limits"; ARCHITECTURE.md, "Budgets").
//!
//! JSON Schema writes patterns in ECMA-262 syntax, but nothing obliges
//! Toolgate to run them on a backtracking engine, where `^(a+)+$` against 30
//! "a"s and a "!" takes seconds and each further character doubles it. A
//! pattern is translated to the `regex` crate's syntax (`jsonschema-regex`,
//! as the `jsonschema` crate does) and run on its engine, which never
//! backtracks. Look-around and back-references have no linear-time match, so a
//! pattern that uses them is one Toolgate cannot check; so is one past the
//! compiled-size limit it is given.
//!
//! Compiling costs time and memory in proportion to the compiled size (a
//! `\p{L}{1,60}` is about a megabyte), so a pattern is compiled once and kept
//! in a cache shared by every check, bounded in bytes (`CACHE_BYTES`); the
//! worker's validator takes its patterns from there (`cached`), never
//! compiling one itself (src/page/schema/budget.rs compiles a schema's
//! patterns, within its bound, before the check that needs them).

use regex_automata::hybrid;
use regex_automata::nfa::thompson::pikevm::PikeVM;
use regex_automata::nfa::thompson::{Compiler, Config, WhichCaptures};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

mod search;

pub(super) use search::{allow, in_session, refused, Meter};
pub use search::{work, TooCostly, WORK_PER_STEP};

/// The most memory one compiled pattern may take, in bytes: as much as one
/// schema's patterns together (src/page/schema/budget.rs).
pub const COMPILED_LIMIT: usize = super::budget::PATTERN_BYTES;

/// The most memory the cache of compiled patterns holds, in bytes: four
/// schemas' worth of patterns at their budget (src/page/schema/budget.rs).
pub const CACHE_BYTES: usize = 4 << 20;

/// The most memory the lazy DFA of one pattern may fill with its states in
/// one check, in bytes (`search`): past it, it gives up rather than clear
/// its cache and build them again.
const DFA_CACHE_BYTES: usize = 2 << 20;

/// A pattern compiled for linear-time matching, forward only (whether it
/// matches is all a check asks): its NFA, run as a lazy DFA, or as a Pike VM
/// where the lazy DFA gives up and the check can pay for it (`search`).
/// Clones share the compiled pattern; what a match builds as it runs is kept
/// by the check it runs in, and dropped with it.
#[derive(Clone, Debug)]
pub struct Pattern {
    compiled: Rc<Compiled>,
}

/// What compiling a pattern built, shared by every check.
#[derive(Debug)]
struct Compiled {
    source: String,
    dfa: hybrid::dfa::DFA,
    vm: PikeVM,
    bytes: usize,
}

impl Pattern {
    /// Compiles `source`, an ECMA-262 pattern, up to `COMPILED_LIMIT` bytes.
    ///
    /// # Errors
    /// Says why Toolgate cannot run the pattern, quoting it.
    pub fn new(source: &str) -> Result<Self, String> {
        Self::within(source, COMPILED_LIMIT).map_err(|why| match why {
            Refused::Larger(_) => {
                format!("its pattern {} is too large to check", shown(source))
            }
            Refused::Unrunnable(why) => why,
        })
    }

    /// Compiles `source` unless it takes more than `limit` bytes.
    fn within(source: &str, limit: usize) -> Result<Self, Refused> {
        let shown = shown(source);
        let unreadable =
            || format!("its pattern {shown} is no regular expression Toolgate can read");
        let translated = jsonschema_regex::to_rust_regex(source)
            .map_err(|()| Refused::Unrunnable(unreadable()))?;
        // Only whether it matches is asked: no capture groups are kept.
        let config = Config::new()
            .nfa_size_limit(Some(limit))
            .which_captures(WhichCaptures::None);
        let nfa = Compiler::new()
            .configure(config)
            .build(&translated)
            .map_err(|error| {
                if error.size_limit().is_some() {
                    Refused::Larger(limit)
                } else if jsonschema_regex::is_valid_ecma_regex(source) {
                    Refused::Unrunnable(format!(
                        "its pattern {shown} uses look-around or back-references, which Toolgate does not run"
                    ))
                } else {
                    Refused::Unrunnable(unreadable())
                }
            })?;
        // A compiled pattern past the limit is refused as one the builder stopped.
        if nfa.memory_usage() > limit {
            return Err(Refused::Larger(limit));
        }
        // The lazy DFA gives up rather than clear its cache (`search` then
        // decides), and where a Unicode word boundary meets a character
        // past ASCII, which it cannot read.
        let lazy = hybrid::dfa::Config::new()
            .cache_capacity(DFA_CACHE_BYTES)
            .skip_cache_capacity_check(true)
            .minimum_cache_clear_count(Some(0))
            .unicode_word_boundary(true);
        let dfa = hybrid::dfa::Builder::new()
            .configure(lazy)
            .build_from_nfa(nfa.clone())
            .map_err(|_| Refused::Unrunnable(unreadable()))?;
        let vm = PikeVM::new_from_nfa(nfa).map_err(|_| Refused::Unrunnable(unreadable()))?;
        let bytes = vm.get_nfa().memory_usage() + dfa.memory_usage();
        Ok(Pattern {
            compiled: Rc::new(Compiled {
                source: source.to_owned(),
                dfa,
                vm,
                bytes,
            }),
        })
    }

    /// Whether the pattern matches anywhere in `text` (JSON Schema's patterns
    /// are not anchored), within what is left of the check it runs in (a
    /// match outside any check has a check's budget of its own).
    ///
    /// # Errors
    /// Why it was not matched: the pattern is too costly to check on this
    /// text (`search`).
    pub fn test(&self, text: &str) -> Result<bool, TooCostly> {
        search::test(self, text)
    }

    /// The memory the compiled pattern takes, in bytes.
    pub fn bytes(&self) -> usize {
        self.compiled.bytes
    }

    /// The ECMA-262 source it was compiled from.
    pub fn source(&self) -> &str {
        &self.compiled.source
    }
}

/// Why a pattern was not compiled.
pub(super) enum Refused {
    /// It takes more than this many bytes compiled.
    Larger(usize),
    /// It cannot be run at all: the reason, quoting it.
    Unrunnable(String),
}

/// A pattern as a refusal quotes it: JSON, and cut to 80 characters.
pub(super) fn shown(source: &str) -> String {
    const SHOWN: usize = 80;
    if source.chars().count() <= SHOWN {
        return Value::from(source).to_string();
    }
    let cut: String = source.chars().take(SHOWN).collect();
    format!("{}…", Value::from(cut))
}

/// Compiled patterns by source, the one used longest ago going first.
#[derive(Default)]
struct Cache {
    by_source: BTreeMap<String, (Pattern, u64)>,
    bytes: usize,
    clock: u64,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::default();
}

/// The compiled pattern of `source`, if it is in the cache.
pub fn cached(source: &str) -> Option<Pattern> {
    CACHE.with_borrow_mut(|cache| {
        cache.clock += 1;
        let clock = cache.clock;
        cache.by_source.get_mut(source).map(|(pattern, used)| {
            *used = clock;
            pattern.clone()
        })
    })
}

/// `source` compiled, from the cache or into it, up to `COMPILED_LIMIT`
/// bytes: a site rule's condition (docs/rules.md, "Conditions on a tool's
/// arguments") runs on the same engine, and the same cache, as a schema's
/// patterns.
///
/// # Errors
/// Says why Toolgate cannot run the pattern, quoting it.
pub fn compiled(source: &str) -> Result<Pattern, String> {
    if let Some(pattern) = cached(source) {
        return Ok(pattern);
    }
    match ensure(source, COMPILED_LIMIT) {
        Ok(_) => cached(source).map_or_else(|| Pattern::new(source), Ok),
        Err(_) => Pattern::new(source),
    }
}

/// `source` compiled into the cache unless it is there already, taking at
/// most `limit` bytes: its size, and whether it was compiled now.
pub(super) fn ensure(source: &str, limit: usize) -> Result<(usize, bool), Refused> {
    if let Some(pattern) = cached(source) {
        return Ok((pattern.bytes(), false));
    }
    let pattern = Pattern::within(source, limit.min(COMPILED_LIMIT))?;
    let bytes = pattern.bytes();
    CACHE.with_borrow_mut(|cache| {
        while cache.bytes + bytes > CACHE_BYTES {
            let Some(oldest) = cache
                .by_source
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(source, _)| source.clone())
            else {
                break;
            };
            if let Some((gone, _)) = cache.by_source.remove(&oldest) {
                cache.bytes -= gone.bytes();
            }
        }
        cache.clock += 1;
        let clock = cache.clock;
        cache.bytes += bytes;
        cache.by_source.insert(source.to_owned(), (pattern, clock));
    });
    Ok((bytes, true))
}
