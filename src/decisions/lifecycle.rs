//! Tools that appear mid-chat (docs/cards.md, "Tools that appear after a
//! chat listed them"; docs/agents.md, "New tools in a listing"): what each
//! chat has seen of each site's tools since it first listed them
//! (`SeenTools`, kept with the chat's answers, so in the stored session),
//! which of a site's tools are new to it (`Appeared`), and, in `changes`,
//! the registrations, re-registrations and unregistrations on a site some
//! open chat has listed, for the audit, bounded per frame.
//!
//! A tool is the same tool for a chat while its name and its definition
//! (`Tool::definition`: its texts, schema, hints and where it comes from)
//! are what the chat saw: one unregistered and registered again unchanged
//! is not new. Pages are hostile, so what is kept is bounded and fixed in
//! size: a site is kept as 16 hexadecimal digits of its SHA-256, and each
//! tool as 24 (8 of its name's, 16 of its name and definition's), at most
//! `NAMES_PER_SITE` a site and `SITES_PER_CHAT` sites a chat.

pub mod changes;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The most tools a chat keeps as seen on one site. Past it, a site's
/// other tools are new to the chat: each is asked about at its first call
/// (and, where no room is left, the one it saw longest ago gives way).
pub const NAMES_PER_SITE: usize = 256;
/// The most sites a chat keeps what it saw of. Past it, the site it listed
/// longest ago is forgotten, and its next listing is a first one.
pub const SITES_PER_CHAT: usize = 32;

/// Hexadecimal digits of a tool's name kept, and of its name and definition.
const NAME_DIGITS: usize = 8;
const IDENTITY_DIGITS: usize = 16;
const ENTRY: usize = NAME_DIGITS + IDENTITY_DIGITS;

/// Why a tool is new to a chat that listed its site's tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Appeared {
    /// No tool of its name was there when the chat listed the site's tools.
    New,
    /// One of its name was, with another definition or from another script.
    Changed,
}

impl Appeared {
    /// What a listing's `_meta.toolgate.new` says of it (docs/agents.md).
    pub fn words(self, host: &str) -> String {
        match self {
            Appeared::New => format!("appeared on {host} after this chat listed its tools"),
            Appeared::Changed => format!(
                "registered again on {host} after this chat listed its tools, with another \
                 definition or by another script"
            ),
        }
    }
}

/// The first `digits` hexadecimal digits of the SHA-256 of `parts`, each
/// ended by a zero byte.
fn digest(digits: usize, parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    hash.finalize()
        .iter()
        .take(digits / 2)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A site as a chat's record keeps it.
pub fn site_key(site: &str) -> String {
    digest(16, &[site])
}

/// A tool as a chat's record keeps it: its name's digits, then those of its
/// name and definition together.
fn entry(name: &str, definition: &str) -> String {
    digest(NAME_DIGITS, &[name]) + &digest(IDENTITY_DIGITS, &[name, definition])
}

/// What a chat saw of one site's tools: the site's key, and its tools'
/// entries one after another, the one seen longest ago first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct SiteSeen(String, String);

impl SiteSeen {
    fn entries(&self) -> impl Iterator<Item = &str> {
        (0..self.1.len() / ENTRY).map(|i| &self.1[i * ENTRY..(i + 1) * ENTRY])
    }

    fn appeared(&self, name: &str, definition: &str) -> Option<Appeared> {
        let entry = entry(name, definition);
        let mut named = false;
        for seen in self.entries() {
            if seen == entry {
                return None;
            }
            named |= seen[..NAME_DIGITS] == entry[..NAME_DIGITS];
        }
        Some(if named {
            Appeared::Changed
        } else {
            Appeared::New
        })
    }

    /// Keeps `entry` as seen, in place of its name's entry; past
    /// `NAMES_PER_SITE`, the oldest gives way.
    fn keep(&mut self, entry: &str) {
        let kept: String = self
            .entries()
            .filter(|seen| seen[..NAME_DIGITS] != entry[..NAME_DIGITS])
            .collect();
        let start = kept.len().saturating_sub((NAMES_PER_SITE - 1) * ENTRY);
        self.1 = kept[start..].to_owned() + entry;
    }
}

/// What a chat saw of each site's tools, from its first listing of the
/// site's tools (docs/cards.md, "Tools that appear after a chat listed
/// them"), the site listed longest ago first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SeenTools(Vec<SiteSeen>);

impl SeenTools {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether the chat listed the site whose key is `key` (`site_key`).
    pub fn watches(&self, key: &str) -> bool {
        self.0.iter().any(|s| s.0 == key)
    }

    /// The chat listed `site`'s `tools` (name, definition): a first
    /// listing keeps them (the first `NAMES_PER_SITE`) and says `true`; a
    /// later one only makes the site the one listed last.
    pub fn listed<'a>(
        &mut self,
        site: &str,
        tools: impl Iterator<Item = (&'a str, &'a str)>,
    ) -> bool {
        let key = site_key(site);
        if let Some(at) = self.0.iter().position(|s| s.0 == key) {
            let seen = self.0.remove(at);
            self.0.push(seen);
            return false;
        }
        let mut seen = SiteSeen(key, String::new());
        for (name, definition) in tools {
            let entry = entry(name, definition);
            if seen.appeared(name, definition).is_some() && seen.1.len() < NAMES_PER_SITE * ENTRY {
                seen.keep(&entry);
            }
        }
        if self.0.len() >= SITES_PER_CHAT {
            self.0.remove(0);
        }
        self.0.push(seen);
        true
    }

    /// Whether the tool `name` with `definition` is new on `site` to a chat
    /// that listed the site's tools; `None` where it is not, or where the
    /// chat never listed them.
    pub fn appeared(&self, site: &str, name: &str, definition: &str) -> Option<Appeared> {
        let key = site_key(site);
        self.0
            .iter()
            .find(|s| s.0 == key)?
            .appeared(name, definition)
    }

    /// A person said yes to a call of a tool that was new: from now on it is
    /// one the chat has seen. Says whether anything changed.
    pub fn accept(&mut self, site: &str, name: &str, definition: &str) -> bool {
        let key = site_key(site);
        match self.0.iter_mut().find(|s| s.0 == key) {
            Some(seen) if seen.appeared(name, definition).is_some() => {
                seen.keep(&entry(name, definition));
                true
            }
            _ => false,
        }
    }
}
