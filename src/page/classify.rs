//! How a tool is classed: the hints decide the class, and the first rule
//! that applies decides (docs/classes.md, "The decision order").

use crate::page::addressed::{addressed_to_model, instructions_in, learned, Instructions};
use crate::page::declaration::{Declaration, Hint, HintState, Kind, Path};
use crate::page::hidden::escapes;
use crate::page::untrusted::{EXCERPT_CHARS, READS_AS_INSTRUCTIONS};
use serde::{Deserialize, Serialize};

/// The longest description Chrome's WebMCP guidance suggests for a tool, in
/// characters: a recommendation to developers, which neither the browser nor
/// the draft enforces (docs/classes.md, "Lint notes", says where it comes from).
pub const DESCRIPTION_BUDGET: usize = 500;

/// How many of a text's hidden characters a lint note names; the rest are counted.
const HIDDEN_NAMED: usize = 3;

/// What the person is asked before a tool runs. Ordered from least to most.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Class {
    #[serde(rename = "Read only")]
    ReadOnly,
    #[serde(rename = "Mutating")]
    Mutating,
    #[serde(rename = "Consequential")]
    Consequential,
}

impl Class {
    /// The badge text, word for word (docs/classes.md, "Badges").
    pub fn label(self) -> &'static str {
        match self {
            Class::ReadOnly => "Read only",
            Class::Mutating => "Mutating",
            Class::Consequential => "Consequential",
        }
    }

    /// The hints that give this class in the browser's own WebMCP: the
    /// annotations of the copy Toolgate registers there.
    pub fn native_hints(self) -> NativeHints {
        NativeHints {
            read_only_hint: self == Class::ReadOnly,
            consequential_hint: (self != Class::ReadOnly).then_some(self == Class::Consequential),
        }
    }
}

/// The annotations a tool's copy carries in the browser's own WebMCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NativeHints {
    pub read_only_hint: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consequential_hint: Option<bool>,
}

/// The rule that decided a tool's class, in the order they are tried.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Rule {
    /// 1. The declaration cannot be read.
    Unreadable { reason: String },
    /// 2. `consequentialHint: true`.
    ConsequentialHint,
    /// 2. `destructiveHint: true`.
    DestructiveHint,
    /// 3. `readOnlyHint: true`.
    ReadOnlyHint,
    /// 4. `consequentialHint: false`.
    NotConsequentialHint,
    /// 5. No deciding hint: the registration path decides.
    ByRegistration { path: Path, declared_nothing: bool },
}

impl Rule {
    /// The class this rule gives.
    pub fn class(&self) -> Class {
        match self {
            Rule::Unreadable { .. } | Rule::ConsequentialHint | Rule::DestructiveHint => {
                Class::Consequential
            }
            Rule::ReadOnlyHint => Class::ReadOnly,
            Rule::NotConsequentialHint => Class::Mutating,
            Rule::ByRegistration { path, .. } => match path {
                Path::DocumentObject => Class::Mutating,
                _ => Class::Consequential,
            },
        }
    }

    /// The rule in plain words, ending in the class it gives:
    /// "declared nothing; registered on navigator.modelContext → Consequential".
    pub fn explain(&self) -> String {
        let why = match self {
            Rule::Unreadable { reason } => format!("declaration unreadable ({reason})"),
            Rule::ConsequentialHint => "consequentialHint: true".to_owned(),
            Rule::DestructiveHint => "destructiveHint: true".to_owned(),
            Rule::ReadOnlyHint => "readOnlyHint: true".to_owned(),
            Rule::NotConsequentialHint => "consequentialHint: false".to_owned(),
            Rule::ByRegistration {
                path,
                declared_nothing,
            } => {
                let silence = if *declared_nothing {
                    "declared nothing"
                } else {
                    "no deciding hint"
                };
                format!("{silence}; {}", path.describe())
            }
        };
        format!("{why} → {}", self.class().label())
    }
}

/// Extra badges the palette shows beside the class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Badge {
    /// `openWorldHint` is not `false`: the tool may reach beyond the site.
    #[serde(rename = "off-site")]
    OffSite,
    /// `idempotentHint: true`.
    #[serde(rename = "idempotent")]
    Idempotent,
    /// `untrustedContentHint: true`.
    #[serde(rename = "untrusted content")]
    UntrustedContent,
    /// `debugging: true`.
    #[serde(rename = "debugging")]
    Debugging,
}

/// Notes for the developer who wrote the declaration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "lint", rename_all = "snake_case")]
pub enum Lint {
    /// One of the five class hints is not declared.
    Undeclared { hint: Hint },
    /// The class came from the registration path, not from a hint.
    DecidedByDefault,
    /// The declaration could not be read (includes non-boolean hints).
    Unreadable { reason: String },
    /// A hint sits beside `annotations` instead of inside it, and is ignored.
    OutsideAnnotations { hint: Hint },
    /// `readOnlyHint: true` together with a hint that says the tool is consequential.
    Contradictory { read_only: Hint, with: Hint },
    /// The tool was registered through the legacy `navigator.modelContext`.
    LegacyApi,
    /// The `inputSchema` is outside the schema subset an unmerged WebMCP
    /// proposal would hold it to (`problem` says where); Toolgate, the
    /// browser and the merged draft accept it.
    ProposedSubset { problem: String },
    /// A title, description or skill's instructions holds characters people
    /// do not see (`page::hidden`): `count` of them, the first few distinct
    /// ones in `named`, and `more` when there are other kinds besides.
    HiddenCharacters {
        part: TextPart,
        count: usize,
        named: Vec<char>,
        more: bool,
    },
    /// The description is longer than Chrome's WebMCP guidance suggests
    /// ([`DESCRIPTION_BUDGET`]), `chars` characters.
    LongDescription { chars: usize },
    /// A title or description holds words addressed to the agent's model
    /// (`page::addressed`), rather than describing the tool: phrases of the
    /// list, or where it has none, the sentences the learned detector reads
    /// as instructions to the agent (`span`, page text, bounded).
    AddressedToModel {
        part: TextPart,
        phrases: Vec<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        span: Option<String>,
    },
}

/// Which of a declaration's texts a lint note is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TextPart {
    Title,
    Description,
    Instructions,
}

impl TextPart {
    /// The part as notes name it.
    pub fn word(self) -> &'static str {
        match self {
            TextPart::Title => "title",
            TextPart::Description => "description",
            TextPart::Instructions => "instructions",
        }
    }

    /// "has", or "have" for the instructions.
    fn has(self) -> &'static str {
        match self {
            TextPart::Instructions => "have",
            _ => "has",
        }
    }
}

/// How much a lint note matters in a site's own CI (docs/ci.md): an error
/// fails `toolgate check`, a warning is only shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
}

impl Lint {
    /// The note's kind, as the palette's JSON names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Lint::Undeclared { .. } => "undeclared",
            Lint::DecidedByDefault => "decided_by_default",
            Lint::Unreadable { .. } => "unreadable",
            Lint::OutsideAnnotations { .. } => "outside_annotations",
            Lint::Contradictory { .. } => "contradictory",
            Lint::LegacyApi => "legacy_api",
            Lint::ProposedSubset { .. } => "proposed_subset",
            Lint::HiddenCharacters { .. } => "hidden_characters",
            Lint::LongDescription { .. } => "long_description",
            Lint::AddressedToModel { .. } => "addressed_to_model",
        }
    }

    /// Errors are what a developer must fix: a declaration Toolgate cannot
    /// read, one that contradicts itself or puts a hint where it is ignored,
    /// and a class left to a default. A form cannot declare hints, so its
    /// default is a warning, as are hints left out and the legacy API. The
    /// notes on texts that talk to the agent are warnings too: each can be
    /// honest (a joiner inside an emoji, a long description, a phrase in a
    /// tool about prompts), so only `toolgate check --strict` fails them
    /// (docs/ci.md).
    pub fn severity(&self, path: Path) -> Severity {
        match self {
            Lint::Unreadable { .. }
            | Lint::Contradictory { .. }
            | Lint::OutsideAnnotations { .. } => Severity::Error,
            Lint::DecidedByDefault if path != Path::Declarative => Severity::Error,
            _ => Severity::Warning,
        }
    }

    /// The note as the palette shows it for a declaration on `path`: a form
    /// cannot declare hints, so its notes say so instead of asking for them
    /// (docs/classes.md, "Lint notes").
    pub fn explain_on(&self, path: Path) -> String {
        match self {
            Lint::DecidedByDefault if path == Path::Declarative => "the class is a default: \
                a form cannot declare hints, so it is Consequential; register the tool \
                with document.modelContext.registerTool to declare them"
                .to_owned(),
            Lint::Undeclared { hint } if path == Path::Declarative => {
                format!("{} is not declared: a form cannot declare it", hint.key())
            }
            _ => self.explain(),
        }
    }

    /// The note in plain words.
    pub fn explain(&self) -> String {
        match self {
            Lint::Undeclared { hint } => format!("{} is not declared", hint.key()),
            Lint::DecidedByDefault => {
                "the class is a default: declare every hint and the defaults never apply".to_owned()
            }
            Lint::Unreadable { reason } => {
                format!("the declaration cannot be read, so it is Consequential: {reason}")
            }
            Lint::OutsideAnnotations { hint } => format!(
                "{} is outside annotations and is ignored; move it into annotations",
                hint.key()
            ),
            Lint::Contradictory { read_only, with } => format!(
                "{}: true contradicts {}: true; the tool is Consequential",
                read_only.key(),
                with.key()
            ),
            Lint::LegacyApi => {
                "registered through the legacy navigator.modelContext; use document.modelContext"
                    .to_owned()
            }
            Lint::ProposedSubset { problem } => {
                format!("inputSchema {problem}, which the proposed schema subset would refuse")
            }
            Lint::HiddenCharacters {
                part,
                count,
                named,
                more,
            } => {
                let mut names: Vec<String> = named
                    .iter()
                    .map(|c| format!("U+{:04X}", u32::from(*c)))
                    .collect();
                if *more {
                    names.push("…".to_owned());
                }
                let many = if *count == 1 {
                    "a hidden or control character, which is".to_owned()
                } else {
                    format!("{count} hidden or control characters, which are")
                };
                format!(
                    "the {} {} {many} read by agents but not seen by people ({})",
                    part.word(),
                    part.has(),
                    names.join(", ")
                )
            }
            Lint::LongDescription { chars } => format!(
                "the description is {chars} characters, over the {DESCRIPTION_BUDGET} \
                 Chrome's WebMCP guidance suggests for a tool's description"
            ),
            Lint::AddressedToModel {
                part,
                phrases,
                span,
            } => format!(
                "the {} speaks to the agent's model instead of describing the tool: {}",
                part.word(),
                match span {
                    Some(span) if phrases.is_empty() =>
                        format!("{READS_AS_INSTRUCTIONS}: \u{201c}{span}\u{201d}"),
                    _ => phrases
                        .iter()
                        .map(|p| format!("\"{p}\""))
                        .collect::<Vec<_>>()
                        .join(", "),
                }
            ),
        }
    }
}

/// The learned detector on a tool's title and description read together
/// (docs/detector.md): the lint note for the part its span begins in.
fn reads_as_instructions(decl: &Declaration) -> Option<Lint> {
    let title = decl.title.as_deref().unwrap_or("");
    let text = format!("{title}\n{}", decl.description);
    let Instructions { start, span } = instructions_in(&text, EXCERPT_CHARS).ok()??;
    Some(Lint::AddressedToModel {
        part: if start < learned::as_read(title).len() {
            TextPart::Title
        } else {
            TextPart::Description
        },
        phrases: Vec::new(),
        span: Some(span),
    })
}

/// How Toolgate classes one declaration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    /// `None` for skills, which get the badge Skill and no class.
    pub class: Option<Class>,
    /// `None` for skills.
    pub rule: Option<Rule>,
    pub badges: Vec<Badge>,
    pub lints: Vec<Lint>,
}

/// Classes a declaration. Pure: the same declaration always gets the same verdict.
pub fn classify(decl: &Declaration) -> Verdict {
    let mut lints = Vec::new();
    if decl.path.is_legacy() {
        lints.push(Lint::LegacyApi);
    }
    if decl.kind == Kind::Skill {
        lints.extend(hidden_characters(decl));
        return Verdict {
            class: None,
            rule: None,
            badges: Vec::new(),
            lints,
        };
    }

    let is = |hint| decl.hint(hint) == HintState::True;
    let rule = if let Some(reason) = &decl.unreadable {
        Rule::Unreadable {
            reason: reason.clone(),
        }
    } else if is(Hint::Consequential) {
        Rule::ConsequentialHint
    } else if is(Hint::Destructive) {
        Rule::DestructiveHint
    } else if is(Hint::ReadOnly) {
        Rule::ReadOnlyHint
    } else if decl.hint(Hint::Consequential) == HintState::False {
        Rule::NotConsequentialHint
    } else {
        Rule::ByRegistration {
            path: decl.path,
            declared_nothing: decl.hints.values().all(|s| *s == HintState::Absent),
        }
    };

    let mut badges = Vec::new();
    if decl.hint(Hint::OpenWorld) != HintState::False {
        badges.push(Badge::OffSite);
    }
    for (hint, badge) in [
        (Hint::Idempotent, Badge::Idempotent),
        (Hint::UntrustedContent, Badge::UntrustedContent),
        (Hint::Debugging, Badge::Debugging),
    ] {
        if is(hint) {
            badges.push(badge);
        }
    }

    if let Rule::Unreadable { reason } = &rule {
        lints.push(Lint::Unreadable {
            reason: reason.clone(),
        });
    }
    if matches!(rule, Rule::ByRegistration { .. }) {
        lints.push(Lint::DecidedByDefault);
    }
    for hint in Hint::CLASS_HINTS {
        if decl.hint(hint) == HintState::Absent {
            lints.push(Lint::Undeclared { hint });
        }
    }
    for &hint in &decl.stray_hints {
        lints.push(Lint::OutsideAnnotations { hint });
    }
    if let Some(problem) = decl
        .input_schema
        .as_deref()
        .and_then(crate::page::schema::outside_subset)
    {
        lints.push(Lint::ProposedSubset { problem });
    }
    if is(Hint::ReadOnly) {
        for with in [Hint::Consequential, Hint::Destructive] {
            if is(with) {
                lints.push(Lint::Contradictory {
                    read_only: Hint::ReadOnly,
                    with,
                });
            }
        }
    }

    lints.extend(hidden_characters(decl));
    if decl.description.len() > DESCRIPTION_BUDGET {
        let chars = decl.description.chars().count();
        if chars > DESCRIPTION_BUDGET {
            lints.push(Lint::LongDescription { chars });
        }
    }
    for (part, text) in [
        (TextPart::Title, decl.title.as_deref()),
        (TextPart::Description, Some(decl.description.as_str())),
    ] {
        let phrases = text.map(addressed_to_model).unwrap_or_default();
        if !phrases.is_empty() {
            lints.push(Lint::AddressedToModel {
                part,
                phrases,
                span: None,
            });
        }
    }
    if !lints
        .iter()
        .any(|l| matches!(l, Lint::AddressedToModel { .. }))
    {
        lints.extend(reads_as_instructions(decl));
    }

    Verdict {
        class: Some(rule.class()),
        rule: Some(rule),
        badges,
        lints,
    }
}

impl Verdict {
    /// Whether the tool declares `untrustedContentHint: true`: its results
    /// hold content its own site does not vouch for (the **untrusted
    /// content** badge; docs/classes.md, "Badges").
    pub fn untrusted_content(&self) -> bool {
        self.badges.contains(&Badge::UntrustedContent)
    }
}

/// A note for each of the declaration's texts that holds hidden characters:
/// its title as a line, its description and instructions as blocks, each as
/// Toolgate's pages show them (docs/cards.md, "How page text is shown"). A
/// name cannot hold any: the name rule allows none.
fn hidden_characters(decl: &Declaration) -> Vec<Lint> {
    let texts = [
        (TextPart::Title, decl.title.as_deref()),
        (TextPart::Description, Some(decl.description.as_str())),
        (TextPart::Instructions, decl.instructions.as_deref()),
    ];
    let mut lints = Vec::new();
    for (part, text) in texts {
        let Some(text) = text else { continue };
        // A title is one line; a description or instructions a block.
        let block = part != TextPart::Title;
        let (mut count, mut named, mut more) = (0, Vec::new(), false);
        for (_, c) in escapes(text, block) {
            count += 1;
            if !named.contains(&c) {
                if named.len() < HIDDEN_NAMED {
                    named.push(c);
                } else {
                    more = true;
                }
            }
        }
        if count > 0 {
            lints.push(Lint::HiddenCharacters {
                part,
                count,
                named,
                more,
            });
        }
    }
    lints
}
