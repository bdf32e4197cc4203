//! An event's head: what the timeline keeps of every event (kind, node, thread, time, span, where its
//! fields are), a fixed-size [`crate::spill::Record`] so that the heads of a long log go to disk past the
//! memory budget ([`HeadRun`]).

use crate::event::{NodeSource, Span};
use crate::layout::Level;
use crate::spill::{Record, Run};
use crate::time::Timestamp;
use crate::vocab::{Component, EventKind};

/// A head's node when the event has none.
pub const NO_NODE: u32 = u32::MAX;

/// What the timeline keeps of an event (in memory, or on disk in a [`HeadRun`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    pub span: Span,
    /// Milliseconds of the record's time; `i64::MIN` when it has none.
    pub(crate) millis: i64,
    pub excerpt_hash: u64,
    /// Where its packed fields and excerpt start in its input's arena.
    pub(crate) data: u64,
    /// A node number ([`NO_NODE`]: none): in an [`crate::event_store::InputEvents`] the input's own, in
    /// the merge the run's ([`crate::event_store::EventStore::head`] gives the node key).
    pub node: u32,
    /// The thread name's number in its input's thread table.
    pub thread: u32,
    pub rule: u32,
    pub message_offset: u32,
    pub kind: EventKind,
    pub component: Component,
    pub node_from: Option<NodeSource>,
    pub level: Option<Level>,
    pub(crate) has_date: bool,
}

/// Where a head's node came from, as one code on disk (0: none).
pub(crate) const NODE_SOURCES: [NodeSource; 9] = [
    NodeSource::Cli,
    NodeSource::FileName,
    NodeSource::DockerPrefix,
    NodeSource::Banner,
    NodeSource::ThreadPrefix,
    NodeSource::RatisMember,
    NodeSource::Context,
    NodeSource::IpcPort,
    NodeSource::Wrapper,
];

pub(crate) const COMPONENTS: [Component; 5] = [
    Component::Scm,
    Component::Datanode,
    Component::Recon,
    Component::Om,
    Component::Any,
];

/// One byte for an optional value from `all` (0: none).
fn code_of<T: PartialEq>(value: Option<T>, all: &[T]) -> u8 {
    value
        .and_then(|v| all.iter().position(|a| *a == v))
        .map_or(0, |p| p as u8 + 1)
}

impl Head {
    pub fn time(&self) -> Option<Timestamp> {
        (self.millis != i64::MIN).then_some(Timestamp {
            millis: self.millis,
            has_date: self.has_date,
        })
    }

    /// The same head with this node, told by `from`.
    pub fn with_node(self, node: u32, from: Option<NodeSource>) -> Head {
        Head {
            node,
            node_from: from,
            ..self
        }
    }

    pub fn has_node(&self) -> bool {
        self.node != NO_NODE
    }

    /// The node number, if any.
    pub fn node(&self) -> Option<u32> {
        self.has_node().then_some(self.node)
    }
}

/// Heads in a run that moves to disk past the budget.
pub type HeadRun = Run<Head>;

impl Record for Head {
    fn encode_chunk(records: &[Head], out: &mut Vec<u8>) {
        let lanes: Vec<[u64; LANES]> = records.iter().map(Head::lanes).collect();
        crate::lanes::encode(&lanes, out);
    }

    fn decode_chunk(bytes: &[u8], out: &mut Vec<Head>) -> Result<(), crate::lanes::Malformed> {
        crate::lanes::decode::<LANES>(bytes, |l| out.push(Head::from_lanes(l)))
    }
}

/// A head's lanes in a chunk on disk ([`crate::lanes`]): what one input's heads share (input, node,
/// thread, rule, codes) packs to nothing, what grows slowly (line, offset, time, data) to a few bytes.
const LANES: usize = 13;

/// The sign bit flipped, so that times before and after 1970 keep their order as unsigned lanes.
const SIGN: u64 = 1 << 63;

impl Head {
    fn lanes(&self) -> [u64; LANES] {
        let codes = u32::from_le_bytes([
            code_of(Some(self.component), &COMPONENTS),
            code_of(self.node_from, &NODE_SOURCES),
            code_of(self.level, &Level::ALL),
            u8::from(self.has_date),
        ]);
        [
            u64::from(self.span.input),
            self.span.line,
            self.span.byte_offset,
            self.span.byte_len,
            self.millis as u64 ^ SIGN,
            self.excerpt_hash,
            self.data,
            // No node (u32::MAX) is 0, next to the node numbers that follow.
            u64::from(self.node.wrapping_add(1)),
            u64::from(self.thread),
            u64::from(self.rule),
            u64::from(self.message_offset),
            self.kind.index() as u64,
            u64::from(codes),
        ]
    }

    fn from_lanes(l: [u64; LANES]) -> Head {
        let codes = (l[12] as u32).to_le_bytes();
        let pick = |code: u8, n: usize| (code as usize).checked_sub(1).filter(|&c| c < n);
        Head {
            span: Span {
                input: l[0] as u32,
                line: l[1],
                byte_offset: l[2],
                byte_len: l[3],
            },
            millis: (l[4] ^ SIGN) as i64,
            excerpt_hash: l[5],
            data: l[6],
            node: (l[7] as u32).wrapping_sub(1),
            thread: l[8] as u32,
            rule: l[9] as u32,
            message_offset: l[10] as u32,
            kind: EventKind::at(l[11] as u16),
            component: pick(codes[0], COMPONENTS.len()).map_or(Component::Any, |c| COMPONENTS[c]),
            node_from: pick(codes[1], NODE_SOURCES.len()).map(|c| NODE_SOURCES[c]),
            level: pick(codes[2], Level::ALL.len()).map(|c| Level::ALL[c]),
            has_date: codes[3] == 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spill::CHUNK;

    /// A head whose clock says which it is.
    fn head(i: usize) -> Head {
        Head {
            span: Span {
                input: 0,
                line: 1,
                byte_offset: 0,
                byte_len: 10,
            },
            millis: i as i64,
            excerpt_hash: 7,
            data: 0,
            node: 3,
            thread: 0,
            rule: 1,
            message_offset: 0,
            kind: EventKind::SecretKeysUpdated,
            component: Component::Scm,
            node_from: None,
            level: None,
            has_date: true,
        }
    }

    fn millis(h: &Head) -> i64 {
        h.time().map_or(-1, |t| t.millis)
    }

    #[test]
    fn heads_on_disk_read_back_written_and_filtered_in_any_order() {
        let n = CHUNK * 7 + 13;
        let mut run = HeadRun::spilling();
        let template = head(0);
        for i in 0..n {
            let mut h = template;
            h.span.line = i as u64;
            run.push(h);
        }
        assert!(run.spilled());
        assert_eq!(run.len(), n);
        for i in [0, n - 1, CHUNK, 5, n / 2, CHUNK * 3 + 1, 1] {
            assert_eq!(run.get(i).span.line, i as u64);
        }
        // Writes to chunks on disk survive their chunk leaving the two-chunk cache.
        for i in (0..n).step_by(CHUNK / 2 + 1) {
            let mut h = run.get(i);
            h.node = i as u32;
            run.set(i, h);
        }
        run.update(|h| h.thread = h.span.line as u32 * 2);
        for i in 0..n {
            let h = run.get(i);
            assert_eq!(h.thread, i as u32 * 2, "head {i}");
            let written = i % (CHUNK / 2 + 1) == 0;
            if written {
                assert_eq!(h.node, i as u32);
            } else {
                assert_eq!(h.node, template.node);
            }
        }
        let lines: Vec<u64> = run.iter().map(|h| h.span.line).collect();
        assert_eq!(lines, (0..n as u64).collect::<Vec<_>>());
        let odd = run.filtered(|i, h| i % 2 == 1 && h.span.line % 2 == 1);
        assert_eq!(odd.len(), n / 2);
        assert!(odd.iter().map(|h| h.span.line).eq((1..n as u64).step_by(2)));
    }

    #[test]
    fn below_the_budget_nothing_goes_to_disk() {
        let run: HeadRun = (0..CHUNK * 3).map(head).collect();
        assert!(!run.spilled());
        assert_eq!(
            millis(&run.get(CHUNK * 2 + 7)),
            millis(&head(CHUNK * 2 + 7))
        );
        assert_eq!(run.iter().count(), CHUNK * 3);
    }
}
