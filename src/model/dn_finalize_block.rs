//! `dn-finalize-block`: the Rust mirror of `traces/dn-finalize-block/DnFinalizeBlock.tla` (HDDS-16828).
//!
//! Mirrored per datanode: `finalized[d]` (blocks whose FinalizeBlock was applied, from `Block has been
//! finalized <BlockID>`) and the PutBlocks applied (`ApplyPutBlock(d)` / `StreamPutBlock(d)`, from the DEBUG line
//! `Block <BlockID> successfully committed with bcsId N chunk size K`). A replayed PutBlock that Ozone skips
//! logs `... Ignoring it` and no commit line, so it is not an apply.

use super::lifecycle::LifeStep;
use super::{invariant, Ctx, Invariant, Knowledge, Model, Spec, Violation};
use crate::event::Event;
use crate::value::Value;
use crate::vocab::{Component, EventKind};
use rustc_hash::FxHashMap as HashMap;

pub const DEBUG_LINE: &str =
    "log4j.logger.org.apache.hadoop.ozone.container.keyvalue.impl.BlockManagerImpl=DEBUG";

const INVARIANTS: &[Invariant] = &[Invariant {
    name: "NoPutBlockAfterFinalize",
    code: "OZ-DN-BLOCK-001",
    summary: "a datanode persisted a PutBlock for a block after it had finalized that block",
    advice: "The writer's hsync was acknowledged for bytes beyond the length lease recovery closed the file at: those bytes are not in the file. Check the key's length in OM against the block's committed length on the datanodes.",
}];

#[derive(Debug, Default)]
struct Datanode {
    /// `finalized[d]`: (container, local id) → the `Block has been finalized` line.
    finalized: HashMap<(u64, u64), usize>,
    /// The `Finalized Block request received` line of each block, for the causal chain.
    requested: HashMap<(u64, u64), usize>,
    /// BlockManagerImpl's DEBUG lines are in these logs, so PutBlocks are visible.
    debug_visible: bool,
}

#[derive(Default)]
pub struct DnFinalizeBlock {
    datanodes: HashMap<u32, Datanode>,
    knowledge: Knowledge,
}

fn block(e: &Event) -> Option<(u64, u64)> {
    match e.field("block")? {
        Value::BlockId {
            container, local, ..
        } => Some((*container, *local)),
        _ => None,
    }
}

impl Model for DnFinalizeBlock {
    fn name(&self) -> &'static str {
        "dn-finalize-block"
    }

    fn spec(&self) -> Spec {
        Spec {
            module: "DnFinalizeBlock",
            path: "traces/dn-finalize-block/DnFinalizeBlock.tla",
            issue: "HDDS-16828",
        }
    }

    fn invariants(&self) -> &'static [Invariant] {
        INVARIANTS
    }

    fn reads(&self, kind: EventKind) -> bool {
        use EventKind::*;
        matches!(
            kind,
            FinalizeBlockReceived
                | BlockFinalized
                | BlockCommitted
                | BlockCommittedClosedContainer
                | PutBlockReplayIgnored
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
        let Some(node) = e.node.as_ref() else {
            self.knowledge.unknown("some datanode lines name no node");
            return;
        };
        let key = e.node_key;
        if cx
            .timeline
            .service_of_key(key)
            .is_some_and(|s| s != Component::Datanode)
        {
            return;
        }
        self.knowledge.events += 1;
        let dn = self.datanodes.entry(key).or_default();
        match e.kind {
            EventKind::FinalizeBlockReceived => {
                if let Some(b) = block(e) {
                    dn.requested.insert(b, index);
                }
            }
            EventKind::BlockFinalized => {
                if let Some(b) = block(e) {
                    dn.finalized.entry(b).or_insert(index);
                }
            }
            EventKind::PutBlockReplayIgnored => dn.debug_visible = true,
            EventKind::BlockCommitted | EventKind::BlockCommittedClosedContainer => {
                dn.debug_visible = true;
                let Some(b) = block(e) else { return };
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
                        invariant: inv.name,
                        code: inv.code,
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

    fn nothing_checked_reason(&self) -> String {
        format!("no block was finalized in view (`Block has been finalized`); PutBlocks are only visible with `{DEBUG_LINE}`")
    }
}
