//! How a page's messages are read.
//!
//! Messages are serde enums tagged by a field (`{"type": "updates", …}`,
//! `{"op": "register", …}`). serde reads such an enum by first buffering the
//! whole object in a generic form and then reading the variant from that. A
//! page's report of 1,000 tools took 60 % longer to read that way, and a
//! `RawValue` (a native call's arguments) cannot be read from the buffer at
//! all (benches/JOURNAL.md, "Choices the code keeps"). So a page's
//! message (`FromPage`) and each of its ops (`Op`) are read through a flat
//! struct holding every field any of its variants has, then checked against
//! what its variant has (`only`, `needed`): the same messages and the same
//! unknown-field errors as serde's own. The shell's and Toolgate's own pages'
//! messages, small and rare, are serde's tagged enums.

/// A field the message's variant needs.
///
/// # Errors
/// When the message lacks it, in serde's own words.
pub fn needed<T>(value: Option<T>, field: &str) -> Result<T, String> {
    value.ok_or_else(|| format!("missing field `{field}`"))
}

/// Refuses a field the message carries (`present`: name, and whether it
/// came) that its variant does not have (`allowed`), as serde would.
///
/// # Errors
/// For the first such field, in serde's own words.
pub fn only(present: &[(&str, bool)], allowed: &[&str]) -> Result<(), String> {
    match present
        .iter()
        .find(|(name, came)| *came && !allowed.contains(name))
    {
        Some((name, _)) => Err(format!("unknown field `{name}`")),
        None => Ok(()),
    }
}
