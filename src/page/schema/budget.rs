//! What checking an agent's arguments against a page's schema may cost
//! (docs/agents.md, "Arguments and limits"; ARCHITECTURE.md, "Budgets").
//!
//! The worker is one thread: while it checks one page's schema, every agent
//! in every tab waits. So a check is counted before it runs. A `Plan`, read
//! once per schema, compiles its patterns within `PATTERN_BYTES` and
//! `PATTERNS` and finds what its `$ref`s name; a check that finds some of them
//! let go by the shared cache compiles them again within the same bound, not
//! against `STEPS`, so that a schema once checkable stays so whatever other
//! pages' patterns took the cache (ARCHITECTURE.md, "Budgets"). Then,
//! for each call, `Plan::steps` walks the schema
//! over the arguments as a validator does — every subschema against every
//! value it applies to, both branches of an `if`, every `$ref` followed — and
//! adds up what that costs, stopping at `STEPS`. It counts at least what the
//! validator does, so a check it lets through ends within the budget; one it
//! stops is refused as too costly, never run unchecked. Its own work is bounded
//! by the same count.

use super::pattern::{self, shown, Meter, Pattern, Refused, WORK_PER_STEP};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The most steps one check may take: a visit of a subschema with a value is
/// a step, and so is each further unit of work listed in `Walk::visit`
/// (benches/README.md, "The arguments' budget", measures what a step costs).
pub const STEPS: u64 = 10_000;

/// The most memory one schema's compiled patterns may take, in bytes.
pub const PATTERN_BYTES: usize = 512 << 10;

/// The most distinct patterns one schema may hold.
pub const PATTERNS: usize = 100;

/// Steps following a `$ref` takes beyond the visit: the worker's validator
/// resolves it and builds its location anew (benches/README.md, "The
/// arguments' budget": about four times a plain visit).
const REF_STEPS: u64 = 3;

/// Bytes of text one step matches or measures.
const BYTES_PER_TEXT_STEP: usize = 16;

/// What checking a schema needs, read from it once: its patterns, compiled,
/// and the subschemas its `$ref`s can name.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Each distinct pattern.
    patterns: Vec<String>,
    /// Subschemas with a `$id`, by it, as JSON pointers from the root.
    ids: BTreeMap<String, String>,
    /// Subschemas with a `$anchor` or `$dynamicAnchor`, by its name.
    anchors: BTreeMap<String, String>,
    /// The schema as JSON text, written once, for a validator that reads
    /// text (the worker's: each call would write it again).
    text: String,
}

impl Plan {
    /// Reads `schema`: compiles its patterns into the shared cache and
    /// indexes what its `$ref`s can name.
    ///
    /// # Errors
    /// Why the schema cannot be checked: a pattern Toolgate cannot run,
    /// patterns too costly to hold, or a `type` that names no type.
    pub fn read(schema: &Value) -> Result<Plan, String> {
        let mut plan = Plan {
            text: schema.to_string(),
            ..Plan::default()
        };
        if let Some(why) = super::broken::broken_type(schema) {
            return Err(why);
        }
        let mut sources = Vec::new();
        plan.index(schema, &mut String::new(), &mut sources);
        let mut left = PATTERN_BYTES;
        for source in sources {
            if plan.patterns.contains(&source) {
                continue;
            }
            if plan.patterns.len() == PATTERNS {
                return Err(too_costly(&format!("more than {PATTERNS} patterns")));
            }
            let (bytes, _) = pattern::ensure(&source, left).map_err(|why| match why {
                Refused::Larger(limit) if limit >= pattern::COMPILED_LIMIT => {
                    format!("its pattern {} is too large to check", shown(&source))
                }
                Refused::Larger(_) => too_costly(&format!(
                    "its patterns take more than {} KB compiled",
                    PATTERN_BYTES >> 10
                )),
                Refused::Unrunnable(why) => why,
            })?;
            left = left.saturating_sub(bytes);
            plan.patterns.push(source);
        }
        Ok(plan)
    }

    /// The schema read, as JSON text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Notes what `schema` (at `pointer`) names for `$ref`s, and its
    /// patterns, then does the same for each of its subschemas. Data (`enum`,
    /// `const`, `default`, `examples`) is not a schema, and is not read.
    fn index(&mut self, schema: &Value, pointer: &mut String, sources: &mut Vec<String>) {
        let Value::Object(members) = schema else {
            if let Value::Array(items) = schema {
                for (i, item) in items.iter().enumerate() {
                    self.index_at(item, pointer, &i.to_string(), sources);
                }
            }
            return;
        };
        for (keyword, value) in members {
            match (keyword.as_str(), value) {
                ("enum" | "const" | "default" | "examples", _) => {}
                ("$id", Value::String(id)) => {
                    self.ids
                        .entry(id.clone())
                        .or_insert_with(|| pointer.clone());
                }
                ("$anchor" | "$dynamicAnchor", Value::String(name)) => {
                    self.anchors
                        .entry(name.clone())
                        .or_insert_with(|| pointer.clone());
                }
                ("pattern", Value::String(source)) => sources.push(source.clone()),
                ("patternProperties", Value::Object(by_pattern)) => {
                    for (source, sub) in by_pattern {
                        sources.push(source.clone());
                        self.index_at(
                            sub,
                            pointer,
                            &format!("{keyword}/{}", escaped(source)),
                            sources,
                        );
                    }
                }
                (
                    "properties" | "$defs" | "definitions" | "dependentSchemas",
                    Value::Object(by_name),
                ) => {
                    for (name, sub) in by_name {
                        self.index_at(
                            sub,
                            pointer,
                            &format!("{keyword}/{}", escaped(name)),
                            sources,
                        );
                    }
                }
                (_, sub) => self.index_at(sub, pointer, &escaped(keyword), sources),
            }
        }
    }

    fn index_at(
        &mut self,
        schema: &Value,
        pointer: &mut String,
        segments: &str,
        sources: &mut Vec<String>,
    ) {
        let length = pointer.len();
        pointer.push('/');
        pointer.push_str(segments);
        self.index(schema, pointer, sources);
        pointer.truncate(length);
    }

    /// The steps checking `arguments` against `schema` (the one this plan was
    /// read from) takes at most. Any of its patterns the cache has let go
    /// since it was read is compiled again first, within `PATTERN_BYTES` as
    /// when it was read.
    ///
    /// # Errors
    /// Why it cannot be checked: it would take more than `STEPS`, or a `$ref`
    /// names nothing Toolgate can find.
    pub fn steps(&self, schema: &Value, arguments: &Value) -> Result<u64, String> {
        pattern::in_session(|| {
            let mut walk = Walk {
                plan: self,
                root: schema,
                steps: 0,
                stack: Vec::new(),
                patterns: BTreeMap::new(),
                work: 0,
            };
            for source in &self.patterns {
                if pattern::cached(source).is_none() {
                    pattern::ensure(source, PATTERN_BYTES)
                        .map_err(|_| too_costly("its patterns"))?;
                }
                if let Some(compiled) = pattern::cached(source) {
                    walk.patterns.insert(source.as_str(), compiled);
                }
            }
            walk.push(schema, schema, Target::Json(arguments))?;
            while let Some((sub, base, at)) = walk.stack.pop() {
                walk.visit(sub, base, at)?;
            }
            Ok(walk.steps)
        })
    }

    /// The subschema `reference` names, seen from the resource `base`.
    fn resolve<'a>(&self, root: &'a Value, base: &'a Value, reference: &str) -> Option<&'a Value> {
        let (uri, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let resource = if uri.is_empty() {
            base
        } else {
            root.pointer(self.ids.get(uri)?)?
        };
        if fragment.is_empty() {
            Some(resource)
        } else if fragment.starts_with('/') {
            resource.pointer(&percent_decoded(fragment))
        } else {
            root.pointer(self.anchors.get(fragment)?)
        }
    }
}

/// A value a subschema is checked against: part of the arguments, or one of
/// their property names (for `propertyNames`).
#[derive(Clone, Copy)]
enum Target<'a> {
    Json(&'a Value),
    Name(&'a str),
}

impl<'a> Target<'a> {
    fn object(self) -> Option<&'a Map<String, Value>> {
        match self {
            Target::Json(Value::Object(members)) => Some(members),
            _ => None,
        }
    }
    fn array(self) -> Option<&'a Vec<Value>> {
        match self {
            Target::Json(Value::Array(items)) => Some(items),
            _ => None,
        }
    }
    fn text(self) -> Option<&'a str> {
        match self {
            Target::Json(Value::String(text)) => Some(text),
            Target::Name(name) => Some(name),
            _ => None,
        }
    }
    /// Its size in values, counted up to `cap`.
    fn size(self, cap: u64) -> u64 {
        match self {
            Target::Json(value) => size(value, cap),
            Target::Name(_) => 1,
        }
    }
}

/// `value`'s size in values (itself and all it holds), counted up to `cap`.
fn size(value: &Value, cap: u64) -> u64 {
    let rest = cap.saturating_sub(1);
    1 + match value {
        Value::Array(items) => sizes(items.iter(), rest),
        Value::Object(members) => sizes(members.values(), rest),
        _ => 0,
    }
}

/// The sizes of `values` together, counted up to `cap`.
fn sizes<'a>(values: impl Iterator<Item = &'a Value>, cap: u64) -> u64 {
    let mut count = 0;
    for value in values {
        if count >= cap {
            break;
        }
        count += size(value, cap - count);
    }
    count
}

/// One count of a check: the subschemas still to visit, each with the
/// resource its `$ref`s are read from and the value it is checked against.
struct Walk<'a> {
    plan: &'a Plan,
    root: &'a Value,
    steps: u64,
    stack: Vec<(&'a Value, &'a Value, Target<'a>)>,
    /// The schema's patterns, compiled.
    patterns: BTreeMap<&'a str, Pattern>,
    /// The matching work done so far, in units (`WORK_PER_STEP`).
    work: u64,
}

impl<'a> Walk<'a> {
    fn charge(&mut self, steps: u64) -> Result<(), String> {
        self.steps = self.steps.saturating_add(steps);
        if self.steps > STEPS {
            return Err(too_costly(&format!(
                "more than {} steps for these arguments",
                thousands(STEPS)
            )));
        }
        Ok(())
    }

    /// A visit of `sub` with `at`, to come: a step, charged now, so that
    /// what waits is bounded too.
    fn push(&mut self, sub: &'a Value, base: &'a Value, at: Target<'a>) -> Result<(), String> {
        self.charge(1)?;
        self.stack.push((sub, base, at));
        Ok(())
    }

    fn text_steps(text: &str) -> u64 {
        1 + (text.len() / BYTES_PER_TEXT_STEP) as u64
    }

    /// Whether `source` matches `text`, matched now and charged for what
    /// that cost beyond reading the text (src/page/schema/pattern/search.rs),
    /// so that the validator's own match after it finds the work done. A
    /// pattern not compiled matches, as the validator would fail on it.
    fn matches(&mut self, source: &str, text: &str) -> Result<bool, String> {
        let Some(compiled) = self.patterns.get(source) else {
            return Ok(true);
        };
        let mut meter = Meter::steps(STEPS.saturating_sub(self.steps));
        let answer = compiled.run(text, &mut meter);
        // Charged in whole steps as the work adds up, not rounded up each match.
        let before = self.work.div_ceil(WORK_PER_STEP);
        self.work = self.work.saturating_add(meter.used());
        self.charge(self.work.div_ceil(WORK_PER_STEP) - before)?;
        answer.map_err(|refusal| refusal.to_string())
    }

    /// What checking `at` against `sub` costs beyond its own step: each
    /// subschema it applies, whether or not a validator would stop early;
    /// each property name compared, each text matched or measured, each value
    /// compared with `enum`, `const` or the other items (`uniqueItems`
    /// compares every pair).
    fn visit(&mut self, sub: &'a Value, base: &'a Value, at: Target<'a>) -> Result<(), String> {
        let Value::Object(schema) = sub else {
            return Ok(());
        };
        let base = if schema.contains_key("$id") {
            sub
        } else {
            base
        };
        for keyword in ["$ref", "$dynamicRef"] {
            if let Some(Value::String(reference)) = schema.get(keyword) {
                let target = self
                    .plan
                    .resolve(self.root, base, reference)
                    .ok_or_else(|| {
                        format!(
                            "its {keyword} {} names nothing Toolgate can find",
                            shown(reference)
                        )
                    })?;
                self.charge(REF_STEPS)?;
                self.push(target, base, at)?;
            }
        }
        if schema.contains_key("$recursiveRef") {
            self.charge(REF_STEPS)?;
            self.push(self.root, self.root, at)?;
        }
        for keyword in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = schema.get(keyword) {
                for branch in branches {
                    self.push(branch, base, at)?;
                }
            }
        }
        for keyword in ["not", "if", "then", "else"] {
            if let Some(branch) = schema.get(keyword) {
                self.push(branch, base, at)?;
            }
        }
        // A comparison with each value of an `enum` (or the `const`) goes
        // as deep as the smaller of the two: the value's size is measured
        // once, and each member's only as far as that, so that the count's
        // own work stays within what it charges (the meter's fuzz target
        // found it measuring the value again for each of 5,000 members).
        let compared = |member: &Value, value_size: u64| size(member, value_size);
        if let Some(Value::Array(values)) = schema.get("enum") {
            let value_size = at.size(STEPS);
            for value in values {
                self.charge(compared(value, value_size))?;
            }
        }
        if let Some(value) = schema.get("const") {
            self.charge(compared(value, at.size(STEPS)))?;
        }
        if let Some(members) = at.object() {
            self.object(schema, base, members, at)?;
        }
        if let Some(items) = at.array() {
            self.array(schema, base, items, at)?;
        }
        if let Some(text) = at.text() {
            for keyword in ["minLength", "maxLength", "pattern"] {
                if schema.contains_key(keyword) {
                    self.charge(Self::text_steps(text))?;
                }
            }
            if let Some(Value::String(source)) = schema.get("pattern") {
                self.matches(source, text)?;
            }
        }
        Ok(())
    }

    fn object(
        &mut self,
        schema: &'a Map<String, Value>,
        base: &'a Value,
        members: &'a Map<String, Value>,
        at: Target<'a>,
    ) -> Result<(), String> {
        if let Some(Value::Object(properties)) = schema.get("properties") {
            self.charge(properties.len() as u64)?;
            for (name, sub) in properties {
                if let Some(value) = members.get(name) {
                    self.push(sub, base, Target::Json(value))?;
                }
            }
        }
        let by_pattern = match schema.get("patternProperties") {
            Some(Value::Object(by_pattern)) => Some(by_pattern),
            _ => None,
        };
        for (source, sub) in by_pattern.into_iter().flatten() {
            for (name, value) in members {
                self.charge(Self::text_steps(name))?;
                if self.matches(source, name)? {
                    self.push(sub, base, Target::Json(value))?;
                }
            }
        }
        for keyword in ["additionalProperties", "unevaluatedProperties"] {
            if let Some(sub) = schema.get(keyword) {
                let compared = 1 + by_pattern.map_or(0, Map::len) as u64;
                for value in members.values() {
                    self.charge(compared)?;
                    self.push(sub, base, Target::Json(value))?;
                }
            }
        }
        if let Some(sub) = schema.get("propertyNames") {
            for name in members.keys() {
                self.push(sub, base, Target::Name(name))?;
            }
        }
        for keyword in ["dependentSchemas", "dependencies"] {
            if let Some(Value::Object(by_name)) = schema.get(keyword) {
                self.charge(by_name.len() as u64)?;
                for (name, sub) in by_name {
                    if members.contains_key(name) && !sub.is_array() {
                        self.push(sub, base, at)?;
                    }
                }
            }
        }
        for keyword in ["required", "dependentRequired"] {
            if let Some(value) = schema.get(keyword) {
                self.charge(size(value, STEPS))?;
            }
        }
        Ok(())
    }

    fn array(
        &mut self,
        schema: &'a Map<String, Value>,
        base: &'a Value,
        items: &'a [Value],
        at: Target<'a>,
    ) -> Result<(), String> {
        let tuple = |keyword| match schema.get(keyword) {
            Some(Value::Array(subs)) => Some(subs),
            _ => None,
        };
        for subs in [tuple("prefixItems"), tuple("items")].into_iter().flatten() {
            for (sub, item) in subs.iter().zip(items) {
                self.push(sub, base, Target::Json(item))?;
            }
        }
        for keyword in ["items", "additionalItems", "contains", "unevaluatedItems"] {
            match schema.get(keyword) {
                Some(Value::Array(_)) | None => {}
                Some(sub) => {
                    for item in items {
                        self.push(sub, base, Target::Json(item))?;
                    }
                }
            }
        }
        if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
            let pairs = (items.len() as u64).saturating_mul(at.size(STEPS));
            self.charge(pairs)?;
        }
        Ok(())
    }
}

/// The reason a check too costly is refused with.
fn too_costly(detail: &str) -> String {
    format!("its schema is too costly to check ({detail})")
}

/// `count` with a comma between thousands, as refusals show numbers.
pub(super) fn thousands(count: u64) -> String {
    let digits = count.to_string();
    let mut shown = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            shown.push(',');
        }
        shown.push(digit);
    }
    shown
}

/// A name as a JSON pointer's segment (`~` and `/` escaped).
fn escaped(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// A URI fragment's `%XX` escapes decoded.
fn percent_decoded(fragment: &str) -> String {
    let bytes = fragment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|pair| std::str::from_utf8(pair).ok())
            .and_then(|pair| u8::from_str_radix(pair, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                decoded.push(byte);
                i += 3;
            }
            (byte, _) => {
                decoded.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}
