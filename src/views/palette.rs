//! The tools palette: what a tab publishes, grouped by site, as the popup and
//! `self.toolgate.palette(tabId)` show it.

use crate::page::classify::{Badge, Class};
use crate::page::declaration::{Kind, Path};
use crate::page::registry::{FrameId, Registry, TabId};
use serde::Serialize;

/// One row of the palette.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entry {
    pub name: String,
    pub title: Option<String>,
    pub kind: Kind,
    /// The class's label; `None` for skills.
    pub class: Option<Class>,
    /// The badge the palette shows: the class's label, or "Skill".
    pub badge: &'static str,
    pub badges: Vec<Badge>,
    /// The deciding rule in plain words; `None` for skills.
    pub rule: Option<String>,
    pub lints: Vec<String>,
    pub description: String,
    pub input_schema: Option<String>,
    pub instructions: Option<String>,
    pub path: Path,
    pub site: String,
    pub frame_id: FrameId,
}

/// The tools of one site (one origin) in the tab.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Group {
    pub site: String,
    pub entries: Vec<Entry>,
}

/// The palette of one tab: groups in the order their sites first appear
/// (the top frame first), entries in registration order.
pub fn palette(registry: &Registry, tab_id: TabId) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for frame in registry.frames(tab_id) {
        let site = frame.site();
        let index = match groups.iter().position(|g| g.site == site) {
            Some(i) => i,
            None => {
                groups.push(Group {
                    site: site.clone(),
                    entries: Vec::new(),
                });
                groups.len() - 1
            }
        };
        for tool in &frame.tools {
            let decl = &tool.decl;
            let verdict = &tool.verdict;
            groups[index].entries.push(Entry {
                name: decl.name.clone(),
                title: decl.title.clone(),
                kind: decl.kind,
                class: verdict.class,
                badge: verdict.class.map_or("Skill", Class::label),
                badges: verdict.badges.clone(),
                rule: verdict.rule.as_ref().map(|r| r.explain()),
                lints: verdict.lints.iter().map(|l| l.explain()).collect(),
                description: decl.description.clone(),
                input_schema: decl.input_schema.clone(),
                instructions: decl.instructions.clone(),
                path: decl.path,
                site: site.clone(),
                frame_id: frame.frame_id,
            });
        }
    }
    groups
}
