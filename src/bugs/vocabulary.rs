//! The vocabulary's table: every event kind's name and fields, [`crate::vocab::COMMON`]'s first and then each
//! bug's own (`events.rs` in its folder), in registry order, which is the order of their numbers. The kinds
//! are declared where they belong; [`EventKind`]'s names, fields and [`EventKind::ALL`] are read here.

use super::first_kind;
use crate::vocab::{EventKind, FieldSpec, KindDef};
use std::fmt;

/// How many kinds there are.
const KIND_COUNT: usize = first_kind::END as usize;

/// The sections, concatenated; a section must be as long as the next one's first number says (checked at
/// compile time).
static TABLE: [KindDef; KIND_COUNT] = concat(super::VOCABULARY_SECTIONS);

const fn concat<const N: usize>(sections: &[&[KindDef]]) -> [KindDef; N] {
    let mut table = [KindDef {
        name: "",
        fields: &[],
    }; N];
    let (mut at, mut s) = (0, 0);
    while s < sections.len() {
        let mut i = 0;
        while i < sections[s].len() {
            table[at] = sections[s][i];
            at += 1;
            i += 1;
        }
        s += 1;
    }
    assert!(
        at == N,
        "the vocabulary's sections do not add up to its kinds"
    );
    table
}

const ALL_KINDS: [EventKind; KIND_COUNT] = {
    let mut all = [EventKind::at(0); KIND_COUNT];
    let mut i = 0;
    while i < KIND_COUNT {
        all[i] = EventKind::at(i as u16);
        i += 1;
    }
    all
};

impl EventKind {
    /// Every kind, in the vocabulary's order.
    pub const ALL: &'static [EventKind] = &ALL_KINDS;

    pub fn name(self) -> &'static str {
        TABLE[self.index()].name
    }

    pub fn fields(self) -> &'static [FieldSpec] {
        TABLE[self.index()].fields
    }

    pub fn from_name(name: &str) -> Option<EventKind> {
        EventKind::ALL.iter().copied().find(|k| k.name() == name)
    }

    pub fn field(self, name: &str) -> Option<&'static FieldSpec> {
        self.fields().iter().find(|f| f.name == name)
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// As the kind is written in a grammar (the enum's `Debug` it replaces printed the same).
impl fmt::Debug for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_section_numbers_its_kinds_from_its_place_in_the_registry() {
        assert_eq!(EventKind::ALL.len(), TABLE.len());
        assert_eq!(EventKind::SecretKeyGenerated.name(), "SecretKeyGenerated");
        assert_eq!(EventKind::TaskDeltaProcessed.name(), "TaskDeltaProcessed");
        // The last section ends the vocabulary, whichever bug is registered last.
        assert_eq!(EventKind::ALL.len(), first_kind::END as usize);
        assert_eq!(EventKind::ALL[0], EventKind::ProcessStarted);
        for (i, def) in crate::vocab::COMMON.iter().enumerate() {
            assert_eq!(EventKind::at(i as u16).name(), def.name);
        }
        macro_rules! each_section_in_its_place {
            ($($bug:ident),*) => {$(
                let first = first_kind::$bug as usize;
                for (i, def) in crate::bugs::$bug::events::KINDS.iter().enumerate() {
                    assert_eq!(EventKind::at((first + i) as u16).name(), def.name);
                }
            )*};
        }
        crate::with_bugs!(each_section_in_its_place);
        for (i, kind) in EventKind::ALL.iter().enumerate() {
            assert_eq!(kind.index(), i);
            assert_eq!(EventKind::from_name(kind.name()), Some(*kind));
            assert_eq!(format!("{kind:?}"), kind.name());
        }
    }
}
