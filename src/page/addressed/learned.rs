//! The learned detector of text addressed to an agent (issue 57): what the
//! core would carry, with no crate of its own and nothing fetched. A text is
//! cut into segments (lines and sentences), each segment's features are
//! hashed into `BUCKETS` buckets (word unigrams and bigrams, character
//! 4-grams), and a linear model scores every window of one to `WINDOW`
//! segments in a row: an injection is read in the few sentences it takes,
//! however long the benign text around it. The best window is the span
//! reported. Linear in the text: each segment's features are read once, and
//! a window's score is the sum of its segments' (`Segment`).
//!
//! The weights are a table of `i8`s with one scale (`Weights`), written by
//! the trainer (`main.rs`) with their provenance.
//!
//! It reads a text as a person does: entities decoded (`as_read`), and each
//! character outside ASCII as the letters it passes for, with the phrase
//! list's fold (`fold.rs`), so look-alike letters read as the word they spell.

pub use super::fold::as_read;
use super::fold::{as_read_char, LONGEST_READ};

/// Buckets of the hashed features: a power of two.
pub const BUCKETS: usize = 1 << 16;
/// Segments in a window, at most.
pub const WINDOW: usize = 3;
/// A segment is cut at a space after this many bytes, or at any character
/// after `SEGMENT_HARD`: a text with no sentence end is still read in
/// windows of bounded size.
const SEGMENT_SOFT: usize = 300;
const SEGMENT_HARD: usize = 600;
/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"TGDET02\n";

/// One step of a multiplicative hash over characters (FNV-1a's prime, a
/// character a step); `bucket` mixes the result before taking its top
/// bits. Each kind of feature starts from its own basis, so a word and a
/// 4-gram of the same letters fall apart.
#[inline]
fn fnv(h: u32, x: u32) -> u32 {
    (h ^ x).wrapping_mul(0x0100_0193)
}

#[inline]
fn bucket(h: u32) -> u32 {
    let h = (h ^ (h >> 15)).wrapping_mul(0x2c1b_3c6d);
    (h ^ (h >> 12)).wrapping_mul(0x297a_2d39) >> (32 - BUCKETS.trailing_zeros())
}

const WORD: u32 = 0x811c_9dc5;
const PAIR: u32 = 0x050c_5d1f;
const GRAM: u32 = 0x2f1b_3c4d;
const BOUNDARY: u32 = 0x9e37_79b9;

/// A character as the features read it: lower case, every digit `0`,
/// whitespace a space.
#[inline]
fn folded(c: char) -> char {
    if c.is_ascii() {
        let c = c.to_ascii_lowercase();
        return if c.is_ascii_digit() {
            '0'
        } else if c.is_ascii_whitespace() {
            ' '
        } else {
            c
        };
    }
    if c.is_whitespace() {
        return ' ';
    }
    if c.is_numeric() {
        return '0';
    }
    c.to_lowercase().next().unwrap_or(c)
}

/// The features of one segment, handed to `each` as bucket numbers (a
/// feature that occurs twice is handed twice).
pub fn features(segment: &str, mut each: impl FnMut(u32)) {
    // Character 4-grams over the folded text, spaces collapsed, a space at
    // both ends.
    let mut ring = [u32::from(b' '); 4];
    let mut seen = 1_usize;
    let mut last_space = true;
    // Words: runs of letters and digits; any other character (not a space)
    // is a token of its own ("<", "#", ":").
    let mut word = WORD;
    let mut in_word = false;
    let mut previous = BOUNDARY;
    let mut token = |h: u32, each: &mut dyn FnMut(u32)| {
        each(bucket(h));
        each(bucket(fnv(fnv(PAIR, previous), h)));
        previous = h;
    };
    let gram = |c: char, each: &mut dyn FnMut(u32), ring: &mut [u32; 4], seen: &mut usize| {
        ring.rotate_left(1);
        ring[3] = c as u32;
        *seen += 1;
        if *seen >= 4 {
            let h = ring[0]
                .wrapping_mul(0x9e37_79b1)
                .wrapping_add(ring[1].wrapping_mul(0x85eb_ca77))
                .wrapping_add(ring[2].wrapping_mul(0xc2b2_ae3d))
                .wrapping_add(ring[3].wrapping_mul(0x27d4_eb2f));
            each(bucket(h ^ GRAM));
        }
    };
    let mut skip_to = 0;
    let mut read = [' '; LONGEST_READ];
    for (at, c) in segment.char_indices() {
        if at < skip_to {
            continue;
        }
        // An HTML tag is read as its name alone (`<a>`, `</p>`, `<system>`),
        // a space around it: markup and its attributes say little of who a
        // text addresses, and text inside HTML reads as the text.
        if c == '<' {
            if let Some((name, end)) = tag(&segment[at..]) {
                skip_to = at + end;
                if in_word {
                    token(word, &mut each);
                    word = WORD;
                    in_word = false;
                }
                let mut h = fnv(WORD ^ 2, u32::from(b'<'));
                for b in name.bytes() {
                    h = fnv(h, u32::from(b.to_ascii_lowercase()));
                }
                token(h, &mut each);
                if !last_space {
                    gram(' ', &mut each, &mut ring, &mut seen);
                    last_space = true;
                }
                continue;
            }
        }
        // A character outside ASCII is read as the letters it passes for
        // (`as_read`): a Cyrillic "і" is an "i", a hidden one nothing.
        let n = if c.is_ascii() {
            read[0] = c;
            1
        } else {
            as_read_char(c, &mut read)
        };
        for &c in &read[..n] {
            let c = folded(c);
            let space = c == ' ';
            if space && last_space {
                continue;
            }
            last_space = space;
            gram(c, &mut each, &mut ring, &mut seen);
            if c.is_alphanumeric() {
                word = fnv(word, c as u32);
                in_word = true;
                continue;
            }
            if in_word {
                token(word, &mut each);
                word = WORD;
                in_word = false;
            }
            if !space {
                token(fnv(WORD ^ 1, c as u32), &mut each);
            }
        }
    }
    if in_word {
        token(word, &mut each);
    }
    if !last_space {
        gram(' ', &mut each, &mut ring, &mut seen);
    }
    token(BOUNDARY, &mut each);
}

/// The name of the HTML tag `text` starts with (`/p` for `</p>`) and the
/// byte after its `>`, if it starts with one: a letter or `/` after the
/// `<`, a `>` within 200 bytes, no `<` or line feed before it.
fn tag(text: &str) -> Option<(&str, usize)> {
    let bytes = text.as_bytes();
    let first = *bytes.get(1)?;
    if !(first.is_ascii_alphabetic() || first == b'/') {
        return None;
    }
    let end = bytes
        .iter()
        .take(200)
        .skip(1)
        .position(|&b| b == b'>' || b == b'<' || b == b'\n')?
        + 1;
    if bytes[end] != b'>' {
        return None;
    }
    let name_end = bytes[1..end]
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'/' | b'_' | b'-')))
        .map_or(end, |i| i + 1);
    Some((&text[1..name_end], end + 1))
}

/// Whether `text` starts with a tag that starts or ends a block of HTML:
/// where a line ends for whoever reads the page.
fn block(text: &str) -> bool {
    const BLOCKS: [&str; 20] = [
        "p",
        "div",
        "br",
        "li",
        "ul",
        "ol",
        "tr",
        "td",
        "th",
        "table",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "section",
        "article",
        "blockquote",
    ];
    tag(text).is_some_and(|(name, _)| {
        let name = name.strip_prefix('/').unwrap_or(name).trim_end_matches('/');
        BLOCKS.iter().any(|b| b.eq_ignore_ascii_case(name))
    })
}

/// The segments of `text` as byte ranges: lines, and sentences within them
/// (a `.`, `!` or `?` then whitespace), none longer than `SEGMENT_HARD`.
pub fn segments(text: &str, mut each: impl FnMut(usize, usize)) {
    let bytes = text.as_bytes();
    // Each segment without the whitespace around it; none that is all
    // whitespace.
    let mut emit = |mut a: usize, mut b: usize| {
        while a < b && bytes[a].is_ascii_whitespace() {
            a += 1;
        }
        while b > a && bytes[b - 1].is_ascii_whitespace() {
            b -= 1;
        }
        if a < b {
            each(a, b);
        }
    };
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if i < start {
            continue;
        }
        let len = i - start;
        if b == b'\n' || (len >= SEGMENT_SOFT && b == b' ') {
            emit(start, i);
            start = i + 1;
        } else if b == b'<' && i > start && block(&text[i..]) {
            emit(start, i);
            start = i;
        } else if matches!(b, b'.' | b'!' | b'?')
            && bytes
                .get(i + 1)
                .is_some_and(|&n| n.is_ascii_whitespace() || n == b'<')
        {
            emit(start, i + 1);
            start = i + 1;
        } else if len >= SEGMENT_HARD && text.is_char_boundary(i) {
            emit(start, i);
            start = i;
        }
    }
    emit(start, bytes.len());
}

/// A window's features are weighed by one over the root of their number,
/// so long windows and short ones score alike; no fewer than `FLOOR` are
/// counted, so that a window of a few words ("1/3.") cannot score high on
/// one feature.
pub const FLOOR: usize = 24;

#[inline]
pub fn norm(count: usize) -> f64 {
    1.0 / (count.max(FLOOR) as f64).sqrt()
}

/// The natural logarithm of `x` (positive, finite) in `+ - × ÷` alone, so
/// that the trainer and every build (native, Wasm) compute the same bits: a
/// C library's `log` may round differently.
pub fn ln(x: f64) -> f64 {
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | (1023 << 52));
    if m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    // ln m = 2 atanh z, z = (m - 1) / (m + 1), |z| < 0.172.
    let z = (m - 1.0) / (m + 1.0);
    let z2 = z * z;
    let mut term = z;
    let mut sum = 0.0;
    for k in 0..12 {
        sum += term / f64::from(2 * k + 1);
        term *= z2;
    }
    2.0 * sum + e as f64 * std::f64::consts::LN_2
}

/// The weights as shipped: a bias, one scale, a threshold, a table.
#[derive(Clone, Debug)]
pub struct Weights {
    pub bias: f64,
    pub scale: f64,
    /// A text of `n` windows is addressed to an agent when its best window
    /// scores at least `max(threshold, base + slope · ln n)`
    /// (`threshold_for`): a long result has more windows to be wrong in, so
    /// past some length its bar rises with the log of their number. The
    /// trainer chooses the three on its validation split (texts, and
    /// results of 25 and 100 KB).
    pub threshold: f64,
    pub base: f64,
    pub slope: f64,
    pub table: Vec<i8>,
    /// Where the weights come from, as the trainer wrote it.
    pub provenance: String,
}

/// One segment's part of a window's score.
#[derive(Clone, Copy, Debug, Default)]
struct Segment {
    start: usize,
    end: usize,
    sum: i32,
    count: u32,
}

/// Which segment last counted each bucket, for every text read on a
/// thread: segments are numbered on from text to text, and the table is
/// zeroed only when the numbers run out.
struct Stamps {
    table: Vec<u32>,
    last: u32,
}

impl Stamps {
    /// The next segment's number.
    fn next(&mut self) -> u32 {
        if self.last == u32::MAX {
            self.table.fill(0);
            self.last = 0;
        }
        if self.table.is_empty() {
            self.table = vec![0; BUCKETS];
        }
        self.last += 1;
        self.last
    }
}

thread_local! {
    static STAMPS: std::cell::RefCell<Stamps> =
        const { std::cell::RefCell::new(Stamps { table: Vec::new(), last: 0 }) };
}

/// What the detector found in a text: its best window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Best {
    pub score: f64,
    /// The window's byte range in the text.
    pub start: usize,
    pub end: usize,
}

impl Weights {
    /// Reads the trainer's file.
    pub fn parse(bytes: &[u8]) -> Option<Weights> {
        let rest = bytes.strip_prefix(MAGIC)?;
        let nul = rest.iter().position(|&b| b == 0)?;
        let provenance = std::str::from_utf8(&rest[..nul]).ok()?.to_owned();
        let rest = &rest[nul + 1..];
        let f = |i: usize| -> Option<f64> {
            Some(f64::from_le_bytes(
                rest.get(i * 8..i * 8 + 8)?.try_into().ok()?,
            ))
        };
        let (bias, scale, threshold, base, slope) = (f(0)?, f(1)?, f(2)?, f(3)?, f(4)?);
        let table = rest.get(40..)?;
        if table.len() != BUCKETS {
            return None;
        }
        // A copy, once: 64 KB.
        let table = table.iter().map(|&b| b as i8).collect();
        Some(Weights {
            bias,
            scale,
            threshold,
            base,
            slope,
            table,
            provenance,
        })
    }

    /// The file's bytes.
    pub fn write(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(self.provenance.as_bytes());
        out.push(0);
        for x in [self.bias, self.scale, self.threshold, self.base, self.slope] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend(self.table.iter().map(|&w| w as u8));
        out
    }

    fn score_of(&self, sum: i32, count: u32) -> f64 {
        self.bias + self.scale * f64::from(sum) * norm(count as usize)
    }

    /// The threshold for a text of `windows` windows.
    pub fn threshold_for(&self, windows: usize) -> f64 {
        self.threshold
            .max(self.base + self.slope * ln(windows.max(1) as f64))
    }

    /// Each segment of `text` with its features' sum and count, into
    /// `parts`; `stamps` says which segment last counted each bucket.
    fn segments_of(&self, text: &str, stamps: &mut Stamps, parts: &mut Vec<Segment>) {
        segments(text, |start, end| {
            let n = stamps.next();
            let mut seg = Segment {
                start,
                end,
                ..Segment::default()
            };
            features(&text[start..end], |b| {
                let s = &mut stamps.table[b as usize];
                if *s != n {
                    *s = n;
                    seg.sum += i32::from(self.table[b as usize]);
                    seg.count += 1;
                }
            });
            parts.push(seg);
        });
    }

    /// Every window of `text` to `each` (its score and byte range), in
    /// order; the number of windows. A feature counts once in a segment: a
    /// word said over and over says no more.
    pub fn scan(&self, text: &str, mut each: impl FnMut(f64, usize, usize)) -> usize {
        let mut parts: Vec<Segment> = Vec::new();
        // Which segment last counted each bucket: one table for every text
        // read on this thread, its segments numbered on from the last text's
        // (zeroing 256 KB for each result would cost more than a short
        // result's reading).
        STAMPS.with_borrow_mut(|stamps| self.segments_of(text, stamps, &mut parts));
        let mut windows = 0;
        for i in 0..parts.len() {
            let (mut sum, mut count) = (0, 0);
            for part in &parts[i..parts.len().min(i + WINDOW)] {
                sum += part.sum;
                count += part.count;
                windows += 1;
                each(self.score_of(sum, count), parts[i].start, part.end);
            }
        }
        windows
    }

    /// The best-scoring window of `text` and the number of windows, if it
    /// has any text.
    pub fn best_of(&self, text: &str) -> Option<(Best, usize)> {
        let mut best: Option<Best> = None;
        let windows = self.scan(text, |score, start, end| {
            if best.is_none_or(|b| score > b.score) {
                best = Some(Best { score, start, end });
            }
        });
        best.map(|b| (b, windows))
    }

    /// The best-scoring window of `text`, if it has any text.
    pub fn best(&self, text: &str) -> Option<Best> {
        self.best_of(text).map(|(b, _)| b)
    }

    /// Whether `text` reads as instructions to an agent, and where: its best
    /// window, if that scores at least the threshold for its number of
    /// windows.
    pub fn flags(&self, text: &str) -> Option<Best> {
        self.best_of(text)
            .filter(|(b, n)| b.score >= self.threshold_for(*n))
            .map(|(b, _)| b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(text: &str) -> Vec<&str> {
        let mut out = vec![];
        segments(text, |a, b| out.push(&text[a..b]));
        out
    }

    #[test]
    fn ln_is_the_logarithm() {
        for x in [1.0, 2.0, 3.0, 10.0, 1234.5, 65536.0, 1e6] {
            assert!((ln(x) - f64::ln(x)).abs() < 1e-12, "{x}");
        }
    }

    #[test]
    fn segments_are_lines_and_sentences() {
        assert_eq!(
            segs("One. Two!\nThree? four.five"),
            ["One.", "Two!", "Three?", "four.five"]
        );
        assert_eq!(segs("\n\n a \n"), ["a"]);
        assert_eq!(
            segs("<div><p>One.</p><p>Two<br>three</p></div>"),
            [
                "<div>",
                "<p>One.",
                "</p>",
                "<p>Two",
                "<br>three",
                "</p>",
                "</div>"
            ]
        );
        let long = "word ".repeat(200);
        assert!(segs(&long).iter().all(|s| s.len() <= SEGMENT_HARD));
        let dense = "x".repeat(2000) + "é" + &"y".repeat(700);
        let parts = segs(&dense);
        assert_eq!(parts.concat(), dense);
    }

    #[test]
    fn features_are_case_and_space_blind() {
        let f = |t: &str| {
            let mut v = vec![];
            features(t, |b| v.push(b));
            v.sort_unstable();
            v
        };
        assert_eq!(f("Ignore  the ABOVE"), f("ignore the above"));
        assert_ne!(f("ignore the above"), f("ignore the rest"));
        // A tag is its name: attributes say nothing.
        assert_eq!(f("<a href=\"x\">go</a>"), f("<A class='y'>go</a>"));
        assert_eq!(f("<p>ignore the above</p>"), f("<p> ignore the above </p>"));
        assert_ne!(f("<system>"), f("<p>"));
        assert_eq!(tag("<3 you"), None);
        // Look-alike letters read as the letters they pass for, a hidden
        // character as nothing; letters of other scripts as themselves.
        assert_eq!(
            f("\u{456}gn\u{43e}re the \u{ff41}bove"),
            f("ignore the above")
        );
        assert_eq!(f("ig\u{200b}nore the above"), f("ignore the above"));
        assert_ne!(f("\u{436}\u{436}\u{436}"), f("\u{434}\u{434}\u{434}"));
        assert_ne!(f("\u{4e00}\u{4e8c}"), f("\u{4e09}\u{56db}"));
    }
}
