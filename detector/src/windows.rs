//! The windows the trainer learns from: segments' features stored once, a
//! window being a run of them; each training text's windows, and the
//! generated ones (`DET_GEN`, `DET_TYPOS`); and the texts' counts by source,
//! label and split, for the weights' provenance.

use crate::report::typos;
use crate::{env, is_jailbreak, split_of, Rng, Split, Text};
use std::collections::BTreeMap;
use toolgate_detector::{features, segments, WINDOW};

/// Texts by source, label and split (`train`, `valid`, `test`, `dropped`),
/// for the weights' provenance.
pub type Counts = BTreeMap<(String, u8, &'static str), usize>;

// ------------------------------------------------------------ windows

/// Segments' features, stored once; a window is a run of segments.
#[derive(Default)]
pub struct Store {
    buckets: Vec<u32>,
    /// Where each segment's buckets start, and one past the last.
    offsets: Vec<usize>,
}

pub struct Example {
    pub first: usize,
    pub count: usize,
    pub label: u8,
    pub weight: f64,
    pub jailbreak: bool,
}

impl Store {
    fn push_segments(&mut self, text: &str) -> (usize, usize) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        let first = self.offsets.len() - 1;
        segments(text, |a, b| {
            let from = self.buckets.len();
            features(&text[a..b], |f| self.buckets.push(f));
            // Each feature once a segment, as `Weights::best` counts them.
            self.buckets[from..].sort_unstable();
            let mut kept = from;
            for i in from..self.buckets.len() {
                if i == from || self.buckets[i] != self.buckets[kept - 1] {
                    self.buckets[kept] = self.buckets[i];
                    kept += 1;
                }
            }
            self.buckets.truncate(kept);
            self.offsets.push(self.buckets.len());
        });
        (first, self.offsets.len() - 1 - first)
    }
    pub fn window(&self, first: usize, count: usize) -> &[u32] {
        &self.buckets[self.offsets[first]..self.offsets[first + count]]
    }
}

/// The training windows of a text. A benign text: every window of each
/// size the detector reads (stride its size). An attack of up to `WINDOW`
/// segments: itself; a longer one (a jailbreak's pages): its windows of
/// `WINDOW` segments, eight at most, so that no one text outweighs a
/// template.
fn windows(first: usize, n: usize, label: u8, out: &mut Vec<(usize, usize)>) {
    if n == 0 {
        return;
    }
    if label == 1 {
        if n <= WINDOW {
            out.push((first, n));
        } else {
            for k in (0..n).step_by(WINDOW).take(8) {
                out.push((first + k, WINDOW.min(n - k)));
            }
        }
        return;
    }
    for size in 1..=WINDOW.min(n) {
        let mut k = 0;
        while k + size <= n {
            out.push((first + k, size));
            k += size;
        }
    }
}

// ------------------------------------------------------------ the windows trained on

/// The training split's windows, stored once, with the generated ones
/// (`DET_GEN`, `DET_TYPOS`; both off by default), and the texts' counts.
pub fn examples(texts: &[Text], rng: &mut Rng) -> (Store, Vec<Example>, Counts) {
    let mut store = Store::default();
    let mut examples = Vec::new();
    let mut spans = Vec::new();
    let mut counts: Counts = BTreeMap::new();
    for t in texts {
        let split = split_of(t);
        *counts
            .entry((
                t.source.clone(),
                t.label,
                match split {
                    Split::Train => "train",
                    Split::Valid => "valid",
                    Split::Test => "test",
                    Split::Drop => "dropped",
                },
            ))
            .or_default() += 1;
        if split != Split::Train {
            continue;
        }
        let (first, n) = store.push_segments(&t.text);
        spans.clear();
        windows(first, n, t.label, &mut spans);
        for &(first, count) in &spans {
            examples.push(Example {
                first,
                count,
                label: t.label,
                weight: 1.0,
                jailbreak: is_jailbreak(&t.source),
            });
        }
    }
    // Generated variants: pieces (segments) of the training split's attacks,
    // jailbreaks aside, two of different texts put together, between
    // sentences of the training split's benign texts or none. Each is one
    // window, whole: an attack read with benign text beside it.
    let mut pieces: Vec<&str> = Vec::new();
    let mut benign_pieces: Vec<&str> = Vec::new();
    for t in texts.iter().filter(|t| split_of(t) == Split::Train) {
        if t.label == 1 && is_jailbreak(&t.source) {
            continue;
        }
        let list = if t.label == 1 {
            &mut pieces
        } else {
            &mut benign_pieces
        };
        segments(&t.text, |a, b| {
            if b - a >= 12 {
                list.push(&t.text[a..b]);
            }
        });
    }
    pieces.sort_unstable();
    pieces.dedup();
    let generated = env("DET_GEN", 0.0) as usize;
    let mut made = 0;
    while made < generated && !pieces.is_empty() {
        let a = pieces[rng.below(pieces.len())];
        let b = pieces[rng.below(pieces.len())];
        let mut text = String::new();
        if rng.chance(500) {
            text.push_str(benign_pieces[rng.below(benign_pieces.len())]);
            text.push(if rng.chance(500) { ' ' } else { '\n' });
        }
        text.push_str(a);
        if rng.chance(500) {
            text.push(if rng.chance(500) { ' ' } else { '\n' });
            text.push_str(b);
        }
        if rng.chance(500) {
            text.push(if rng.chance(500) { ' ' } else { '\n' });
            text.push_str(benign_pieces[rng.below(benign_pieces.len())]);
        }
        let (first, n) = store.push_segments(&text);
        if n > 0 {
            examples.push(Example {
                first,
                count: n,
                label: 1,
                weight: 1.0,
                jailbreak: false,
            });
        }
        made += 1;
    }
    *counts
        .entry(("generated:recombined".to_owned(), 1, "train"))
        .or_default() += made;
    // Typos: each training attack (jailbreaks aside) once more with a typo in
    // one word of four, as `typos` makes them (`DET_TYPOS=1`; measured: no help, so off).
    let mut typoed = 0;
    if env("DET_TYPOS", 0.0) > 0.0 {
        for t in texts
            .iter()
            .filter(|t| t.label == 1 && split_of(t) == Split::Train && !is_jailbreak(&t.source))
        {
            let text = typos(&t.text, rng);
            let (first, n) = store.push_segments(&text);
            spans.clear();
            windows(first, n, 1, &mut spans);
            for &(first, count) in &spans {
                examples.push(Example {
                    first,
                    count,
                    label: 1,
                    weight: 1.0,
                    jailbreak: false,
                });
            }
            typoed += 1;
        }
    }
    *counts
        .entry(("generated:typos".to_owned(), 1, "train"))
        .or_default() += typoed;
    (store, examples, counts)
}
