//! The audit's chain (docs/rules.md, "Every site, side by side, and the
//! audit"): each entry carries the SHA-256 of the one before it, so a gap or
//! a rewrite in a log shows. Pure: the worker appends each entry's JSON text
//! as written and asks here for its link; the settings page asks whether a
//! log is whole and where it breaks.

use serde::{Deserialize, Serialize};

/// What comes before the first entry a log ever held.
pub const START: &str = "";

/// An entry's hash: the SHA-256, in lower-case hex, of the hash before it,
/// a line feed, and the entry's JSON text as written. Anyone can check it
/// with any SHA-256 (docs/rules.md says how).
pub fn link(prev: &str, text: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(prev.as_bytes());
    hasher.update(b"\n");
    hasher.update(text.as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One entry of a log as stored: its number in the log, the hash before it,
/// its own, and its JSON text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Linked {
    pub seq: u64,
    pub prev: String,
    pub hash: String,
    pub text: String,
}

/// Where a log breaks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum Break {
    /// Entries before `seq` are missing: its `prev` is not the hash of the
    /// entry kept before it (or, for the first, of the last one the log let go).
    Missing { seq: u64 },
    /// The entry `seq` is not what was written: its text or its hash changed.
    Rewritten { seq: u64 },
    /// Entries after `seq` (the newest kept, or 0 for none) are missing: the
    /// log's last hash is not its newest entry's.
    Cut { seq: u64 },
}

/// Where a log of `entries`, oldest first, breaks; `before` is the hash of
/// the last entry the log let go as it grew past its bounds (`START` for a
/// log that never did), `last` the hash of the last entry it wrote. Empty:
/// the log is whole.
pub fn breaks(before: &str, last: &str, entries: &[Linked]) -> Vec<Break> {
    let mut found = Vec::new();
    let mut expected = before;
    let mut last_seq = None;
    for entry in entries {
        let skipped = last_seq.is_some_and(|last: u64| entry.seq != last.saturating_add(1));
        if entry.prev != expected || skipped {
            found.push(Break::Missing { seq: entry.seq });
        }
        if link(&entry.prev, &entry.text) != entry.hash {
            found.push(Break::Rewritten { seq: entry.seq });
        }
        expected = &entry.hash;
        last_seq = Some(entry.seq);
    }
    if expected != last {
        found.push(Break::Cut {
            seq: last_seq.unwrap_or(0),
        });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(texts: &[&str]) -> Vec<Linked> {
        let mut prev = START.to_owned();
        texts
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let hash = link(&prev, text);
                Linked {
                    seq: i as u64 + 1,
                    prev: std::mem::replace(&mut prev, hash.clone()),
                    hash,
                    text: (*text).to_owned(),
                }
            })
            .collect()
    }

    #[test]
    fn a_link_is_the_sha256_of_the_hash_before_a_line_feed_and_the_text() {
        // printf '\n{"at":1}' | sha256sum
        assert_eq!(
            link(START, r#"{"at":1}"#),
            "f2516f90311d20a9da81257443278358856beaa60fe5073570e8a790fc8588cf"
        );
    }

    #[test]
    fn a_log_as_written_is_whole() {
        let whole = log(&["a", "b", "c"]);
        assert_eq!(breaks(START, &whole[2].hash, &whole), vec![]);
        assert_eq!(breaks(START, START, &[]), vec![]);
    }

    #[test]
    fn a_removed_entry_a_rewritten_one_and_a_missing_start_each_show_where() {
        let whole = log(&["a", "b", "c", "d"]);
        let last = whole[3].hash.clone();
        let mut removed = whole.clone();
        removed.remove(1);
        assert_eq!(
            breaks(START, &last, &removed),
            vec![Break::Missing { seq: 3 }]
        );
        let mut rewritten = whole.clone();
        rewritten[2].text = "C".to_owned();
        assert_eq!(
            breaks(START, &last, &rewritten),
            vec![Break::Rewritten { seq: 3 }]
        );
        // A rewrite that recomputes its own hash breaks the next link.
        rewritten[2].hash = link(&rewritten[2].prev, "C");
        assert_eq!(
            breaks(START, &last, &rewritten),
            vec![Break::Missing { seq: 4 }]
        );
        // The first kept entry follows the last the log let go.
        assert_eq!(breaks(&whole[0].hash, &last, &whole[1..]), vec![]);
        assert_eq!(
            breaks(&whole[0].hash, &last, &whole[2..]),
            vec![Break::Missing { seq: 3 }]
        );
        // The newest entries removed: the log ends before its last hash.
        assert_eq!(
            breaks(START, &last, &whole[..2]),
            vec![Break::Cut { seq: 2 }]
        );
        assert_eq!(breaks(START, &last, &[]), vec![Break::Cut { seq: 0 }]);
    }
}
