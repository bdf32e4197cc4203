//! `dn-finalize-block` (HDDS-16828): the log monitor of `traces/dn-finalize-block/DnFinalizeBlock.tla`.
//! (The exact mirror of the spec is `mirror.rs`; this monitor is three-valued where the logs are silent.)
//!
//! Mirrored per datanode: `finalized[d]` (blocks whose FinalizeBlock was applied, from `Block has been
//! finalized <BlockID>`) and the PutBlocks applied (`ApplyPutBlock(d)` / `StreamPutBlock(d)`, from the DEBUG line
//! `Block <BlockID> successfully committed with bcsId N chunk size K`). A replayed PutBlock that Ozone skips
//! logs `... Ignoring it` and no commit line, so it is not an apply.

use super::witness::block_of;
use super::ABOUT;
use crate::event::Event;
use crate::lifecycle::LifeStep;
use crate::monitor::{invariant, About, Ctx, Instance, Knowledge, Model, Violation};
use crate::value::Value;
use crate::vocab::EventKind;
use rustc_hash::FxHashMap as HashMap;

pub const DEBUG_LINE: &str =
    "log4j.logger.org.apache.hadoop.ozone.container.keyvalue.impl.BlockManagerImpl=DEBUG";

/// What a datanode's monitor remembers grows with the blocks it finalized (one per lease recovery), not
/// with its lines, and is never pruned: a finalized block stays finalized (the datanode persists it with
/// the container), and a PutBlock that reaches it any time later (a Ratis log replayed after a restart) is
/// exactly the violation. Only a container's close or deletion would end that, and the grammar reads no
/// such line (`Block ... persisted for closed container` shows PutBlocks do reach closed containers).
#[derive(Debug, Default)]
struct Datanode {
    /// `finalized[d]`: (container, local id) → the `Block has been finalized` line.
    finalized: HashMap<(u64, u64), usize>,
    /// The `Finalized Block request received` line of each block, for the causal chain. Kept like
    /// `finalized`: a request with no finalization after it makes a later PutBlock undecidable.
    requested: HashMap<(u64, u64), usize>,
    /// BlockManagerImpl's DEBUG lines are in these logs, so PutBlocks are visible.
    debug_visible: bool,
}

#[derive(Default)]
pub struct DnFinalizeBlock {
    datanodes: HashMap<u32, Datanode>,
    knowledge: Knowledge,
    /// The observer's witness half (for `export`), fed by the same pass.
    table: super::witness::Table,
}

impl DnFinalizeBlock {
    /// How many blocks the monitor remembers, over every datanode.
    #[cfg(test)]
    fn blocks_remembered(&self) -> usize {
        self.datanodes
            .values()
            .map(|d| d.finalized.len() + d.requested.len())
            .sum()
    }
}

impl Model for DnFinalizeBlock {
    fn about(&self) -> &'static About {
        &ABOUT
    }

    fn reads(&self, kind: EventKind) -> bool {
        matches!(
            kind,
            EventKind::FinalizeBlockReceived
                | EventKind::BlockFinalized
                | EventKind::BlockCommitted
                | EventKind::BlockCommittedClosedContainer
                | EventKind::PutBlockReplayIgnored
        )
    }

    fn step(
        &mut self,
        cx: &Ctx,
        index: usize,
        e: &Event,
        _life: Option<LifeStep>,
        out: &mut Vec<Violation>,
    ) {
        if !self.reads(e.kind) {
            return;
        }
        let (node, key) = match cx.instance(e, &ABOUT.role) {
            Instance::Of(node, key) => (node, key),
            Instance::NoNode => {
                self.knowledge.unattributed(index);
                return;
            }
            Instance::OtherService => return,
        };
        self.knowledge.events += 1;
        let dn = self.datanodes.entry(key).or_default();
        match e.kind {
            EventKind::FinalizeBlockReceived => {
                if let Some(b) = block_of(e) {
                    dn.requested.insert(b, index);
                }
            }
            EventKind::BlockFinalized => {
                if let Some(b) = block_of(e) {
                    dn.finalized.entry(b).or_insert(index);
                }
            }
            EventKind::PutBlockReplayIgnored => dn.debug_visible = true,
            EventKind::BlockCommitted | EventKind::BlockCommittedClosedContainer => {
                dn.debug_visible = true;
                let Some(b) = block_of(e) else { return };
                // A finalization requested and never logged as done (a crash between its two lines, which a
                // datanode in one JVM does not show as a restart): whether it reached the block is not logged.
                if let (None, Some(&asked)) = (dn.finalized.get(&b), dn.requested.get(&b)) {
                    let line = cx.timeline.events.head(asked).span.line;
                    self.knowledge.unknown(format!(
                        "datanode {node} logged `Finalized Block request received` for container {} block {} (line {line}) and never `Block has been finalized` before this PutBlock, so whether the block was finalized is not logged, and the PutBlock cannot be judged",
                        b.0, b.1
                    ));
                    return;
                }
                if let Some(&fin) = dn.finalized.get(&b) {
                    let inv = invariant(self, "NoPutBlockAfterFinalize");
                    let dn = &self.datanodes[&key];
                    let bcs = e
                        .field("bcs_id")
                        .and_then(Value::as_u64)
                        .map(|v| format!(" with bcsId {v}"))
                        .unwrap_or_default();
                    let mut related = Vec::new();
                    if let Some(&r) = dn.requested.get(&b) {
                        related.push((
                            r,
                            "FinalizeBlock applied for this block (lease recovery)".to_string(),
                        ));
                    }
                    related.push((
                        fin,
                        "the block is finalized: its length was reported to OM".to_string(),
                    ));
                    out.push(Violation {
                        invariant: inv,
                        message: format!(
                            "datanode {node} persisted a PutBlock{bcs} for container {} block {} after finalizing that block: an hsync was acknowledged beyond the recovered length",
                            b.0, b.1
                        ),
                        node: Some(node.clone()),
                        instance: format!("{node}/{}/{}", b.0, b.1),
                        primary: index,
                        primary_label: "PutBlock persisted on a finalized block".into(),
                        related,
                        ambiguous_order: None,
                    });
                }
            }
            _ => {}
        }
    }

    fn finish(&mut self, cx: &Ctx, _out: &mut Vec<Violation>) {
        let mut keys: Vec<u32> = self.datanodes.keys().copied().collect();
        keys.sort_by_key(|k| &cx.timeline.node_names[*k as usize]);
        for key in keys {
            let name = &cx.timeline.node_names[key as usize];
            let dn = &self.datanodes[&key];
            if dn.finalized.is_empty() {
                continue;
            }
            if dn.debug_visible {
                self.knowledge.checks += dn.finalized.len();
            } else {
                self.knowledge.unknowns.push(format!(
                    "datanode {name} finalized {} block(s) but its logs hold no DEBUG lines from BlockManagerImpl, so PutBlocks are invisible: add `{DEBUG_LINE}` to log4j.properties",
                    dn.finalized.len()
                ));
            }
        }
    }

    fn knowledge(&self) -> &Knowledge {
        &self.knowledge
    }

    fn witness(&mut self, cx: &Ctx, index: usize, e: &Event, life: Option<LifeStep>) {
        self.table.step(cx.timeline, index, e, life);
    }

    fn witnessed(&mut self, cx: &Ctx) -> crate::mirror::export::Witnessed {
        self.table.finish(cx.timeline)
    }
}

#[cfg(test)]
mod tests {
    use super::DEBUG_LINE;
    use crate::event::Event;
    use crate::monitor::testkit::{block, daemon, ev, run};
    use crate::monitor::Verdict;
    use crate::value::Value;
    use crate::vocab::EventKind;

    fn received(node: &str, ms: i64, c: u64, l: u64) -> Event {
        ev(
            EventKind::FinalizeBlockReceived,
            node,
            ms,
            vec![("block", block(c, l))],
        )
    }

    fn finalized(node: &str, ms: i64, c: u64, l: u64) -> Event {
        ev(
            EventKind::BlockFinalized,
            node,
            ms,
            vec![("block", block(c, l))],
        )
    }

    fn committed(node: &str, ms: i64, c: u64, l: u64, bcs: u64) -> Event {
        ev(
            EventKind::BlockCommitted,
            node,
            ms,
            vec![
                (
                    "block",
                    Value::BlockId {
                        container: c,
                        local: l,
                        bcs_id: bcs,
                        replica_index: None,
                    },
                ),
                ("bcs_id", Value::U64(bcs)),
                ("chunks", Value::U64(1)),
            ],
        )
    }

    /// Thirty days of a datanode committing PutBlocks every minute and finalizing one block a day: the
    /// monitor remembers the finalized blocks (and their requests), never the PutBlocks, which are the
    /// lines. What it keeps grows with the finalizations; see `Datanode` for why those are never pruned.
    #[test]
    fn a_month_of_put_blocks_remembers_only_the_finalized_blocks() {
        use crate::monitor::{Ctx, Model};
        const MINUTE: i64 = 60_000;
        let mut lines = Vec::new();
        for m in 0..30 * 24 * 60 {
            let day = m / (24 * 60) + 1;
            // Block 1 of container `day` is finalized at the day's last minute; PutBlocks go to block 2.
            lines.push(committed("dn1", m * MINUTE, day as u64, 2, m as u64));
            if m % (24 * 60) == 24 * 60 - 1 {
                lines.push(received("dn1", m * MINUTE + 100, day as u64, 1));
                lines.push(finalized("dn1", m * MINUTE + 200, day as u64, 1));
            }
        }
        let tl = crate::monitor::testkit::timeline(vec![daemon("datanode", "dn1", lines)]);
        let cx = Ctx { timeline: &tl };
        let mut m = super::DnFinalizeBlock::default();
        let mut out = Vec::new();
        for (i, e) in tl.events.iter().enumerate() {
            m.step(&cx, i, &e, tl.life[i], &mut out);
        }
        assert!(out.is_empty(), "{out:?}");
        assert_eq!(tl.events.len(), 30 * 24 * 60 + 60);
        assert_eq!(m.blocks_remembered(), 2 * 30);
    }

    #[test]
    fn a_commit_after_finalize_is_a_violation() {
        let (tl, r) = run(
            "dn-finalize-block",
            vec![daemon(
                "datanode",
                "dn1",
                vec![
                    committed("dn1", 0, 1, 7, 4),
                    received("dn1", 1_000, 1, 7),
                    finalized("dn1", 1_100, 1, 7),
                    committed("dn1", 2_000, 1, 7, 5),
                ],
            )],
        );
        assert_eq!(r.verdict, Verdict::Violated);
        assert_eq!(r.violations.len(), 1);
        let v = &r.violations[0];
        assert_eq!(v.invariant, "NoPutBlockAfterFinalize");
        assert_eq!(v.invariant.code, "OZ-DN-BLOCK-001");
        assert_eq!(v.instance, "dn1/1/7");
        assert_eq!(v.primary, 3);
        assert_eq!(tl.events.head(3).kind, EventKind::BlockCommitted);
        let related: Vec<usize> = v.related.iter().map(|(i, _)| *i).collect();
        assert_eq!(related, vec![1, 2]);
        assert!(
            v.related[0].1.contains("FinalizeBlock"),
            "{}",
            v.related[0].1
        );
        assert!(v.message.contains("bcsId 5"), "{}", v.message);
        assert!(v.message.contains("container 1 block 7"), "{}", v.message);
    }

    #[test]
    fn violations_are_per_block_instance() {
        let (_, r) = run(
            "dn-finalize-block",
            vec![
                daemon(
                    "datanode",
                    "dn1",
                    vec![
                        finalized("dn1", 0, 1, 7),
                        finalized("dn1", 10, 1, 8),
                        committed("dn1", 100, 1, 7, 5),
                        committed("dn1", 200, 1, 7, 6),
                        committed("dn1", 300, 1, 8, 5),
                    ],
                ),
                daemon(
                    "datanode",
                    "dn2",
                    vec![finalized("dn2", 0, 1, 7), committed("dn2", 5_000, 1, 7, 5)],
                ),
            ],
        );
        assert_eq!(r.verdict, Verdict::Violated);
        let got: Vec<(&str, usize)> = r
            .violations
            .iter()
            .map(|v| (v.instance.as_str(), v.primary))
            .collect();
        // The second commit of dn1/1/7 is not a second violation; each block of each datanode is one.
        assert_eq!(got, vec![("dn1/1/7", 3), ("dn1/1/8", 5), ("dn2/1/7", 6)]);
        // No FinalizeBlock request line in view: the chain is the finalize alone.
        assert_eq!(r.violations[0].related.len(), 1);
        assert_eq!(r.violations[0].related[0].0, 0);
    }

    #[test]
    fn a_commit_before_finalize_conforms() {
        let (_, r) = run(
            "dn-finalize-block",
            vec![daemon(
                "datanode",
                "dn1",
                vec![
                    committed("dn1", 0, 1, 7, 5),
                    received("dn1", 1_000, 1, 7),
                    finalized("dn1", 1_100, 1, 7),
                ],
            )],
        );
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms);
        assert_eq!(r.checks, 1);
    }

    #[test]
    fn a_replay_ignored_line_is_debug_evidence() {
        let (_, r) = run(
            "dn-finalize-block",
            vec![daemon(
                "datanode",
                "dn1",
                vec![
                    finalized("dn1", 0, 1, 7),
                    ev(
                        EventKind::PutBlockReplayIgnored,
                        "dn1",
                        100,
                        vec![("db_bcs_id", Value::U64(6)), ("bcs_id", Value::U64(5))],
                    ),
                ],
            )],
        );
        assert!(r.violations.is_empty());
        assert_eq!(r.verdict, Verdict::Conforms, "{:?}", r.reason);
    }

    #[test]
    fn without_debug_lines_the_verdict_is_inconclusive_and_names_the_log4j_line() {
        let (_, r) = run(
            "dn-finalize-block",
            vec![daemon(
                "datanode",
                "dn1",
                vec![received("dn1", 0, 1, 7), finalized("dn1", 100, 1, 7)],
            )],
        );
        assert!(r.violations.is_empty());
        assert_eq!(r.verdict, Verdict::Inconclusive);
        assert_eq!(r.checks, 0);
        let reason = r.reason.expect("a reason");
        assert!(
            reason.contains("datanode dn1 finalized 1 block(s)"),
            "{reason}"
        );
        assert!(reason.contains(DEBUG_LINE), "{reason}");
    }

    #[test]
    fn another_block_of_the_same_container_is_fine() {
        let (_, r) = run(
            "dn-finalize-block",
            vec![daemon(
                "datanode",
                "dn1",
                vec![
                    finalized("dn1", 0, 1, 7),
                    committed("dn1", 100, 1, 8, 5),
                    // Same local id, other container.
                    committed("dn1", 200, 2, 7, 5),
                ],
            )],
        );
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        assert_eq!(r.verdict, Verdict::Conforms);
    }

    #[test]
    fn a_finalize_on_another_datanode_does_not_count() {
        let (_, r) = run(
            "dn-finalize-block",
            vec![
                daemon("datanode", "dn1", vec![finalized("dn1", 0, 1, 7)]),
                daemon("datanode", "dn2", vec![committed("dn2", 5_000, 1, 7, 5)]),
            ],
        );
        assert!(r.violations.is_empty(), "{:?}", r.violations);
        // dn1 finalized a block with no DEBUG lines of its own in view.
        assert_eq!(r.verdict, Verdict::Inconclusive);
        assert!(r.reason.unwrap().contains("datanode dn1"));
    }
}
