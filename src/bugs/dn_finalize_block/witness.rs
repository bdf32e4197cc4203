//! `dn-finalize-block`: which log lines witness which actions of `traces/dn-finalize-block/DnFinalizeBlock.tla`.
//!
//! The spec has one block on one Ratis pipeline. The block exported is the first one a datanode commits after
//! finalizing it (the bug), else the first one a datanode finalizes (`Block has been finalized B`), or, with no
//! finalize in view, the first one committed; lines of other blocks are left out. Per datanode `d`:
//!
//! | log line (event) | action |
//! |---|---|
//! | `Block has been finalized B` (`BlockFinalized`, INFO), first one of B on d | `ApplyFinalizeBlock(d)` |
//! | `Block B successfully committed with bcsId N ...` (`BlockCommitted`, DEBUG), N above d's last | `ApplyPutBlock(d)` |
//! | `Block B successfully persisted for closed container ...` (`BlockCommittedClosedContainer`, DEBUG) | `ApplyPutBlock(d)` |
//! | `Operation: PutBlock , ... Result: BLOCK_ALREADY_FINALIZED ...` (`ContainerOperationFailed`, WARN), d finalized B | `RejectPutBlock(d)` |
//! | the last stop line of a run (`SHUTDOWN_MSG`, or `Ozone container server stopped.` in test output) | `Stop(d)` |
//! | a `STARTUP_MSG` (test output: `HddsDatanodeService <uuid>(...)`) after a stop | `Restart(d)` |
//! | a `STARTUP_MSG` with no shutdown since the previous run ([`Lifecycle::observe`]) | `Crash(d)`, then `Restart(d)` |
//!
//! Left out: `Finalized Block request received` (the first line of the same `ApplyFinalizeBlock`), a
//! `Block has been finalized` of a block d already finalized and a commit line whose bcsId is not above d's
//! last (both Ratis replay after a restart: the spec's `applied[d]` survives a restart), `... Ignoring it`
//! replay lines, and a datanode's first start in view (every datanode is up in `Init`).
//!
//! No line at Ozone's default INFO level shows `StartPutBlock` (DEBUG `writeStateMachineData`),
//! `AppendPutBlock` (none), `FinalizeBlock` (nothing on the datanode; OM DEBUG `Key recovered` and the
//! om-audit `RECOVER_LEASE` are not datanode lines and not ordered with the append), `StreamWrite` (DEBUG
//! `getStreamDataChannel`) or `Crash` (inferred): those are [`HIDDEN`]. `ApplyPutBlock` and `StreamPutBlock`
//! are DEBUG-only too (BlockManagerImpl) but are *not* hidden: with the DEBUG logger on, the logs show every
//! one, and an export never needs one the logs do not show to place an INFO line (an entry may stay
//! unapplied). `ApplyFinalizeBlock`, `RejectPutBlock`, `RejectStreamPutBlock`, `Stop` and `Restart` have
//! INFO/WARN lines.

use super::mirror::Action;
use crate::event::Event;
use crate::lifecycle::{is_stop_line, LifeStep};
use crate::mirror::export::{action_names, model_value_for, Witness, Witnessed};
use crate::mirror::Constants;
use crate::timeline::Timeline;
use crate::tla::value::TlaValue;
use crate::value::Value;
use crate::vocab::EventKind;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// Actions no log line shows at Ozone's default levels; the export may infer them between witnessed steps.
pub const HIDDEN: &[Action] = &[
    Action::StartPutBlock,
    Action::AppendPutBlock,
    Action::FinalizeBlock,
    Action::StreamWrite,
    Action::Crash,
];

/// The model value used for `Leader` when no datanode's log shows the pipeline leader being elected.
pub const UNKNOWN_LEADER: &str = "pipeline_leader_not_in_view";

/// (container, local id) of an event's block.
pub(crate) fn block_of(e: &Event) -> Option<(u64, u64)> {
    match e.field("block")? {
        Value::BlockId {
            container, local, ..
        } => Some((*container, *local)),
        _ => None,
    }
}

/// A block line: what makes a node of unknown service a datanode for this model.
pub fn is_block_line(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::FinalizeBlockReceived
            | EventKind::BlockFinalized
            | EventKind::BlockCommitted
            | EventKind::BlockCommittedClosedContainer
            | EventKind::PutBlockReplayIgnored
            | EventKind::ContainerOperationFailed
    )
}

fn is_commit(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::BlockCommitted | EventKind::BlockCommittedClosedContainer
    )
}

/// What the walk remembers of one datanode.
struct Dn {
    up: bool,
    /// `ApplyFinalizeBlock(d)` witnessed.
    finalized: bool,
    /// bcsId of the last `ApplyPutBlock(d)` witnessed.
    last_bcs: Option<u64>,
    /// PutBlock entries d applied or rejected (each is one entry of the Raft log).
    entries: u32,
    /// Index (in the witness list) of the `Stop(d)` of the current run, moved to the run's last stop line.
    stop: Option<usize>,
}

impl Default for Dn {
    fn default() -> Self {
        Dn {
            up: true,
            finalized: false,
            last_bcs: None,
            entries: 0,
            stop: None,
        }
    }
}

/// Export's half of the `dn-finalize-block` observer: the witnessed actions of `DnFinalizeBlock`, event by
/// event, with the monitor's role and the timeline's lifecycle.
#[derive(Default)]
pub struct Table {
    /// The block the export follows ([`target_block`]), found on the first step.
    target: Option<Option<(u64, u64)>>,
    ws: Vec<Witness<Action>>,
    dns: FxHashMap<u32, Dn>,
    leaders: Vec<(u32, usize)>,
    other_blocks: usize,
    replays: usize,
    requests: usize,
    first_starts: usize,
    stream_seen: bool,
}

/// Datanodes, as the monitor sees them: nodes the logs say run a datanode, and nodes of unknown service
/// with block lines.
fn on_dn(timeline: &Timeline, e: &Event) -> bool {
    e.node.is_some() && timeline.plays(e.node_key, &super::ABOUT.role)
}

/// The block the export follows: the first one a datanode commits after finalizing it (the block the logs
/// show the bug on), else the first one finalized, else the first one committed. The spec has one block, so a
/// long log of many blocks exports one of them; preferring the block a PutBlock-after-finalize is logged for
/// keeps the export's verdict the check's wherever in the log that block is.
fn target_block(timeline: &Timeline) -> Option<(u64, u64)> {
    let events = &timeline.events;
    committed_after_finalize(timeline)
        .or_else(|| {
            events
                .iter()
                .filter(|e| on_dn(timeline, e) && e.kind == EventKind::BlockFinalized)
                .find_map(|e| block_of(&e))
        })
        .or_else(|| {
            events
                .iter()
                .filter(|e| on_dn(timeline, e) && is_commit(e.kind))
                .find_map(|e| block_of(&e))
        })
}

/// The first block a datanode commits, with a bcsId above its last commit of that block (not a Ratis
/// replay after a restart), after it finalized that block.
fn committed_after_finalize(timeline: &Timeline) -> Option<(u64, u64)> {
    /// Of one datanode and one block: finalized, and the last bcsId committed.
    type Seen = (bool, Option<u64>);
    let mut seen: FxHashMap<(u32, (u64, u64)), Seen> = FxHashMap::default();
    for e in timeline.events.iter().filter(|e| on_dn(timeline, e)) {
        let e = &e;
        let Some(block) = block_of(e) else { continue };
        let (finalized, last_bcs) = seen.entry((e.node_key, block)).or_default();
        if e.kind == EventKind::BlockFinalized {
            *finalized = true;
        } else if is_commit(e.kind) {
            let bcs = e.field("bcs_id").and_then(Value::as_u64);
            let replay = matches!((bcs, *last_bcs), (Some(b), Some(l)) if b <= l);
            if *finalized && !replay {
                return Some(block);
            }
            *last_bcs = bcs.or(*last_bcs);
        }
    }
    None
}

impl Table {
    /// Event `i`, with the lifecycle step it makes.
    pub fn step(&mut self, timeline: &Timeline, i: usize, e: &Event, life: Option<LifeStep>) {
        let target = *self.target.get_or_insert_with(|| target_block(timeline));
        let Table {
            ws,
            dns,
            leaders,
            other_blocks,
            replays,
            requests,
            first_starts,
            stream_seen,
            ..
        } = self;
        if !on_dn(timeline, e) {
            return;
        }
        let key = e.node_key;
        let node = model_value_for(&timeline.node_names[key as usize]);
        let dn = dns.entry(key).or_default();
        match life {
            Some(LifeStep::Started { crashed }) => {
                if crashed.is_some() && dn.up {
                    ws.push(Witness {
                        event: i,
                        action: Action::Crash,
                        params: vec![node.clone()],
                    });
                    dn.up = false;
                }
                if dn.up {
                    // Every datanode is up in Init: a first start in view (or the second start line of
                    // one start) is no step.
                    *first_starts += 1;
                } else {
                    ws.push(Witness {
                        event: i,
                        action: Action::Restart,
                        params: vec![node.clone()],
                    });
                    dn.up = true;
                    dn.stop = None;
                }
            }
            Some(LifeStep::Stopping) if dn.up => {
                dn.stop = Some(ws.len());
                ws.push(Witness {
                    event: i,
                    action: Action::Stop,
                    params: vec![node.clone()],
                });
                dn.up = false;
            }
            _ if is_stop_line(e.kind) => {
                // A later line of the same stop completes it.
                if let (false, Some(stop)) = (dn.up, dn.stop.and_then(|k| ws.get_mut(k))) {
                    stop.event = i;
                }
            }
            _ => {}
        }
        let ours = target.is_some() && block_of(e) == target;
        match e.kind {
            EventKind::RaftRoleChanged
                if e.field("to").and_then(Value::as_str) == Some("LEADER") =>
            {
                leaders.push((key, i));
            }
            EventKind::StreamDataChannelOpened => *stream_seen = true,
            EventKind::FinalizeBlockReceived if ours => *requests += 1,
            EventKind::BlockFinalized if ours => {
                if dn.finalized {
                    *replays += 1;
                } else {
                    dn.finalized = true;
                    ws.push(Witness {
                        event: i,
                        action: Action::ApplyFinalizeBlock,
                        params: vec![node],
                    });
                }
            }
            k if is_commit(k) && ours => {
                let bcs = e.field("bcs_id").and_then(Value::as_u64);
                if matches!((bcs, dn.last_bcs), (Some(b), Some(l)) if b <= l) {
                    *replays += 1;
                } else {
                    dn.last_bcs = bcs.or(dn.last_bcs);
                    dn.entries += 1;
                    ws.push(Witness {
                        event: i,
                        action: Action::ApplyPutBlock,
                        params: vec![node],
                    });
                }
            }
            EventKind::ContainerOperationFailed
                if dn.finalized
                    && e.field("operation").and_then(Value::as_str) == Some("PutBlock")
                    && e.field("result").and_then(Value::as_str)
                        == Some("BLOCK_ALREADY_FINALIZED") =>
            {
                dn.entries += 1;
                ws.push(Witness {
                    event: i,
                    action: Action::RejectPutBlock,
                    params: vec![node],
                });
            }
            EventKind::PutBlockReplayIgnored => *replays += 1,
            k if is_block_line(k) && block_of(e).is_some() && !ours => *other_blocks += 1,
            _ => {}
        }
    }

    /// After the last event: the witnesses, and the constants sized to them.
    pub fn finish(&mut self, timeline: &Timeline) -> Witnessed {
        let target = self.target.unwrap_or_else(|| target_block(timeline));
        let name = |key: u32| timeline.node_names[key as usize].to_string();
        let mut notes = Vec::new();
        let mut ws = std::mem::take(&mut self.ws);
        let dns = std::mem::take(&mut self.dns);
        let leaders = std::mem::take(&mut self.leaders);
        let (other_blocks, replays, requests, first_starts, stream_seen) = (
            self.other_blocks,
            self.replays,
            self.requests,
            self.first_starts,
            self.stream_seen,
        );
        // A stop moved to its last line may now be out of order with other nodes' steps.
        ws.sort_by_key(|w| w.event);

        // The pipeline leader: the last one elected before the first FinalizeBlock was applied, else the last.
        let first_finalize = ws
            .iter()
            .find(|w| w.action == Action::ApplyFinalizeBlock)
            .map(|w| w.event);
        let leader = leaders
            .iter()
            .rev()
            .find(|(_, i)| first_finalize.is_none_or(|f| *i < f))
            .or(leaders.last())
            .map(|(k, _)| *k);
        let leader_value = match leader {
            Some(k) => {
                let others: BTreeSet<String> = leaders
                    .iter()
                    .filter(|(l, _)| *l != k)
                    .map(|(l, _)| name(*l))
                    .collect();
                notes.push(format!(
                    "Leader = {}: datanode {} became the pipeline's Raft leader{}{}",
                    model_value_for(&name(k)),
                    name(k),
                    if first_finalize.is_some() {
                        " before the first FinalizeBlock was applied"
                    } else {
                        ""
                    },
                    if others.is_empty() {
                        String::new()
                    } else {
                        format!(
                            "; the spec's leader is fixed, so the leadership of {} is not modelled",
                            others.into_iter().collect::<Vec<_>>().join(", ")
                        )
                    }
                ));
                model_value_for(&name(k))
            }
            None => {
                notes.push(format!(
                    "Leader = {UNKNOWN_LEADER}: no datanode's log shows the pipeline leader elected, so the leader is a datanode of its own that no line mentions"
                ));
                TlaValue::model(UNKNOWN_LEADER)
            }
        };

        let mut members: BTreeSet<String> = BTreeSet::new();
        let mut keys: Vec<u32> = dns.keys().copied().collect();
        keys.sort_by_key(|k| name(*k));
        for k in keys {
            let v = model_value_for(&name(k));
            if ws.iter().any(|w| w.params.contains(&v)) || leader == Some(k) {
                notes.push(format!("log node {} is the model value {v}", name(k)));
                members.insert(v.to_string());
            }
        }
        members.insert(leader_value.to_string());
        let max_len = dns.values().map(|d| d.entries).max().unwrap_or(0).max(1);
        let mut constants = Constants::new();
        constants.insert(
            "Datanodes".into(),
            TlaValue::set(members.iter().map(|m| TlaValue::model(m.as_str()))),
        );
        constants.insert("Leader".into(), leader_value);
        constants.insert("MaxLen".into(), TlaValue::int(i64::from(max_len)));
        constants.insert("DataStreamEnabled".into(), TlaValue::Bool(stream_seen));
        notes.push(format!(
            "MaxLen = {max_len}: the most PutBlocks of the block one datanode applied or rejected"
        ));
        notes.push(if stream_seen {
            "DataStreamEnabled = TRUE: a datanode logged getStreamDataChannel (DEBUG); commit lines are still read as Raft-path ApplyPutBlock, since without ContainerStateMachine DEBUG (`ApplyTransaction completed`) a stream PutBlock looks the same".into()
        } else {
            "DataStreamEnabled = FALSE: no datanode logged getStreamDataChannel (DEBUG); every commit line is a Raft-path ApplyPutBlock".into()
        });
        match target {
            Some((c, l)) => notes.push(format!(
                "the block: container {c} local id {l} (the first block committed after a finalize, else the first finalized, else the first committed); {other_blocks} line(s) of other blocks left out"
            )),
            None => notes.push("no block line in view: only lifecycle steps are witnessed".into()),
        }
        notes.push(format!(
            "left out: {requests} `Finalized Block request received` line(s) (the `Block has been finalized` line that follows completes ApplyFinalizeBlock), {replays} Ratis replay line(s) after a restart (a finalize or commit the datanode had already applied, `... Ignoring it`), {first_starts} start line(s) of a datanode already up"
        ));
        notes.push(format!(
            "inferred only: {} (no line at Ozone's default INFO level); ApplyPutBlock needs `log4j.logger.org.apache.hadoop.ozone.container.keyvalue.impl.BlockManagerImpl=DEBUG`",
            action_names(HIDDEN).join(", ")
        ));
        Witnessed {
            witnesses: ws.into_iter().map(Witness::named).collect(),
            constants,
            hidden: action_names(HIDDEN),
            notes,
            ends_at: None,
        }
    }
}

/// The witnessed actions of `DnFinalizeBlock` along the timeline: the witness half of the observer, alone.
pub fn witnesses(timeline: &Timeline) -> Witnessed {
    let mut table = Table::default();
    for (i, e) in timeline.events.iter().enumerate() {
        let e = &e;
        table.step(timeline, i, e, timeline.life[i]);
    }
    table.finish(timeline)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bugs::dn_finalize_block::mirror::DnFinalizeBlock;
    use crate::bugs::testkit::{assert_export_replays, scenario, tlc_jar, tlc_on_export};
    use crate::mirror::export::build_either;
    use crate::mirror::replay::action_text;

    fn timeline(case: &str, merged: bool) -> Timeline {
        scenario("dn-finalize-block", case, merged)
    }

    /// Merged test output names datanodes by uuid; the assertions use dn1..dn3.
    fn short(s: String) -> String {
        s.replace("n_0e4a1c7b_2d3f_4a5b_9c6d_7e8f9a0b1c01", "dn1")
            .replace("n_1f5b2d8c_3e4a_4b6c_8d7e_8f9a0b1c2d02", "dn2")
            .replace("n_2a6c3e9d_4f5b_4c7d_9e8f_9a0b1c2d3e03", "dn3")
    }

    /// The primary event of the first violation `check` reports for this model.
    fn check_primary(tl: &Timeline) -> Option<usize> {
        let models = crate::check::select(&["dn-finalize-block".to_string()]).unwrap();
        let reports = crate::check::replay(tl, models, &Default::default()).reports;
        reports[0].first().map(|v| v.primary)
    }

    const APB: &str = "ApplyPutBlock";
    const AFB: &str = "ApplyFinalizeBlock";

    fn seq(steps: &[(&str, &str)]) -> Vec<String> {
        steps.iter().map(|(a, d)| format!("{a}({d})")).collect()
    }

    /// (case, merged, expected witnesses, expected violation: state index of `NoPutBlockAfterFinalize`).
    fn cases() -> Vec<(&'static str, bool, Vec<String>, Option<usize>)> {
        let three = |a: &'static str, order: [&'static str; 3]| order.map(|d| (a, d));
        let daemon = ["dn2", "dn1", "dn3"];
        let merged = ["dn1", "dn2", "dn3"];
        vec![
            (
                "violating",
                false,
                seq(&[
                    (APB, "dn2"),
                    (APB, "dn1"),
                    (APB, "dn3"),
                    (AFB, "dn2"),
                    (APB, "dn2"),
                    (AFB, "dn1"),
                    (APB, "dn1"),
                    (AFB, "dn3"),
                    (APB, "dn3"),
                ]),
                // Init, 5 inferred (StartPutBlock, AppendPutBlock, StartPutBlock, FinalizeBlock,
                // AppendPutBlock), then 5 witnessed: dn2's commit of bcsId 13 after its finalize.
                Some(10),
            ),
            (
                "violating",
                true,
                seq(&[three(APB, merged), three(AFB, merged), three(APB, merged)].concat()),
                Some(12),
            ),
            (
                "healthy",
                false,
                seq(&[
                    three(APB, daemon).as_slice(),
                    &three(AFB, daemon),
                    &[("Stop", "dn2"), ("Restart", "dn2")],
                ]
                .concat()),
                None,
            ),
            (
                "healthy",
                true,
                seq(&[three(APB, merged), three(AFB, merged)].concat()),
                None,
            ),
            ("midflight", false, seq(&three(APB, daemon)), None),
            ("midflight", true, seq(&three(APB, merged)), None),
            ("nodebug", false, seq(&three(AFB, daemon)), None),
            ("nodebug", true, seq(&three(AFB, merged)), None),
        ]
    }

    #[test]
    fn scenario_witnesses_build_a_behaviour_with_checks_violation() {
        for (case, merged, want, violated_at) in cases() {
            let what = format!("{case} (merged: {merged})");
            let tl = timeline(case, merged);
            let w = witnesses(&tl);
            let got: Vec<String> = w
                .witnesses
                .iter()
                .map(|x| short(action_text(x.action, &x.params)))
                .collect();
            assert_eq!(got, want, "{what}");
            assert_eq!(w.hidden, action_names(HIDDEN));
            assert!(!w.constants.contains_key("CheckFinalizedAtApply"));
            let (patched, constants, b) = build_either::<DnFinalizeBlock>(&w)
                .unwrap_or_else(|s| panic!("{what}: stuck at {s:?}"));
            assert!(!patched, "{what}: the bug constants admit the logs");
            let primary = check_primary(&tl);
            match violated_at {
                Some(k) => {
                    assert_eq!(b.violated, Some(("NoPutBlockAfterFinalize", k)), "{what}");
                    // The step into state k is the witnessed commit `check` reports.
                    assert_eq!(b.steps[k - 1].event, primary, "{what}");
                    assert!(primary.is_some());
                    assert_eq!(constants["MaxLen"], TlaValue::int(2), "{what}");
                }
                None => {
                    assert_eq!(b.violated, None, "{what}");
                    assert_eq!(primary, None, "{what}");
                }
            }
            // Every witness is a step of the behaviour, in order, and nothing else is witnessed.
            let witnessed: Vec<usize> = b.steps.iter().filter_map(|s| s.event).collect();
            let events: Vec<usize> = w.witnesses.iter().map(|x| x.event).collect();
            assert_eq!(witnessed, events, "{what}");
            // Inferred steps are hidden actions, except before the first witnessed one.
            let first = b.steps.iter().position(|s| s.event.is_some()).unwrap();
            for s in &b.steps[first..] {
                assert!(
                    s.event.is_some() || w.hidden.contains(&s.action),
                    "{what}: {s:?}"
                );
            }
        }
    }

    #[test]
    fn daemon_constants_and_notes_name_the_nodes_and_the_leader() {
        let w = witnesses(&timeline("violating", false));
        let c = &w.constants;
        assert_eq!(
            c["Datanodes"],
            TlaValue::set(["dn1", "dn2", "dn3"].map(TlaValue::model))
        );
        assert_eq!(c["Leader"], TlaValue::model("dn1"));
        assert_eq!(c["DataStreamEnabled"], TlaValue::Bool(false));
        assert!(w
            .notes
            .iter()
            .any(|n| n == "log node dn2 is the model value dn2"));
        assert!(w.notes.iter().any(|n| n.starts_with("Leader = dn1")));
        // Healthy: dn2's replayed finalize and `Ignoring it` lines are left out, MaxLen is one PutBlock.
        let w = witnesses(&timeline("healthy", false));
        assert_eq!(w.constants["MaxLen"], TlaValue::int(1));
        assert!(
            w.notes.iter().any(|n| n.contains("4 Ratis replay line(s)")),
            "{:?}",
            w.notes
        );
        // Midflight: no leader election in view.
        let w = witnesses(&timeline("midflight", false));
        assert_eq!(w.constants["Leader"], TlaValue::model(UNKNOWN_LEADER));
    }

    #[test]
    fn exported_traces_replay_through_the_mirror() {
        for (case, merged, _, violated_at) in cases() {
            let what = format!("{case} (merged: {merged})");
            let w = witnesses(&timeline(case, merged));
            assert_eq!(
                assert_export_replays::<DnFinalizeBlock>(&w, |i| i.to_string(), &what),
                violated_at.map(|k| ("NoPutBlockAfterFinalize".to_string(), k + 1)),
                "{what}"
            );
        }
    }

    /// TLC's stdout on the tla export of a daemon case (as `export --to tla` writes it).
    fn tlc_on(jar: &str, case: &str) -> String {
        let tl = timeline(case, false);
        tlc_on_export::<DnFinalizeBlock>(jar, &format!("dn-{case}"), &tl, |i| i.to_string()).0
    }

    #[test]
    fn tlc_accepts_the_healthy_export_and_finds_the_violation_in_the_violating_one() {
        let Some(jar) = tlc_jar() else {
            return;
        };
        let out = tlc_on(&jar, "healthy");
        assert!(
            out.contains("Model checking completed. No error has been found."),
            "{out}"
        );
        assert!(out.contains("12 distinct states found"), "{out}");
        let out = tlc_on(&jar, "violating");
        assert!(
            out.contains("Invariant NoPutBlockAfterFinalize is violated"),
            "{out}"
        );
        // Violated at state 11 (1-based): the mirror's index 10.
        assert!(out.contains("\nState 11:"), "{out}");
        assert!(!out.contains("\nState 12:"), "{out}");
    }
}
