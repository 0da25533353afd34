//! The trainer's measuring: every text scored by the model it made, by
//! source and split, the validation split's curve, held-out results of
//! 100 KB, adversarial variants and translations, speed, what it flags and
//! misses; written as `REPORT.md`, then the weights with their provenance;
//! and the counts the floors are checked on (`main.rs`).

use crate::train::{Bar, Params};
use crate::windows::{Counts, Example};
use crate::{is_jailbreak, split_of, Rng, Split, Text};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;
use toolgate_detector::{as_read, Weights, BUCKETS, WINDOW};

// ------------------------------------------------------------ variants

/// A text with typos a model reads through: in one word of four (longer
/// than three letters), two letters inside it swapped, one dropped or one
/// doubled.
pub fn typos(text: &str, rng: &mut Rng) -> String {
    let mut out = String::new();
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let mut cs: Vec<char> = word.chars().collect();
        if cs.len() > 3 && cs.iter().all(|c| c.is_alphabetic()) && rng.chance(250) {
            let k = 1 + rng.below(cs.len() - 2);
            match rng.below(3) {
                0 => cs.swap(k, k + 1),
                1 => {
                    cs.remove(k);
                }
                _ => {
                    let c = cs[k];
                    cs.insert(k, c);
                }
            }
        }
        out.extend(cs);
    }
    out
}

/// A text as a page might launder it past a reader of words: Latin letters
/// swapped for the Cyrillic ones they look like, in every other word.
fn look_alikes(text: &str) -> String {
    let mut out = String::new();
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.extend(word.chars().map(|c| match (i % 2, c) {
            (0, 'a') => '\u{430}',
            (0, 'e') => '\u{435}',
            (0, 'o') => '\u{43e}',
            (0, 'i') => '\u{456}',
            (0, 'c') => '\u{441}',
            _ => c,
        }));
    }
    out
}

/// A text with its vowels written as HTML's numeric entities (`&#101;`), as
/// a page might send them for a browser to decode.
fn entities(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'a' | 'e' | 'i' | 'o' | 'u' => format!("&#{};", c as u32),
            _ => c.to_string(),
        })
        .collect()
}

fn split_words(text: &str) -> (String, String) {
    let words: Vec<&str> = text.split_whitespace().collect();
    let half = words.len() / 2;
    (words[..half].join(" "), words[half..].join(" "))
}

/// Each adversarial variant of an attack, by name.
fn variants(attack: &str, benign: &str, rng: &mut Rng) -> Vec<(&'static str, String)> {
    let (a, b) = split_words(attack);
    let cut = benign
        .char_indices()
        .nth(benign.chars().count() / 2)
        .map_or(0, |(i, _)| i);
    let cut = benign[..cut].rfind(". ").map_or(cut, |i| i + 2);
    vec![
        ("typos", typos(attack, rng)),
        (
            "inside a long benign text",
            format!("{}{}\n{}", &benign[..cut], attack, &benign[cut..]),
        ),
        (
            "inside HTML",
            format!(
                "<div class=\"review\"><p>{}</p><p>{}</p></div>",
                benign.chars().take(200).collect::<String>(),
                attack.replace(". ", ".</p><p>").replace('\n', "<br>")
            ),
        ),
        (
            "inside a code block",
            format!("Here is the snippet you asked for:\n```\n{attack}\n```\nIt runs as is."),
        ),
        (
            "split across two fields",
            format!("{{\"subject\": \"{a}\", \"body\": \"{b}\"}}"),
        ),
        ("split across two lines", format!("Subject: {a}\nBody: {b}")),
        ("look-alike letters", look_alikes(attack)),
        ("vowels as HTML entities", entities(attack)),
    ]
}

// ------------------------------------------------------------ measuring

fn rate(hit: usize, n: usize) -> String {
    if n == 0 {
        return "–".to_owned();
    }
    format!("{hit}/{n} ({:.1} %)", 100.0 * hit as f64 / n as f64)
}

/// What the training was, for the report and the provenance.
pub struct Training<'a> {
    pub seed: u64,
    /// The header's lines of the texts' file (its packages and digests).
    pub header: &'a [String],
    pub examples: &'a [Example],
    pub counts: &'a Counts,
    pub params: &'a Params,
    pub runs: usize,
    pub train_secs: f64,
}

/// The held-out counts the floors are checked on: attacks caught of all,
/// benign texts flagged of all, the repository's strings flagged, and
/// results of 100 KB flagged of all.
pub struct Floors {
    pub caught: usize,
    pub attacks_n: usize,
    pub flagged_test: usize,
    pub benign_n: usize,
    pub repo_flagged: usize,
    pub flagged: usize,
    pub chunks: usize,
}

/// Measures `model` on every text, writes the report (to `report_path`
/// and stdout) and the weights with their provenance (to `weights_path`).
#[allow(clippy::too_many_arguments)]
pub fn measure(
    texts: &[Text],
    repo: &[Text],
    translated: &[Text],
    training: &Training,
    model: &mut Weights,
    bar: &Bar,
    weights_path: &str,
    report_path: &str,
) -> Floors {
    let Training {
        seed,
        header,
        examples,
        counts,
        params,
        runs,
        train_secs,
    } = *training;
    let Bar {
        window_count,
        top,
        fitted,
        ref slope_curve,
        ref benign_bests,
        ref attack_bests,
        ref chunk_bests,
    } = *bar;
    let (threshold, base) = (model.threshold, model.base);
    // A text's margin: its best window's score less its bar (flagged at 0
    // or more); the curve below moves every bar by the same amount.
    let margin_with = |m: &Weights, text: &str| {
        m.best_of(text)
            .map_or(f64::NEG_INFINITY, |(b, n)| b.score - m.threshold_for(n))
    };
    let margin_of = |&(s, n): &(f64, usize)| s - model.threshold_for(n);
    let mut valid: Vec<f64> = benign_bests.iter().map(margin_of).collect();
    valid.sort_by(|a, b| b.total_cmp(a));
    let valid_chunks: Vec<f64> = chunk_bests.iter().map(margin_of).collect();
    let valid_all: Vec<f64> = attack_bests.iter().map(margin_of).collect();

    let above = |xs: &[f64], th: f64| xs.iter().filter(|&&x| x >= th).count();
    let mut report = String::new();
    let r = &mut report;
    let _ = writeln!(r, "# Detector: measured (seed {seed})\n");
    let _ = writeln!(
        r,
        "Training windows: {} ({} attack, {} benign); {:.1} s to train natively.",
        examples.len(),
        examples.iter().filter(|e| e.label == 1).count(),
        examples.iter().filter(|e| e.label == 0).count(),
        train_secs
    );
    let _ = writeln!(r, "A text of n windows is flagged when its best window scores at least max({threshold:.4}, {base:.4} + {:.2} · ln n) (the slope chosen on validation; fitted to the top {top} of {} benign validation windows as if they were independent it would be {fitted:.4}): {} of the {} benign validation texts flagged; {} of the {} validation results of 100 KB and 25 KB made of them. The bar at 10, 100, 1,000 and 5,000 windows (100 KB of prose has 3,000 to 5,500): {:.2}, {:.2}, {:.2}, {:.2}.\n",
        model.slope, window_count, above(&valid, 0.0), valid.len(), above(&valid_chunks, 0.0), valid_chunks.len(),
        model.threshold_for(10), model.threshold_for(100), model.threshold_for(1000), model.threshold_for(5000));
    let _ = writeln!(
        r,
        "Slopes tried (validation attacks as they are and inside benign texts, {} in all): {}.\n",
        attack_bests.len(),
        slope_curve
            .iter()
            .map(|(s, t, b, c)| format!("{s:.1}: max({t:.2}, {b:.2} + {s:.1} ln n) catches {c}"))
            .collect::<Vec<_>>()
            .join("; ")
    );
    let valid_attacks: Vec<f64> = texts
        .iter()
        .filter(|t| t.label == 1 && split_of(t) == Split::Valid)
        .map(|t| margin_with(model, &t.text))
        .collect();
    let valid_short: Vec<f64> = texts
        .iter()
        .filter(|t| t.label == 1 && split_of(t) == Split::Valid && !is_jailbreak(&t.source))
        .map(|t| margin_with(model, &t.text))
        .collect();
    let _ = writeln!(r, "## The validation split's curve\n\nEvery bar moved by the same amount: where one benign validation text in 200, 400, 1,000 and 2,000 is flagged, then none, then no result of 25 or 100 KB; 0 is the bar chosen.\n\n| bar moved by | benign texts flagged | benign results of 25 and 100 KB flagged | attacks caught | attacks caught, jailbreaks aside | the same inside benign texts too |\n|---|---|---|---|---|---|");
    let mut marks: Vec<f64> = [200, 400, 1000, 2000]
        .iter()
        .map(|d| valid[(valid.len() / d).min(valid.len() - 1)] + 1e-9)
        .collect();
    marks.push(valid[0] + 1e-9);
    marks.push(
        valid_chunks
            .iter()
            .fold(f64::NEG_INFINITY, |m, &x| m.max(x))
            + 1e-9,
    );
    marks.push(0.0);
    for th in marks {
        let _ = writeln!(
            r,
            "| {th:.3} | {} | {} | {} | {} | {} |",
            rate(above(&valid, th), valid.len()),
            rate(above(&valid_chunks, th), valid_chunks.len()),
            rate(above(&valid_attacks, th), valid_attacks.len()),
            rate(above(&valid_short, th), valid_short.len()),
            rate(above(&valid_all, th), valid_all.len())
        );
    }
    let _ = writeln!(r);

    // Per source and split.
    let _ = writeln!(r, "## By source\n\n| source | kind | train | valid | test (held out) |\n|---|---|---|---|---|");
    let mut by: BTreeMap<(String, u8), [(usize, usize); 3]> = BTreeMap::new();
    for t in texts {
        let k = match split_of(t) {
            Split::Train => 0,
            Split::Valid => 1,
            Split::Test => 2,
            Split::Drop => continue,
        };
        let hit = model.flags(&t.text).is_some();
        let e = by.entry((t.source.clone(), t.label)).or_default();
        e[k].0 += usize::from(hit);
        e[k].1 += 1;
    }
    for t in repo {
        let hit = model.flags(&t.text).is_some();
        let e = by.entry((t.source.clone(), t.label)).or_default();
        e[2].0 += usize::from(hit);
        e[2].1 += 1;
    }
    let mut totals = [[(0, 0); 3]; 2];
    for ((source, label), s) in &by {
        let kind = if *label == 1 {
            "attack: caught"
        } else {
            "benign: flagged"
        };
        let _ = writeln!(
            r,
            "| {source} | {kind} | {} | {} | {} |",
            rate(s[0].0, s[0].1),
            rate(s[1].0, s[1].1),
            rate(s[2].0, s[2].1)
        );
        // (The benign texts written for this detector are counted apart:
        // their held-out part is two frames of hard cases, not a sample.)
        if !source.starts_with("repo:") && !source.starts_with("generated:") {
            for k in 0..3 {
                totals[usize::from(*label)][k].0 += s[k].0;
                totals[usize::from(*label)][k].1 += s[k].1;
            }
        }
    }
    for (label, kind) in [(1, "all attacks: caught"), (0, "all benign: flagged")] {
        let s = totals[label];
        let _ = writeln!(
            r,
            "| **packages** | {kind} | {} | {} | {} |",
            rate(s[0].0, s[0].1),
            rate(s[1].0, s[1].1),
            rate(s[2].0, s[2].1)
        );
    }

    // Benign text by the 100 KB, as one long result would carry it.
    let mut chunk = String::new();
    let (mut chunks, mut flagged) = (0, 0);
    let mut spans_flagged = Vec::new();
    for t in texts
        .iter()
        .filter(|t| t.label == 0 && split_of(t) == Split::Test)
    {
        chunk.push_str(&t.text);
        chunk.push('\n');
        if chunk.len() >= 100_000 {
            chunks += 1;
            if let Some(b) = model.flags(&chunk) {
                flagged += 1;
                spans_flagged.push(chunk[b.start..b.end].chars().take(160).collect::<String>());
            }
            chunk.clear();
        }
    }
    let _ = writeln!(r, "\nHeld-out benign text in results of 100 KB (the texts of the test split end to end): {} flagged.", rate(flagged, chunks));

    // Adversarial variants of held-out attacks that are not jailbreaks.
    let benign_hosts: Vec<&Text> = texts
        .iter()
        .filter(|t| {
            t.label == 0
                && split_of(t) == Split::Test
                && t.text.len() > 1500
                && t.source == "debian:python3.11-doc"
        })
        .collect();
    let attacks: Vec<&Text> = texts
        .iter()
        .filter(|t| t.label == 1 && split_of(t) == Split::Test && !is_jailbreak(&t.source))
        .collect();
    let mut vrng = Rng(0x0005_eed0_f7a7_1a75 ^ seed);
    let mut table_v: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    for (i, t) in attacks.iter().enumerate() {
        let host = &benign_hosts[i % benign_hosts.len()].text;
        let plain = model.flags(&t.text).is_some();
        let e = table_v.entry("as extracted").or_default();
        e.0 += usize::from(plain);
        e.1 += 1;
        for (name, v) in variants(&t.text, host, &mut vrng) {
            let e = table_v.entry(name).or_default();
            // Read as the core reads a result (`as_read`).
            e.0 += usize::from(model.flags(&as_read(&v)).is_some());
            e.1 += 1;
        }
    }
    let mut lang: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut lang_misses = Vec::new();
    for t in translated {
        let hit = model.flags(&t.text).is_some();
        let e = lang.entry(t.source.clone()).or_default();
        e.0 += usize::from(hit);
        e.1 += 1;
        if !hit {
            lang_misses.push(format!("{}: {}", t.source, t.text));
        }
    }
    let _ = writeln!(r, "\n## Adversarial variants of the held-out attacks (jailbreaks aside; never trained on)\n\n| variant | caught |\n|---|---|");
    for (name, (h, n)) in &table_v {
        let _ = writeln!(r, "| {name} | {} |", rate(*h, *n));
    }
    for (name, (h, n)) in &lang {
        let _ = writeln!(r, "| {name} | {} |", rate(*h, *n));
    }

    // Speed: 100 KB of held-out benign text, best of ten.
    let mut text100 = String::new();
    for t in texts
        .iter()
        .filter(|t| t.label == 0 && split_of(t) == Split::Test)
    {
        if text100.len() >= 100_000 {
            break;
        }
        text100.push_str(&t.text);
        text100.push('\n');
    }
    let text100: String = text100.chars().take(100_000).collect();
    // (Kept for `wasm-time.mjs`: the same 100 KB timed in Wasm.)
    let _ = std::fs::write(format!("{weights_path}.100k.txt"), &text100);
    let mut best_ns = u128::MAX;
    for _ in 0..10 {
        let t0 = Instant::now();
        std::hint::black_box(model.best(std::hint::black_box(&text100)));
        best_ns = best_ns.min(t0.elapsed().as_nanos());
    }
    let _ = writeln!(
        r,
        "\nTime to read {} bytes of benign text (native, this build, best of 10): {:.2} ms.",
        text100.len(),
        best_ns as f64 / 1e6
    );

    // What it flags that it should not, and what it misses.
    let _ = writeln!(r, "\n## The highest-scoring benign validation texts\n");
    let mut top: Vec<(f64, &Text)> = texts
        .iter()
        .filter(|t| t.label == 0 && split_of(t) == Split::Valid)
        .map(|t| (margin_with(model, &t.text), t))
        .collect();
    top.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (s, t) in top.iter().take(8) {
        let b = model.best(&t.text).expect("scored");
        let _ = writeln!(
            r,
            "- {} ({s:.2}): {:?}",
            t.source,
            t.text[b.start..b.end].chars().take(200).collect::<String>()
        );
    }
    let _ = writeln!(r, "\n## Benign held-out texts flagged (best window)\n");
    for t in texts
        .iter()
        .filter(|t| t.label == 0 && split_of(t) == Split::Test)
        .chain(repo.iter().filter(|t| t.label == 0))
    {
        if let Some(b) = model.flags(&t.text) {
            let _ = writeln!(
                r,
                "- {} ({:.2}): {:?}",
                t.source,
                b.score,
                t.text[b.start..b.end].chars().take(200).collect::<String>()
            );
        }
    }
    for s in &spans_flagged {
        let _ = writeln!(r, "- a 100 KB result: {s:?}");
    }
    let _ = writeln!(r, "\n## Held-out attacks missed (jailbreaks aside)\n");
    for t in &attacks {
        if model.flags(&t.text).is_none() {
            let _ = writeln!(
                r,
                "- {}: {:?}",
                t.source,
                t.text.chars().take(200).collect::<String>()
            );
        }
    }
    for m in &lang_misses {
        let _ = writeln!(r, "- {m:?}");
    }

    // The provenance, then the weights.
    let mut provenance = String::from("toolgate detector weights (detector/src/main.rs)\n");
    for h in header {
        if h.starts_with("package ") {
            let _ = writeln!(provenance, "{h}");
        }
    }
    let _ = writeln!(provenance, "seed {seed}\nbuckets {BUCKETS} window {WINDOW} epochs {} rate {} l2 {} positive_share {} jailbreak_share {} runs {runs}",
        params.epochs, params.rate, params.l2, params.positive_share, params.jailbreak_share);
    for ((source, label, split), n) in counts {
        let _ = writeln!(provenance, "texts {source} label {label} {split} {n}");
    }
    let _ = writeln!(
        provenance,
        "threshold {} base {} slope {}",
        model.threshold, model.base, model.slope
    );
    model.provenance = provenance.clone();
    let bytes = model.write();
    std::fs::write(weights_path, &bytes).expect("write weights");
    let _ = writeln!(
        r,
        "\nWeights: {} bytes; table {} buckets of i8.",
        bytes.len(),
        BUCKETS
    );
    std::fs::write(report_path, &report).expect("write report");
    print!("{report}");

    let (caught, attacks_n) = totals[1][2];
    let (flagged_test, benign_n) = totals[0][2];
    let repo_flagged = by.get(&("repo:pages".to_owned(), 0)).map_or(0, |s| s[2].0);
    Floors {
        caught,
        attacks_n,
        flagged_test,
        benign_n,
        repo_flagged,
        flagged,
        chunks,
    }
}
