//! The trainer's training: logistic regression by SGD over the windows
//! (`windows.rs`), the mean of several runs, quantisation to `i8`, and the
//! bar (threshold, base and slope) set on the validation split. `exp` and
//! `sigmoid` are written out here, in IEEE operations, so the weights are the
//! same bytes on any x86_64.

use crate::windows::{Example, Store};
use crate::{env, is_jailbreak, split_of, Rng, Split, Text};
use toolgate_detector::{norm, Weights, BUCKETS};

// ------------------------------------------------------------ determinism

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

// ------------------------------------------------------------ training

pub struct Trained {
    weights: Vec<f64>,
    pub bias: f64,
}

pub struct Params {
    pub epochs: usize,
    pub rate: f64,
    pub l2: f64,
    /// The attacks' total weight against the benign texts'.
    pub positive_share: f64,
    /// A jailbreak's window's weight against another attack's.
    pub jailbreak_share: f64,
}

fn train(store: &Store, examples: &mut [Example], params: &Params, rng: &mut Rng) -> Trained {
    let mut w = vec![0.0_f64; BUCKETS];
    let mut bias = 0.0_f64;
    let share = |e: &Example| {
        if e.jailbreak {
            params.jailbreak_share
        } else {
            1.0
        }
    };
    let (pos, neg) = examples.iter().fold((0.0, 0.0), |(p, n), e| {
        if e.label == 1 {
            (p + share(e), n)
        } else {
            (p, n + 1.0)
        }
    });
    for e in examples.iter_mut() {
        e.weight = if e.label == 1 {
            share(e) * params.positive_share * neg / pos
        } else {
            1.0
        };
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
pub fn quantise(t: &Trained) -> (Vec<i8>, f64) {
    let max = t.weights.iter().fold(0.0_f64, |m, w| m.max(w.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    let q = t
        .weights
        .iter()
        .map(|w| (w / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    (q, scale)
}

/// The mean of `runs` trainings, each in its own order (the rng runs on).
pub fn averaged(
    store: &Store,
    examples: &mut [Example],
    params: &Params,
    runs: usize,
    rng: &mut Rng,
) -> Trained {
    let mut trained = train(store, examples, params, rng);
    for _ in 1..runs {
        let more = train(store, examples, params, rng);
        for (w, m) in trained.weights.iter_mut().zip(&more.weights) {
            *w += m;
        }
        trained.bias += more.bias;
    }
    for w in trained.weights.iter_mut() {
        *w /= runs as f64;
    }
    trained.bias /= runs as f64;
    trained
}

// ------------------------------------------------------------ the bar

/// What setting the bar measured, for the report: the validation split's
/// window count, the fit's tail and slope, the slopes tried (slope,
/// threshold, base, attacks caught), and each validation text's (benign,
/// attack, 25 and 100 KB result) best window and window count.
pub struct Bar {
    pub window_count: usize,
    pub top: usize,
    pub fitted: f64,
    pub slope_curve: Vec<(f64, f64, f64, usize)>,
    pub benign_bests: Vec<(f64, usize)>,
    pub attack_bests: Vec<(f64, usize)>,
    pub chunk_bests: Vec<(f64, usize)>,
}

/// Sets `model`'s threshold, base and slope on the validation split.
pub fn bar(texts: &[Text], model: &mut Weights) -> Bar {
    // The slope: how fast the best of n benign windows rises with n. The
    // scores of every window of the validation split's benign texts, their
    // upper tail (ranks 10 to 1 in 100) fitted as exponential: score =
    // a - slope · ln(rank / N). A text of n windows is then held to
    // threshold + slope · ln n, which keeps its chance of a false flag about
    // that of a one-window text (windows overlap, so rather less).
    let mut window_scores = Vec::new();
    for t in texts
        .iter()
        .filter(|t| t.label == 0 && split_of(t) == Split::Valid)
    {
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
    let valid_benign: Vec<&Text> = texts
        .iter()
        .filter(|t| t.label == 0 && split_of(t) == Split::Valid)
        .collect();
    let valid_attack_texts: Vec<&Text> = texts
        .iter()
        .filter(|t| t.label == 1 && split_of(t) == Split::Valid)
        .collect();
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
        ts.iter()
            .map(|t| {
                model
                    .best_of(&t.text)
                    .map_or((f64::NEG_INFINITY, 1), |(b, n)| (b.score, n))
            })
            .collect()
    };
    let benign_bests = bests(&valid_benign);
    // The validation attacks as they are, and each inside a validation
    // benign text of over 1,500 bytes (in its middle, on lines of its own):
    // a slope is paid for by attacks in long texts, so the choice must see
    // them.
    let hosts: Vec<&&Text> = valid_benign
        .iter()
        .filter(|t| t.text.len() > 1500)
        .collect();
    let mut attack_bests = bests(&valid_attack_texts);
    for (i, t) in valid_attack_texts
        .iter()
        .enumerate()
        .filter(|(_, t)| !is_jailbreak(&t.source))
    {
        let host = &hosts[i % hosts.len()].text;
        let cut = host
            .char_indices()
            .nth(host.chars().count() / 2)
            .map_or(0, |(i, _)| i);
        let text = format!("{}\n{}\n{}", &host[..cut], t.text, &host[cut..]);
        attack_bests.push(
            model
                .best_of(&text)
                .map_or((f64::NEG_INFINITY, 1), |(b, n)| (b.score, n)),
        );
    }
    let chunk_bests: Vec<(f64, usize)> = chunk_texts
        .iter()
        .map(|c| {
            model
                .best_of(c)
                .map_or((f64::NEG_INFINITY, 1), |(b, n)| (b.score, n))
        })
        .collect();
    // For a slope s: `base` is the least that clears every validation
    // result of 25 and 100 KB (their best window less s · ln n, the
    // highest, plus a hair); `threshold` (the floor for short texts) the
    // least that leaves at most one validation text in 2,000 at or above
    // max(threshold, base + s · ln n).
    let allowed = benign_bests.len() / env("DET_ALLOWED", 2000.0) as usize;
    let bar = |th: f64, base: f64, slope: f64, n: usize| {
        th.max(base + slope * toolgate_detector::ln(n as f64))
    };
    let thresholds_at = |slope: f64| {
        let base = chunk_bests
            .iter()
            .map(|&(s, n)| s - slope * toolgate_detector::ln(n as f64))
            .fold(f64::NEG_INFINITY, f64::max)
            + 1e-9;
        let mut over: Vec<f64> = benign_bests
            .iter()
            .filter(|&&(s, n)| s >= bar(f64::NEG_INFINITY, base, slope, n))
            .map(|&(s, _)| s)
            .collect();
        over.sort_by(|x, y| y.total_cmp(x));
        let th = if over.len() > allowed {
            over[allowed] + 1e-9
        } else {
            f64::NEG_INFINITY
        };
        let caught = attack_bests
            .iter()
            .filter(|&&(s, n)| s >= bar(th, base, slope, n))
            .count();
        (th, base, caught)
    };
    let slope_curve: Vec<(f64, f64, f64, usize)> = (0..=30)
        .map(|k| {
            let sl = f64::from(k) / 10.0;
            let (th, base, caught) = thresholds_at(sl);
            (sl, th, base, caught)
        })
        .collect();
    // Precision first: of the slopes that catch at least 95 % of the most
    // any catches, the one with the highest floor for short texts (the
    // threshold), then the most caught, then the gentler slope. The most
    // caught alone turns on the few benign texts that set the threshold:
    // one seed's bar chose a floor of 3.4 where its neighbours' was 5.3
    // (NOTES.md).
    let most = slope_curve.iter().map(|c| c.3).max().unwrap_or(0);
    let slope = slope_curve
        .iter()
        .filter(|c| c.3 * 20 >= most * 19)
        .max_by(|a, b| {
            a.1.total_cmp(&b.1)
                .then(a.3.cmp(&b.3))
                .then(b.0.total_cmp(&a.0))
        })
        .map_or(0.0, |c| c.0);
    model.slope = env("DET_SLOPE", slope);
    let (threshold, base, _) = thresholds_at(model.slope);
    (model.threshold, model.base) = (threshold, base);
    Bar {
        window_count: window_scores.len(),
        top,
        fitted,
        slope_curve,
        benign_bests,
        attack_bests,
        chunk_bests,
    }
}
