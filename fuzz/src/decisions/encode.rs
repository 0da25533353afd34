//! Scripts as the bytes the fuzzer reads (`Encode`), so that the scripts
//! written by hand become the seeds of its corpus.

use super::script::{Act, CallSpec, ChangeSpec, OpSpec, Script, TargetSpec, ToolSpec};

/// The bytes from which `arbitrary` builds a value: scripts written by hand
/// (fuzz/tests/scripts.rs) become corpus seeds the fuzzer starts from. It
/// follows arbitrary 1.x's reading: an enum's variant from a little-endian
/// u32 (`(v * count) >> 32`), an `Option` and each element of a `Vec` after
/// a flag byte, `u8` and `bool` as one byte.
pub trait Encode {
    fn encode(&self, out: &mut Vec<u8>);
}

fn variant(out: &mut Vec<u8>, index: u64, count: u64) {
    let v = (index << 32).div_ceil(count);
    out.extend_from_slice(&(v as u32).to_le_bytes());
}

impl Encode for u8 {
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(*self);
    }
}

impl Encode for bool {
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
}

impl<T: Encode> Encode for Option<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        self.is_some().encode(out);
        if let Some(value) = self {
            value.encode(out);
        }
    }
}

impl<T: Encode> Encode for Vec<T> {
    fn encode(&self, out: &mut Vec<u8>) {
        for item in self {
            out.push(1);
            item.encode(out);
        }
        out.push(0);
    }
}

impl Encode for Script {
    fn encode(&self, out: &mut Vec<u8>) {
        self.acts.encode(out);
    }
}

impl Encode for CallSpec {
    fn encode(&self, out: &mut Vec<u8>) {
        for b in [self.chat, self.tab, self.tool, self.args] {
            b.encode(out);
        }
        self.site.encode(out);
    }
}

impl Encode for TargetSpec {
    fn encode(&self, out: &mut Vec<u8>) {
        let (index, value) = match *self {
            TargetSpec::Kind(k) => (0, k),
            TargetSpec::Area(a) => (1, a),
            TargetSpec::Tool(t) => (2, t),
        };
        variant(out, index, 3);
        value.encode(out);
    }
}

impl Encode for ChangeSpec {
    fn encode(&self, out: &mut Vec<u8>) {
        self.target.encode(out);
        self.level.encode(out);
    }
}

impl Encode for ToolSpec {
    fn encode(&self, out: &mut Vec<u8>) {
        self.tool.encode(out);
        self.path.encode(out);
        for hint in [
            self.read_only,
            self.consequential,
            self.destructive,
            self.idempotent,
            self.open_world,
        ] {
            hint.encode(out);
        }
        self.tag.encode(out);
        self.variant.encode(out);
        self.schema.encode(out);
        self.skill.encode(out);
        self.untrusted.encode(out);
    }
}

impl Encode for OpSpec {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            OpSpec::Register(spec) => {
                variant(out, 0, 5);
                spec.encode(out);
            }
            OpSpec::Unregister {
                source,
                tool,
                skill,
            } => {
                variant(out, 1, 5);
                [*source, *tool].iter().for_each(|b| b.encode(out));
                skill.encode(out);
            }
            OpSpec::Clear { source } => {
                variant(out, 2, 5);
                source.encode(out);
            }
            OpSpec::Provide(specs) => {
                variant(out, 3, 5);
                specs.encode(out);
            }
            OpSpec::Reset => variant(out, 4, 5),
        }
    }
}

impl Encode for Act {
    fn encode(&self, out: &mut Vec<u8>) {
        const N: u64 = 25;
        match self {
            Act::Page { slot, ops } => {
                variant(out, 0, N);
                slot.encode(out);
                ops.encode(out);
            }
            Act::Navigate { slot } => {
                variant(out, 1, N);
                slot.encode(out);
            }
            Act::LiveDocuments { tab } => {
                variant(out, 2, N);
                tab.encode(out);
            }
            Act::CloseTab { tab } => {
                variant(out, 3, N);
                tab.encode(out);
            }
            Act::OpenChat { chat, read_only } => {
                variant(out, 4, N);
                chat.encode(out);
                read_only.encode(out);
            }
            Act::ListTabs { chat } => {
                variant(out, 5, N);
                chat.encode(out);
            }
            Act::List { chat, tab } => {
                variant(out, 6, N);
                chat.encode(out);
                tab.encode(out);
            }
            Act::Call(spec) => {
                variant(out, 7, N);
                spec.encode(out);
            }
            Act::FrameCall { chat, slot, spec } => {
                variant(out, 8, N);
                chat.encode(out);
                slot.encode(out);
                spec.encode(out);
            }
            Act::Resend { back } => {
                variant(out, 9, N);
                back.encode(out);
            }
            Act::Answer { card, answer } => {
                variant(out, 10, N);
                card.encode(out);
                answer.encode(out);
            }
            Act::CloseWindow { card } => {
                variant(out, 11, N);
                card.encode(out);
            }
            Act::Withdraw { chat, back, all } => {
                variant(out, 12, N);
                chat.encode(out);
                back.encode(out);
                all.encode(out);
            }
            Act::Finish {
                call,
                outcome,
                taken,
            } => {
                variant(out, 13, N);
                call.encode(out);
                outcome.encode(out);
                taken.encode(out);
            }
            Act::Tick { seconds } => {
                variant(out, 14, N);
                seconds.encode(out);
            }
            Act::Restart { probe } => {
                variant(out, 15, N);
                probe.encode(out);
            }
            Act::Rules { site, changes } => {
                variant(out, 16, N);
                site.encode(out);
                changes.encode(out);
            }
            Act::Unattended { on } => {
                variant(out, 17, N);
                on.encode(out);
            }
            Act::Later { minutes } => {
                variant(out, 18, N);
                minutes.encode(out);
            }
            Act::Conditions {
                site,
                tool,
                conditions,
            } => {
                variant(out, 19, N);
                site.encode(out);
                tool.encode(out);
                conditions.encode(out);
            }
            Act::Observe { call, sight } => {
                variant(out, 20, N);
                call.encode(out);
                sight.encode(out);
            }
            Act::ClearFlag { flag } => {
                variant(out, 21, N);
                flag.encode(out);
            }
            Act::CloseChat { chat } => {
                variant(out, 22, N);
                chat.encode(out);
            }
            Act::Limit {
                site,
                target,
                every,
            } => {
                variant(out, 23, N);
                site.encode(out);
                target.encode(out);
                every.encode(out);
            }
            Act::Policy {
                site,
                levels,
                conditions,
                limits,
                unattended,
            } => {
                variant(out, 24, N);
                site.encode(out);
                levels.encode(out);
                conditions.encode(out);
                limits.encode(out);
                unattended.encode(out);
            }
        }
    }
}
