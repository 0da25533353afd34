//! Why a change of the rules was refused, in words (docs/rules.md, "Who
//! can change the rules").

use super::{Change, Level, ToolKind, MAX_AREAS, MAX_AT_ONCE, MAX_TOOLS};

/// Why a change was refused; nothing of it was saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleError {
    TooManyAtOnce {
        given: usize,
    },
    TooManyAreas {
        would_be: usize,
    },
    TooManyTools {
        would_be: usize,
    },
    KindNeedsLevel {
        kind: ToolKind,
    },
    /// `what`: the area or tool the page named, as Toolgate shows page text.
    NotSeen {
        what: String,
    },
    OwnersOnly {
        change: Change,
    },
    WiderThanAdmin {
        change: Change,
        admin: Level,
    },
    /// A change of conditions or a limit that is refused: the reason in words.
    More {
        why: String,
    },
}

/// Why Allowed cannot be chosen for Delete, Outside the site, or an area or
/// tool of those kinds, under an administrator's policy (the settings pages
/// say it beside the level; a change that tries it is refused with it).
pub const OWNERS_ONLY: &str = "Letting agents delete or act outside the site without asking is for your administrator to decide: \
     Delete, Outside the site, an area, or a tool of those kinds cannot be set to Allowed.";

/// Why a level wider than the administrator's `admin` cannot be chosen.
pub fn wider_than_admin(admin: Level) -> String {
    format!(
        "Your administrator set this to {}; you can choose less, never more.",
        admin.label()
    )
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let nothing = "Nothing was saved.";
        match self {
            RuleError::TooManyAtOnce { given } => {
                write!(f, "At most {MAX_AT_ONCE} areas and tools can be set apart at a time; this change has {given}. {nothing}")
            }
            RuleError::TooManyAreas { would_be } => {
                write!(f, "A site can set up to {MAX_AREAS} areas apart; this change would make {would_be}. {nothing}")
            }
            RuleError::TooManyTools { would_be } => {
                write!(f, "A site can set up to {MAX_TOOLS} tools apart; this change would make {would_be}. {nothing}")
            }
            RuleError::KindNeedsLevel { kind } => {
                write!(f, "{} needs a level. {nothing}", kind.label())
            }
            RuleError::NotSeen { what } => {
                write!(
                    f,
                    "{what} can be set apart once its tools have been seen on this site. {nothing}"
                )
            }
            RuleError::OwnersOnly { .. } => write!(f, "{OWNERS_ONLY} {nothing}"),
            RuleError::WiderThanAdmin { admin, .. } => {
                write!(f, "{} {nothing}", wider_than_admin(*admin))
            }
            RuleError::More { why } => write!(f, "{why} {nothing}"),
        }
    }
}
