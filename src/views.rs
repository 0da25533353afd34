//! Views: what Toolgate's own pages show, built from page facts and decisions.
//!
//! - [`palette`]: the tools palette of a tab;
//! - [`cards`]: the two cards' texts and menus, word for word (docs/cards.md);
//! - [`text`]: page-chosen text as both show it: cut, escaped, kept apart;
//! - [`rule_words`]: the site rules' words, which the settings pages read from here.

pub mod cards;
pub mod palette;
pub mod rule_words;
pub mod text;
