//! Decisions: what a person answered, and what an agent's request comes to.
//! Built on page facts; knows nothing of how cards or the palette look.
//!
//! - [`answers`]: the answers of both cards, per chat and site, and what a call needs (docs/cards.md);
//! - [`agent`]: the agent entry, pending requests and their cards, running calls;
//! - [`exposed`]: a page's call of a tool another origin exposed to it, told apart from an agent's;
//! - [`lifecycle`]: what each chat saw of each site's tools, the tools new to it, and the changes the audit keeps;
//! - [`untrusted`]: what each chat read that may carry someone else's instructions (docs/cards.md);
//! - [`rules`]: the site rules ("What agents may do"), the most a chat's answers can allow (docs/rules.md).

pub mod agent;
pub mod answers;
pub mod exposed;
pub mod lifecycle;
pub mod rules;
pub mod untrusted;
