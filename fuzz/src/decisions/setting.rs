//! The driver's site rules: changes made as the settings page makes them
//! (the worker's `changeRules`, then `setRules` with the whole book), the
//! rule cards' 10 minutes (the worker's alarm, `expire`), and the check that
//! every run and every new card meets its site's rule for the tool as it is
//! now, as the model (`site_rules`) reads docs/rules.md.

use super::policy::PolicySet;
use super::site_rules::{Gate, RuleTool, ASK_MS};
use super::*;
use script::{
    ChangeSpec, ConditionSpec, LimitSpec, PolicyConditions, PolicyLimit, TargetSpec, RULE_SITES,
};
use toolgate::decisions::rules::{
    site_schemas, site_tools, Change, Level, RuleBook, SeenTool, SiteRules, Target, ToolKind,
};

/// The stored rule book handed to a core whole (`setRules`), with the
/// administrator's when Toolgate is managed, as the worker does when either
/// changes and when it starts.
pub(super) fn hand_rules(book: &RuleBook, admin: Option<&RuleBook>, core: &mut Toolgate) {
    let text = serde_json::to_string(book).expect("a rule book is JSON");
    let admin = serde_json::to_string(&admin).expect("a rule book is JSON");
    core.set_rules(&text, &admin).expect("the rules read back");
}

impl Driver {
    /// One change of a site's rules on the settings page, with the tools
    /// the page lists (those the open tabs publish now, and those seen
    /// before, each once, by name: `siteTools` in extension/background/rules.js).
    pub(super) fn change_rules(&mut self, site: u8, changes: &[ChangeSpec]) {
        let site = RULE_SITES[site as usize % RULE_SITES.len()];
        let changes: Vec<Change> = changes.iter().map(ChangeSpec::change).collect();
        let seen = self.seen_on(site);
        let took = self.book.change(site, &changes, &seen, self.admin.as_ref());
        assert_eq!(
            took.is_ok(),
            self.model.rules.takes(site, &changes, &seen),
            "the change {changes:?} on {site}: {took:?}"
        );
        if took.is_ok() {
            self.model.rules.change(site, &changes, &seen);
            hand_rules(&self.book, self.admin.as_ref(), &mut self.core);
        }
    }

    /// A tool's conditions set on the settings page, checked by the core
    /// against the schema its tabs publish now.
    pub(super) fn set_conditions(&mut self, site: u8, tool: u8, specs: &[ConditionSpec]) {
        let site = RULE_SITES[site as usize % RULE_SITES.len()];
        let name = script::name(tool);
        let change = Change {
            conditions: Some(specs.iter().map(ConditionSpec::condition).collect()),
            ..Change::level(
                Target::Tool {
                    name: name.to_owned(),
                },
                None,
            )
        };
        let seen = self.seen_on(site);
        let schemas = site_schemas(&self.core.registry, site);
        let took = self
            .book
            .change_with(site, &[change], &seen, self.admin.as_ref(), &schemas);
        let kind = seen.iter().find(|t| t.name == name).map(|t| t.kind);
        let takes = self.model.rules.takes_conditions(
            site,
            name,
            specs.len(),
            &seen,
            schemas.contains_key(name),
        ) && (specs.iter().all(|c| !c.allow)
            || self.model.rules.may_allow_conditionally(site, name, kind));
        assert_eq!(
            took.is_ok(),
            takes,
            "conditions {specs:?} on {name} of {site}: {took:?}"
        );
        if took.is_ok() {
            let conditions = specs.iter().map(ConditionSpec::held).collect();
            self.model
                .rules
                .set_conditions(site, name, conditions, &seen);
            hand_rules(&self.book, self.admin.as_ref(), &mut self.core);
        }
    }

    /// A limit on how often set or removed on the settings page.
    pub(super) fn set_limit(&mut self, site: u8, target: &TargetSpec, every: Option<&LimitSpec>) {
        let site = RULE_SITES[site as usize % RULE_SITES.len()];
        let target = target.target();
        let every = every.map(LimitSpec::every);
        let change = Change {
            limit: Some(every),
            ..Change::level(target.clone(), None)
        };
        let seen = self.seen_on(site);
        let took = self
            .book
            .change(site, &[change], &seen, self.admin.as_ref());
        assert_eq!(
            took.is_ok(),
            self.model.rules.takes_limit(site, &target, &seen),
            "the limit {every:?} on {target:?} of {site}: {took:?}"
        );
        if took.is_ok() {
            self.model.rules.set_limit(site, &target, every);
            hand_rules(&self.book, self.admin.as_ref(), &mut self.core);
        }
    }

    /// An administrator's policy for a site: its levels, each kind it
    /// leaves out not bounded.
    pub(super) fn set_policy(
        &mut self,
        site: u8,
        levels: &[ChangeSpec],
        conditions: &[PolicyConditions],
        limits: &[PolicyLimit],
        unattended: bool,
    ) {
        let site = RULE_SITES[site as usize % RULE_SITES.len()];
        let levels: Vec<Change> = levels.iter().map(ChangeSpec::change).collect();
        let mut theirs = SiteRules::with_kinds(
            Level::Allowed,
            Level::Allowed,
            Level::Allowed,
            Level::Allowed,
        );
        for change in &levels {
            let Some(level) = change.level else { continue };
            match &change.target {
                Target::Kind { kind } => match kind {
                    ToolKind::Read => theirs.read = level,
                    ToolKind::Write => theirs.write = level,
                    ToolKind::Delete => theirs.delete = level,
                    ToolKind::Outside => theirs.outside = level,
                },
                Target::Area { area } => {
                    theirs.areas.insert(area.clone(), level);
                }
                Target::Tool { name } => {
                    theirs.tools.insert(name.clone(), level);
                }
                Target::Scripts => unreachable!(
                    "no scenario sets the rule for tools registered by other sites' scripts"
                ),
            }
        }
        theirs.limits = limits.iter().map(PolicyLimit::limit).collect();
        // A tool named twice keeps the later, in the policy as in the model.
        let mut held = BTreeMap::new();
        for set in conditions.iter().filter(|c| !c.conditions.is_empty()) {
            let name = script::name(set.tool).to_owned();
            let specs = set.conditions.iter().take(5);
            let conditions = specs.clone().map(ConditionSpec::condition).collect();
            theirs.conditions.insert(name.clone(), conditions);
            held.insert(name, specs.map(ConditionSpec::held).collect());
        }
        let set = PolicySet {
            levels: &levels,
            conditions: held,
            limits: &theirs.limits,
        };
        self.model.rules.set_policy(site, set, unattended);
        let admin = self.admin.get_or_insert_with(RuleBook::default);
        admin.sites.insert(site.to_owned(), theirs);
        admin.unattended = unattended;
        hand_rules(&self.book, self.admin.as_ref(), &mut self.core);
    }

    pub(super) fn unattended(&mut self, on: bool) {
        self.book.unattended = on;
        self.model.rules.unattended = on;
        hand_rules(&self.book, self.admin.as_ref(), &mut self.core);
    }

    /// The tools the settings page lists for `site`: those its open tabs
    /// publish now (checked), and those seen before, each once, by name.
    fn seen_on(&mut self, site: &str) -> Vec<SeenTool> {
        let live = site_tools(&self.core.registry, site);
        self.check_seen(site, &live);
        let known = self.tools_seen.entry(site.to_owned()).or_default();
        for tool in live {
            known.insert(tool.name.clone(), tool);
        }
        known.values().cloned().collect()
    }

    /// Each tool the settings page lists is one the site publishes, with
    /// the area and kind docs/rules.md gives it.
    fn check_seen(&self, site: &str, live: &[SeenTool]) {
        for seen in live {
            let tools: Vec<RuleTool> = self
                .core
                .registry
                .tab_ids()
                .flat_map(|tab| self.core.registry.frames(tab))
                .filter(|f| f.origin == site)
                .flat_map(|f| f.tools.iter().filter_map(|t| RuleTool::of(site, t)))
                .filter(|t| t.name == seen.name && t.definition == seen.definition)
                .collect();
            assert!(
                tools
                    .iter()
                    .any(|t| t.area == seen.area && t.kind == seen.kind),
                "listed as {seen:?}, published as {tools:?}"
            );
        }
    }

    /// The worker's alarm: rule cards whose 10 minutes passed close; the
    /// agent that still waited is told no.
    pub(super) fn expire(&mut self) {
        for expired in self.core.expire(self.now_ms) {
            let shown = self
                .cards
                .remove(&expired.card_id)
                .expect("an expired card was open");
            assert_eq!(shown.kind, CardKind::Rule, "only a rule card expires");
            assert!(shown.at_ms + ASK_MS <= self.now_ms, "expired early");
            assert_eq!(
                (&expired.chat, &expired.request_id),
                (&shown.chat, &shown.request_id)
            );
            assert_eq!(
                expired.step.is_some(),
                !shown.detached,
                "the agent that waits is told no"
            );
        }
        for shown in self.cards.values() {
            assert!(
                shown.kind != CardKind::Rule || shown.at_ms + ASK_MS > self.now_ms,
                "a rule card past its 10 minutes is still open"
            );
        }
    }

    /// What the site's rule lets a call of `tool` (now) with `arguments`
    /// do from `chat`.
    pub(super) fn gate(&self, chat: &str, site: &str, tool: &Tool, arguments: &str) -> Gate {
        RuleTool::of(site, tool).map_or(Gate::ChatDecides, |rule| {
            let read_only = self.model.read_only(chat);
            self.model
                .rules
                .gate(chat, read_only, &rule, arguments, self.now_ms)
        })
    }

    /// A run meets its site's rule for the tool as it is now: never Off;
    /// at Ask first only after a yes for this definition (its rule card's,
    /// `rule_yes`, or a late yes for the same call), which lifts no
    /// refusal. Returns whether the chat's answers decide the rest, and
    /// for a late yes that let it run, what its card said of the call.
    pub(super) fn rule_ran(
        &mut self,
        chat: &str,
        tool: &Tool,
        facts: &Facts,
        arguments: &str,
        rule_yes: bool,
    ) -> (bool, Option<Said>) {
        // No call runs above what the condition that held allows.
        let gate = self.gate(chat, &facts.site, tool, arguments);
        let rule = RuleTool::of(&facts.site, tool).expect("a run's tool is a tool");
        let late = match gate {
            Gate::Off => panic!(
                "ran a tool its site's rule turns Off for this definition: chat {chat}, \
                 {rule:?}\nrules: {:?}",
                self.model.rules
            ),
            Gate::AskFirst => {
                let late = if rule_yes {
                    None
                } else {
                    let said = Said {
                        untrusted: facts.class != toolgate::page::classify::Class::ReadOnly
                            && self.model.has_read_untrusted(chat),
                        flagged: self.model.flagged(&facts.site, &facts.name),
                    };
                    self.model
                        .rules
                        .take_late(chat, &rule, arguments, said, self.now_ms)
                };
                assert!(
                    rule_yes || late.is_some(),
                    "ran at Ask first with no yes for this definition: chat {chat}, {rule:?}, \
                     arguments {arguments}\nrules: {:?}",
                    self.model.rules
                );
                self.seen.late_ran += usize::from(late.is_some());
                late
            }
            Gate::ChatDecides if !rule_yes => return (true, None),
            Gate::ChatDecides => None,
        };
        assert!(
            !self.model.refuses(chat, facts),
            "a rule's yes ran a call a refusal holds against: {facts:?}"
        );
        (false, late)
    }
}
