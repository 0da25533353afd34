//! How tagged messages are read.
//!
//! Messages are serde enums tagged by a field (`{"type": "navigated", …}`,
//! `{"op": "register", …}`). serde reads such an enum by first buffering the
//! whole object in a generic form and then reading the variant from that,
//! which compiles every variant's reader a second time (benches/README.md,
//! "Measurements behind the code"). So each is read through a flat struct holding every field
//! any of its variants has (`#[serde(try_from = "…Wire")]`), then checked
//! against what its variant has (`only`, `needed`): the same messages, the
//! same unknown-field errors, one reader per type.

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
