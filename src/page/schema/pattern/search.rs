//! How a pattern is matched within a check's budget (docs/agents.md,
//! "Arguments and limits"; ARCHITECTURE.md, "Budgets").
//!
//! First as a lazy DFA: it reads the text a byte at a time, building a state
//! of the DFA wherever it meets one it has not built yet. Reading is cheap
//! (the check charges one step per 16 bytes of text, src/page/schema/budget.rs);
//! building a state costs about the NFA states it holds and the one it leaves,
//! and that is charged here, as work, against what the check has left. For an
//! honest pattern a check builds a few states; `a{0,2000}b` against 16,000
//! "a"s builds 2,000 of 2,000 NFA states each, and runs out of budget in a
//! few hundred. A lazy DFA also gives up where it cannot go on: a Unicode word
//! boundary beside a character past ASCII, or its states filling its cache
//! (`DFA_CACHE_BYTES`, or `SESSION_BYTES` for the check's patterns together).
//! Then the Pike VM runs the text only if the check can pay for the most it
//! could cost (the text's length times the pattern's NFA states), and
//! otherwise the check is refused: never run unchecked.
//!
//! A check is one session: the count (`Plan::steps`) matches each pattern it
//! charges, and the validator that runs after it matches the same texts
//! again. The lazy DFA's states are kept for the session, so the second match
//! finds them built, and a text the Pike VM matched is remembered, so the
//! validator does not pay for it twice. The session's states are dropped when
//! the check ends.

use super::{Compiled, Pattern};
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson::pikevm;
use regex_automata::Input;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

/// Units of matching work in one step of the check's budget: a unit is
/// about one NFA state visited once (a byte of a DFA state built, or one
/// Pike VM thread moved over one byte). benches/README.md, "The arguments'
/// budget", measures what they cost.
pub const WORK_PER_STEP: u64 = 32;

/// Units a lazy DFA's new transition costs beyond the states it reads.
const TRANSITION_WORK: u64 = 16;

/// The most bytes the lazy DFAs of one check may fill together.
const SESSION_BYTES: usize = 4 << 20;

/// Why a pattern was not matched: it is too costly to check on this text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooCostly(String);

impl fmt::Display for TooCostly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TooCostly {
    fn of(pattern: &Pattern, text: &str) -> Self {
        TooCostly(format!(
            "its pattern {} is too costly to check on this text ({} bytes)",
            super::shown(pattern.source()),
            super::super::budget::thousands(text.len() as u64)
        ))
    }
}

/// The work a match may still do, in units (`WORK_PER_STEP`), and what it did.
#[derive(Debug)]
pub(in crate::page::schema) struct Meter {
    left: u64,
    used: u64,
}

impl Meter {
    /// A meter of `steps` of the check's budget.
    pub(in crate::page::schema) fn steps(steps: u64) -> Self {
        Meter {
            left: steps.saturating_mul(WORK_PER_STEP),
            used: 0,
        }
    }

    /// The work done so far, in units.
    pub(in crate::page::schema) fn used(&self) -> u64 {
        self.used
    }

    fn pay(&mut self, work: u64) -> bool {
        if work > self.left {
            return false;
        }
        self.left -= work;
        self.used += work;
        worked(work);
        true
    }
}

/// What one pattern's matches built in this check.
struct Scratch {
    dfa: Cache,
    vm: Option<pikevm::Cache>,
    /// The largest state the lazy DFA built, in bytes: what reading any
    /// state of it costs at most.
    widest: u64,
}

/// One check's matches (see the module's comment).
#[derive(Default)]
struct Session {
    /// By the compiled pattern's address, which the `Rc` kept beside it
    /// holds for the session (no other pattern can take it meanwhile).
    scratch: BTreeMap<usize, (Rc<Compiled>, Scratch)>,
    /// Texts the Pike VM matched, by pattern and text.
    known: BTreeMap<(String, String), bool>,
    /// The bytes the lazy DFAs built.
    grown: usize,
    /// What the validator's matches may still do, in units.
    left: u64,
    /// Why a match the validator asked for was refused, if one was.
    refused: Option<TooCostly>,
}

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
    static WORK: Cell<u64> = const { Cell::new(0) };
}

/// The matching work done on this thread so far, in units (`WORK_PER_STEP`):
/// every byte a lazy DFA read, every state it built, and the most a Pike VM
/// run could cost. Tests hold a check's matching to a bound with it
/// (tests/budget.rs).
pub fn work() -> u64 {
    WORK.get()
}

fn worked(units: u64) {
    WORK.set(WORK.get().saturating_add(units));
}

/// Runs `check` as one session of matches (a check), unless one is running.
pub(in crate::page::schema) fn in_session<R>(check: impl FnOnce() -> R) -> R {
    let started = SESSION.with_borrow_mut(|session| {
        if session.is_some() {
            return false;
        }
        *session = Some(Session {
            left: super::super::STEPS.saturating_mul(WORK_PER_STEP),
            ..Session::default()
        });
        true
    });
    let result = check();
    if started {
        SESSION.with_borrow_mut(Option::take);
    }
    result
}

/// Gives the validator's matches in this session `steps` of work (what the
/// count left of the budget), and forgets any refusal.
pub(in crate::page::schema) fn allow(steps: u64) {
    SESSION.with_borrow_mut(|session| {
        if let Some(session) = session {
            session.left = steps.saturating_mul(WORK_PER_STEP);
            session.refused = None;
        }
    });
}

/// Why a match the validator asked for in this session was refused, if one was.
pub(in crate::page::schema) fn refused() -> Option<TooCostly> {
    SESSION.with_borrow(|session| session.as_ref().and_then(|s| s.refused.clone()))
}

impl Pattern {
    /// Whether the pattern matches anywhere in `text`, its work paid from
    /// `meter` (the count's matches, src/page/schema/budget.rs).
    ///
    /// # Errors
    /// The pattern is too costly to check on this text with what is left.
    pub(in crate::page::schema) fn run(
        &self,
        text: &str,
        meter: &mut Meter,
    ) -> Result<bool, TooCostly> {
        in_session(|| {
            SESSION.with_borrow_mut(|session| {
                let session = session.as_mut().expect("in a session");
                matched(self, text, meter, session, true)
            })
        })
    }
}

/// `Pattern::test`: a match the validator asks for, paid from what the
/// session left it.
pub(super) fn test(pattern: &Pattern, text: &str) -> Result<bool, TooCostly> {
    in_session(|| {
        SESSION.with_borrow_mut(|session| {
            let session = session.as_mut().expect("in a session");
            let mut meter = Meter {
                left: session.left,
                used: 0,
            };
            let result = matched(pattern, text, &mut meter, session, false);
            session.left = meter.left;
            if let Err(refusal) = &result {
                session.refused.get_or_insert_with(|| refusal.clone());
            }
            result
        })
    })
}

/// Matches `text` as the module's comment says, remembering a Pike VM's
/// answer when `remember`.
fn matched(
    pattern: &Pattern,
    text: &str,
    meter: &mut Meter,
    session: &mut Session,
    remember: bool,
) -> Result<bool, TooCostly> {
    let compiled = &pattern.compiled;
    let (_, scratch) = session
        .scratch
        .entry(Rc::as_ptr(compiled) as usize)
        .or_insert_with(|| {
            let scratch = Scratch {
                dfa: compiled.dfa.create_cache(),
                vm: None,
                widest: 0,
            };
            (Rc::clone(compiled), scratch)
        });
    if let Some(answer) = lazy(
        &compiled.dfa,
        scratch,
        text.as_bytes(),
        meter,
        &mut session.grown,
    ) {
        return Ok(answer);
    }
    let key = (compiled.source.clone(), text.to_owned());
    if let Some(&answer) = session.known.get(&key) {
        return Ok(answer);
    }
    let nfa_states = compiled.vm.get_nfa().states().len() as u64;
    let most = (text.len() as u64 + 1).saturating_mul(nfa_states);
    if !meter.pay(most) {
        return Err(TooCostly::of(pattern, text));
    }
    let cache = scratch.vm.get_or_insert_with(|| compiled.vm.create_cache());
    let answer = compiled.vm.is_match(cache, text);
    if remember {
        session.known.insert(key, answer);
    }
    Ok(answer)
}

/// Whether the lazy DFA finds a match in `text` (unanchored, forward), each
/// state it builds paid from `meter`; `None` where it gives up or the meter
/// runs out.
fn lazy(
    dfa: &DFA,
    scratch: &mut Scratch,
    text: &[u8],
    meter: &mut Meter,
    grown: &mut usize,
) -> Option<bool> {
    // A new state's row of transitions is allocated, not computed, and so is
    // the bookkeeping of its place in the cache (two handles and an id): what
    // is left of what it adds to the cache is its NFA states.
    let handle = std::mem::size_of::<std::sync::Arc<[u8]>>() as u64;
    let row = (1u64 << dfa.byte_classes().stride2()) * 4 + 2 * handle + 4;
    // Pays for whatever the last step built (the cache only grows: it gives
    // up rather than clear, `DFA_CACHE_BYTES`).
    // (A start state or an end of text found built costs nothing; one
    // computed for the first time is charged when it adds a state.)
    let mut paid = |scratch: &mut Scratch, before: usize, computed: bool| -> Option<()> {
        let after = scratch.dfa.memory_usage();
        let built = after.saturating_sub(before);
        if built == 0 && !computed {
            return Some(());
        }
        *grown = grown.saturating_add(built);
        let state = (built as u64).saturating_sub(row);
        scratch.widest = scratch.widest.max(state);
        let work = TRANSITION_WORK + state + scratch.widest;
        (*grown <= SESSION_BYTES && meter.pay(work)).then_some(())
    };
    let input = Input::new(text);
    let before = scratch.dfa.memory_usage();
    let mut sid = dfa.start_state_forward(&mut scratch.dfa, &input).ok()?;
    paid(scratch, before, false)?;
    scratch.dfa.search_start(0);
    for (at, &byte) in text.iter().enumerate() {
        if sid.is_tagged() {
            if sid.is_match() || sid.is_dead() {
                scratch.dfa.search_finish(at);
                worked(at as u64);
                return Some(sid.is_match());
            }
            if sid.is_quit() {
                worked(at as u64);
                return None;
            }
        }
        let next = if sid.is_tagged() {
            None
        } else {
            Some(dfa.next_state_untagged(&scratch.dfa, sid, byte)).filter(|next| !next.is_unknown())
        };
        sid = match next {
            Some(next) => next,
            None => {
                scratch.dfa.search_update(at);
                let before = scratch.dfa.memory_usage();
                let next = dfa.next_state(&mut scratch.dfa, sid, byte);
                let paid = paid(scratch, before, true);
                match (next, paid) {
                    (Ok(next), Some(())) => next,
                    _ => {
                        worked(at as u64);
                        return None;
                    }
                }
            }
        };
    }
    scratch.dfa.search_finish(text.len());
    worked(text.len() as u64);
    if sid.is_quit() {
        return None;
    }
    if sid.is_match() || sid.is_dead() {
        return Some(sid.is_match());
    }
    let before = scratch.dfa.memory_usage();
    let end = dfa.next_eoi_state(&mut scratch.dfa, sid).ok()?;
    paid(scratch, before, false)?;
    if end.is_quit() {
        return None;
    }
    Some(end.is_match())
}
