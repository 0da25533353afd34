//! Views: what Toolgate's own pages show, built from page facts and decisions.
//!
//! - [`palette`]: the tools palette of a tab;
//! - [`cards`]: the two cards' texts and menus, word for word (docs/cards.md).

pub mod cards;
pub mod palette;
