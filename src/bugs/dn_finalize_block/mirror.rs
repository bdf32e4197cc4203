//! `dn-finalize-block`: the exact mirror of `traces/dn-finalize-block/DnFinalizeBlock.tla` (HDDS-16828).
//!
//! One block of one container on one Ratis pipeline with a fixed leader. `Next` (line 250) is mirrored
//! disjunct by disjunct, in the order TLC splits it into actions: the four client/leader actions, then for
//! each datanode in TLA+ order the eight per-datanode actions. Line numbers in the comments are those of
//! `DnFinalizeBlock.tla`.

use crate::mirror::{constants, Constants, Mirror, ShippedSpec, Step};
use crate::tla::value::TlaValue;

crate::spec_actions! {
    /// The actions `Next` is the disjunction of, in its order, as the module names them.
    pub enum Action {
        StartPutBlock,
        AppendPutBlock,
        FinalizeBlock,
        StreamWrite,
        ApplyFinalizeBlock,
        ApplyPutBlock,
        RejectPutBlock,
        StreamPutBlock,
        RejectStreamPutBlock,
        Crash,
        Stop,
        Restart,
    }
}

/// An entry's `op`: `"PutBlock"` or `"FinalizeBlock"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    PutBlock,
    FinalizeBlock,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::PutBlock => "PutBlock",
            Op::FinalizeBlock => "FinalizeBlock",
        }
    }
}

/// An element of `Entry == [op : {"PutBlock", "FinalizeBlock"}, len : Lens]` (line 56).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entry {
    pub op: Op,
    pub len: u32,
}

/// The spec's state. Per-datanode values are indexed by the datanode's position in TLA+ order; booleans per
/// datanode are bitsets (bit `i` = datanode `i`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct State {
    /// `up`: bit `d` set = datanode `d` is running.
    pub up: u64,
    /// `log`: the pipeline's Raft log.
    pub log: Vec<Entry>,
    /// `applied`: entries of `log` applied on each datanode.
    pub applied: Vec<u32>,
    /// `committedLen`: committed block length on each datanode.
    pub committed_len: Vec<u32>,
    /// `finalized`: bit `d` set = `d` applied FinalizeBlock.
    pub finalized: u64,
    /// `finalizedLen`: the length each datanode read when applying FinalizeBlock.
    pub finalized_len: Vec<u32>,
    /// `txFinalized`: the block is in the leader's startTransaction finalized set.
    pub tx_finalized: bool,
    /// `pending`: length of a PutBlock that passed startTransaction, not yet appended (0 = none).
    pub pending: u32,
    /// `writerLen`: length the writer has sent so far.
    pub writer_len: u32,
}

/// The mirror under one assignment of the constants.
#[derive(Debug, Clone)]
pub struct DnFinalizeBlock {
    /// `Datanodes`, in TLA+ order.
    datanodes: Vec<String>,
    /// `Leader`, as a position in `datanodes`.
    leader: usize,
    /// `MaxLen`.
    max_len: u32,
    /// `DataStreamEnabled`.
    data_stream_enabled: bool,
    /// `CheckFinalizedAtApply` (the patch).
    check_finalized_at_apply: bool,
}

fn bit(set: u64, d: usize) -> bool {
    set & (1 << d) != 0
}

impl DnFinalizeBlock {
    /// `MaxLogLen == MaxLen + 1` (line 57).
    fn max_log_len(&self) -> usize {
        self.max_len as usize + 1
    }

    fn node(&self, d: usize) -> TlaValue {
        TlaValue::model(self.datanodes[d].as_str())
    }

    fn all_nodes(&self) -> u64 {
        if self.datanodes.len() == 64 {
            u64::MAX
        } else {
            (1u64 << self.datanodes.len()) - 1
        }
    }

    /// `HasFinalizeEntry` (line 60).
    fn has_finalize_entry(s: &State) -> bool {
        s.log.iter().any(|e| e.op == Op::FinalizeBlock)
    }

    /// `RejectsAtApply(d)` (line 61).
    fn rejects_at_apply(&self, s: &State, d: usize) -> bool {
        self.check_finalized_at_apply && bit(s.finalized, d)
    }

    /// `NextEntry(d)` (line 59), where `applied[d] < Len(log)` holds.
    fn next_entry(s: &State, d: usize) -> Option<Entry> {
        s.log.get(s.applied[d] as usize).copied()
    }

    fn push(
        out: &mut Vec<Step<State, Action>>,
        action: Action,
        params: Vec<TlaValue>,
        next: State,
    ) {
        out.push(Step {
            action,
            params,
            next,
        });
    }

    // StartPutBlock, line 97.
    fn start_put_block(&self, s: &State, out: &mut Vec<Step<State, Action>>) {
        if bit(s.up, self.leader)
            && s.pending == 0
            && s.writer_len < self.max_len
            && !s.tx_finalized
        {
            let mut n = s.clone();
            n.pending = s.writer_len + 1;
            n.writer_len = s.writer_len + 1;
            Self::push(out, Action::StartPutBlock, vec![], n);
        }
    }

    // AppendPutBlock, line 110.
    fn append_put_block(&self, s: &State, out: &mut Vec<Step<State, Action>>) {
        if bit(s.up, self.leader) && s.pending > 0 && s.log.len() < self.max_log_len() {
            let mut n = s.clone();
            n.log.push(Entry {
                op: Op::PutBlock,
                len: s.pending,
            });
            n.pending = 0;
            Self::push(out, Action::AppendPutBlock, vec![], n);
        }
    }

    // FinalizeBlock, line 125.
    fn finalize_block(&self, s: &State, out: &mut Vec<Step<State, Action>>) {
        if bit(s.up, self.leader)
            && !Self::has_finalize_entry(s)
            && s.log.len() < self.max_log_len()
        {
            let mut n = s.clone();
            n.log.push(Entry {
                op: Op::FinalizeBlock,
                len: 0,
            });
            n.tx_finalized = if self.check_finalized_at_apply {
                s.tx_finalized
            } else {
                true
            };
            Self::push(out, Action::FinalizeBlock, vec![], n);
        }
    }

    // StreamWrite, line 137.
    fn stream_write(&self, s: &State, out: &mut Vec<Step<State, Action>>) {
        if self.data_stream_enabled && s.writer_len < self.max_len {
            let mut n = s.clone();
            n.writer_len = s.writer_len + 1;
            Self::push(out, Action::StreamWrite, vec![], n);
        }
    }

    // ApplyFinalizeBlock(d), line 151.
    fn apply_finalize_block(&self, s: &State, d: usize, out: &mut Vec<Step<State, Action>>) {
        if !bit(s.up, d) || (s.applied[d] as usize) >= s.log.len() {
            return;
        }
        if Self::next_entry(s, d).map(|e| e.op) != Some(Op::FinalizeBlock) {
            return;
        }
        let mut n = s.clone();
        n.applied[d] = s.applied[d] + 1;
        n.finalized |= 1 << d;
        n.finalized_len[d] = s.committed_len[d];
        n.tx_finalized = if self.check_finalized_at_apply && d == self.leader {
            true
        } else {
            s.tx_finalized
        };
        Self::push(out, Action::ApplyFinalizeBlock, vec![self.node(d)], n);
    }

    // ApplyPutBlock(d), line 168.
    fn apply_put_block(&self, s: &State, d: usize, out: &mut Vec<Step<State, Action>>) {
        if !bit(s.up, d) || (s.applied[d] as usize) >= s.log.len() {
            return;
        }
        let Some(entry) = Self::next_entry(s, d).filter(|e| e.op == Op::PutBlock) else {
            return;
        };
        if self.rejects_at_apply(s, d) {
            return;
        }
        let mut n = s.clone();
        n.applied[d] = s.applied[d] + 1;
        n.committed_len[d] = entry.len;
        Self::push(out, Action::ApplyPutBlock, vec![self.node(d)], n);
    }

    // RejectPutBlock(d), line 183.
    fn reject_put_block(&self, s: &State, d: usize, out: &mut Vec<Step<State, Action>>) {
        if !bit(s.up, d) || (s.applied[d] as usize) >= s.log.len() {
            return;
        }
        if Self::next_entry(s, d).map(|e| e.op) != Some(Op::PutBlock) {
            return;
        }
        if !self.rejects_at_apply(s, d) {
            return;
        }
        let mut n = s.clone();
        n.applied[d] = s.applied[d] + 1;
        Self::push(out, Action::RejectPutBlock, vec![self.node(d)], n);
    }

    // StreamPutBlock(d), line 197.
    fn stream_put_block(&self, s: &State, d: usize, out: &mut Vec<Step<State, Action>>) {
        if self.data_stream_enabled
            && bit(s.up, d)
            && s.committed_len[d] < s.writer_len
            && !self.rejects_at_apply(s, d)
        {
            let mut n = s.clone();
            n.committed_len[d] = s.writer_len;
            Self::push(out, Action::StreamPutBlock, vec![self.node(d)], n);
        }
    }

    // RejectStreamPutBlock(d), line 210.
    fn reject_stream_put_block(&self, s: &State, d: usize, out: &mut Vec<Step<State, Action>>) {
        if self.data_stream_enabled
            && bit(s.up, d)
            && s.committed_len[d] < s.writer_len
            && self.rejects_at_apply(s, d)
        {
            Self::push(
                out,
                Action::RejectStreamPutBlock,
                vec![self.node(d)],
                s.clone(),
            );
        }
    }

    /// The common body of `Crash(d)` and `Stop(d)`: down, and a leader loses its pending PutBlock.
    fn go_down(&self, s: &State, d: usize) -> Option<State> {
        if !bit(s.up, d) {
            return None;
        }
        let mut n = s.clone();
        n.up &= !(1 << d);
        if d == self.leader {
            n.pending = 0;
        }
        Some(n)
    }

    // Crash(d), line 220.
    fn crash(&self, s: &State, d: usize, out: &mut Vec<Step<State, Action>>) {
        if let Some(n) = self.go_down(s, d) {
            Self::push(out, Action::Crash, vec![self.node(d)], n);
        }
    }

    // Stop(d), line 231.
    fn stop(&self, s: &State, d: usize, out: &mut Vec<Step<State, Action>>) {
        if let Some(n) = self.go_down(s, d) {
            Self::push(out, Action::Stop, vec![self.node(d)], n);
        }
    }

    // Restart(d), line 242.
    fn restart(&self, s: &State, d: usize, out: &mut Vec<Step<State, Action>>) {
        if !bit(s.up, d) {
            let mut n = s.clone();
            n.up |= 1 << d;
            Self::push(out, Action::Restart, vec![self.node(d)], n);
        }
    }

    /// `TypeOK` (line 63). The Rust types already give the kinds; this checks the ranges and the domains.
    fn type_ok(&self, s: &State) -> bool {
        let n = self.datanodes.len();
        let lens = |v: u32| v <= self.max_len;
        let per_node =
            |v: &Vec<u32>, ok: &dyn Fn(u32) -> bool| v.len() == n && v.iter().all(|&x| ok(x));
        s.up & !self.all_nodes() == 0
            && s.finalized & !self.all_nodes() == 0
            && s.log.len() <= self.max_log_len()
            && s.log.iter().all(|e| lens(e.len))
            && per_node(&s.applied, &|x| x as usize <= self.max_log_len())
            && per_node(&s.committed_len, &lens)
            && per_node(&s.finalized_len, &lens)
            && lens(s.pending)
            && lens(s.writer_len)
    }

    /// `NoPutBlockAfterFinalize` (line 273).
    fn no_put_block_after_finalize(&self, s: &State) -> bool {
        // `get`: a state with per-node vectors of the wrong length (not one `from_tla` builds) fails
        // rather than panics.
        (0..self.datanodes.len()).all(|d| {
            !bit(s.finalized, d)
                || matches!((s.committed_len.get(d), s.finalized_len.get(d)), (Some(c), Some(f)) if c == f)
        })
    }

    fn bools_to_tla(&self, set: u64) -> TlaValue {
        TlaValue::function(
            (0..self.datanodes.len()).map(|d| (self.node(d), TlaValue::Bool(bit(set, d)))),
        )
    }

    fn nats_to_tla(&self, v: &[u32]) -> TlaValue {
        TlaValue::function(
            v.iter()
                .enumerate()
                .map(|(d, &x)| (self.node(d), TlaValue::int(i64::from(x)))),
        )
    }

    /// The values of a function over `Datanodes`, in TLA+ order.
    fn per_node<'a>(&self, var: &str, v: &'a TlaValue) -> Result<Vec<&'a TlaValue>, String> {
        let not_fn = || {
            format!(
                "variable `{var}` should be a function on Datanodes, not the {} {v}",
                v.kind()
            )
        };
        let TlaValue::Function(pairs) = v else {
            return Err(not_fn());
        };
        if pairs.len() != self.datanodes.len() {
            return Err(not_fn());
        }
        (0..self.datanodes.len())
            .map(|d| v.apply(&self.node(d)).ok_or_else(not_fn))
            .collect()
    }

    fn bools_from_tla(&self, var: &str, v: &TlaValue) -> Result<u64, String> {
        let mut set = 0;
        for (d, x) in self.per_node(var, v)?.into_iter().enumerate() {
            match x.as_bool() {
                Some(true) => set |= 1 << d,
                Some(false) => {}
                None => {
                    return Err(format!(
                        "variable `{var}` maps {} to the non-boolean {x}",
                        self.datanodes[d]
                    ))
                }
            }
        }
        Ok(set)
    }

    fn nats_from_tla(&self, var: &str, v: &TlaValue) -> Result<Vec<u32>, String> {
        self.per_node(var, v)?
            .into_iter()
            .map(|x| nat(var, x))
            .collect()
    }
}

fn nat(var: &str, v: &TlaValue) -> Result<u32, String> {
    v.as_i64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| {
            format!(
                "variable `{var}` should hold a natural number, not the {} {v}",
                v.kind()
            )
        })
}

fn entry_from_tla(v: &TlaValue) -> Result<Entry, String> {
    let bad = || format!("variable `log` holds {v}, which is not an Entry");
    let TlaValue::Record(fields) = v else {
        return Err(bad());
    };
    if fields.len() != 2 {
        return Err(bad());
    }
    let op = match fields.get("op") {
        Some(TlaValue::Str(s)) if s == "PutBlock" => Op::PutBlock,
        Some(TlaValue::Str(s)) if s == "FinalizeBlock" => Op::FinalizeBlock,
        _ => return Err(bad()),
    };
    let len = fields
        .get("len")
        .ok_or_else(bad)
        .and_then(|l| nat("log", l))?;
    Ok(Entry { op, len })
}

impl Mirror for DnFinalizeBlock {
    type State = State;

    const MODEL: &'static str = "dn-finalize-block";
    const MODULE: &'static str = "DnFinalizeBlock";
    const VARIABLES: &'static [&'static str] = &[
        "up",
        "log",
        "applied",
        "committedLen",
        "finalized",
        "finalizedLen",
        "txFinalized",
        "pending",
        "writerLen",
    ];
    type Action = Action;
    const INVARIANTS: &'static [&'static str] = &["TypeOK", "NoPutBlockAfterFinalize"];
    const PATCH_CONSTANT: &'static str = "CheckFinalizedAtApply";
    const SPEC: ShippedSpec = crate::shipped_spec!("dn-finalize-block", "DnFinalizeBlock");

    fn new(c: &Constants) -> Result<Self, String> {
        let datanodes = constants::model_values(c, "Datanodes")?;
        if datanodes.len() > 64 {
            return Err(format!(
                "constant `Datanodes` has {} datanodes; this mirror handles at most 64",
                datanodes.len()
            ));
        }
        let leader_name = constants::model_value(c, "Leader")?;
        let leader = datanodes
            .iter()
            .position(|d| *d == leader_name)
            .ok_or_else(|| format!("constant `Leader` is {leader_name}, which is not in Datanodes (ASSUME Leader \\in Datanodes)"))?;
        let max_len = constants::natural(c, "MaxLen")?;
        if max_len == u32::MAX {
            return Err("constant `MaxLen` is too large for this mirror".into());
        }
        Ok(DnFinalizeBlock {
            datanodes,
            leader,
            max_len,
            data_stream_enabled: constants::boolean(c, "DataStreamEnabled")?,
            check_finalized_at_apply: constants::boolean(c, "CheckFinalizedAtApply")?,
        })
    }

    // Init, line 75.
    fn init(&self) -> Vec<State> {
        let n = self.datanodes.len();
        vec![State {
            up: self.all_nodes(),
            log: Vec::new(),
            applied: vec![0; n],
            committed_len: vec![0; n],
            finalized: 0,
            finalized_len: vec![0; n],
            tx_finalized: false,
            pending: 0,
            writer_len: 0,
        }]
    }

    // Next, line 250.
    fn next(&self, s: &State) -> Vec<Step<State, Action>> {
        let mut out = Vec::new();
        self.start_put_block(s, &mut out);
        self.append_put_block(s, &mut out);
        self.finalize_block(s, &mut out);
        self.stream_write(s, &mut out);
        for d in 0..self.datanodes.len() {
            self.apply_finalize_block(s, d, &mut out);
            self.apply_put_block(s, d, &mut out);
            self.reject_put_block(s, d, &mut out);
            self.stream_put_block(s, d, &mut out);
            self.reject_stream_put_block(s, d, &mut out);
            self.crash(s, d, &mut out);
            self.stop(s, d, &mut out);
            self.restart(s, d, &mut out);
        }
        out
    }

    /// `TypeOK` and `NoPutBlockAfterFinalize`; any other name is not an invariant of this spec and gives
    /// `false`, so that a misspelt name shows up as a violation rather than passing silently.
    fn holds(&self, invariant: &str, s: &State) -> bool {
        match invariant {
            "TypeOK" => self.type_ok(s),
            "NoPutBlockAfterFinalize" => self.no_put_block_after_finalize(s),
            _ => false,
        }
    }

    fn to_tla(&self, s: &State) -> Vec<TlaValue> {
        vec![
            self.bools_to_tla(s.up),
            TlaValue::seq(s.log.iter().map(|e| {
                TlaValue::record([
                    ("op", TlaValue::str(e.op.name())),
                    ("len", TlaValue::int(i64::from(e.len))),
                ])
            })),
            self.nats_to_tla(&s.applied),
            self.nats_to_tla(&s.committed_len),
            self.bools_to_tla(s.finalized),
            self.nats_to_tla(&s.finalized_len),
            TlaValue::Bool(s.tx_finalized),
            TlaValue::int(i64::from(s.pending)),
            TlaValue::int(i64::from(s.writer_len)),
        ]
    }

    /// Checks the kinds and domains (a function on exactly `Datanodes`, entries with exactly the fields `op`
    /// and `len` and an `op` of the two strings, naturals); the bounds (`Lens`, `MaxLogLen`) are left to
    /// `TypeOK`, so that a state outside them can still be judged.
    fn from_tla(&self, values: &[TlaValue]) -> Result<State, String> {
        if values.len() != Self::VARIABLES.len() {
            return Err(format!(
                "expected {} values (one per variable of {:?}), got {}",
                Self::VARIABLES.len(),
                Self::VARIABLES,
                values.len()
            ));
        }
        let up = self.bools_from_tla("up", &values[0])?;
        let log = match &values[1] {
            TlaValue::Seq(entries) => entries
                .iter()
                .map(entry_from_tla)
                .collect::<Result<_, _>>()?,
            v => {
                return Err(format!(
                    "variable `log` should be a sequence, not the {} {v}",
                    v.kind()
                ))
            }
        };
        let applied = self.nats_from_tla("applied", &values[2])?;
        let committed_len = self.nats_from_tla("committedLen", &values[3])?;
        let finalized = self.bools_from_tla("finalized", &values[4])?;
        let finalized_len = self.nats_from_tla("finalizedLen", &values[5])?;
        let tx_finalized = values[6].as_bool().ok_or_else(|| {
            format!(
                "variable `txFinalized` should be TRUE or FALSE, not the {} {}",
                values[6].kind(),
                values[6]
            )
        })?;
        Ok(State {
            up,
            log,
            applied,
            committed_len,
            finalized,
            finalized_len,
            tx_finalized,
            pending: nat("pending", &values[7])?,
            writer_len: nat("writerLen", &values[8])?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::{FxHashMap, FxHashSet};
    use std::collections::VecDeque;

    /// The constants of `DnFinalizeBlock.cfg` (bug) or `DnFinalizeBlockFixed.cfg` (fixed), by hand.
    fn constants(fixed: bool) -> Constants {
        let mut c = Constants::new();
        c.insert(
            "Datanodes".into(),
            TlaValue::set(["d1", "d2", "d3"].map(TlaValue::model)),
        );
        c.insert("Leader".into(), TlaValue::model("d1"));
        c.insert("MaxLen".into(), TlaValue::int(2));
        c.insert("DataStreamEnabled".into(), TlaValue::Bool(fixed));
        c.insert("CheckFinalizedAtApply".into(), TlaValue::Bool(fixed));
        c
    }

    fn mirror(fixed: bool) -> DnFinalizeBlock {
        DnFinalizeBlock::new(&constants(fixed)).unwrap()
    }

    /// What TLC's breadth-first search (one worker) reports.
    struct Bfs {
        /// States generated: initial states plus every successor computed, duplicates and stuttering included.
        generated: usize,
        distinct: usize,
        /// TLC's depth: the level of the deepest state reached, `Init` being level 1.
        depth: usize,
        left_on_queue: usize,
        /// The first violation TLC reports: the invariant and the behaviour from `Init` to the state.
        violation: Option<(&'static str, Vec<(&'static str, State)>)>,
        seen: FxHashSet<State>,
    }

    /// TLC's search: a FIFO queue, successors in `Next`'s order, invariants checked on every new state, stop
    /// at the first violation.
    fn bfs(m: &DnFinalizeBlock) -> Bfs {
        // state -> (parent, action leading to it, level)
        let mut parent: FxHashMap<State, (Option<State>, &'static str, usize)> =
            FxHashMap::default();
        let mut queue = VecDeque::new();
        let mut generated = 0;
        let mut depth = 0;
        let trace = |parent: &FxHashMap<State, (Option<State>, &'static str, usize)>, s: &State| {
            let mut path = vec![];
            let mut cur = Some(s.clone());
            while let Some(c) = cur {
                let (p, a, _) = parent[&c].clone();
                path.push((a, c));
                cur = p;
            }
            path.reverse();
            path
        };
        for s in m.init() {
            generated += 1;
            if parent.contains_key(&s) {
                continue;
            }
            parent.insert(s.clone(), (None, "Init", 1));
            depth = depth.max(1);
            if let Some(inv) = m.first_violated(&s) {
                let path = trace(&parent, &s);
                return Bfs {
                    generated,
                    distinct: parent.len(),
                    depth,
                    left_on_queue: queue.len(),
                    violation: Some((inv, path)),
                    seen: parent.into_keys().collect(),
                };
            }
            queue.push_back(s);
        }
        while let Some(s) = queue.pop_front() {
            let level = parent[&s].2;
            for step in m.next(&s) {
                generated += 1;
                if parent.contains_key(&step.next) {
                    continue;
                }
                parent.insert(
                    step.next.clone(),
                    (Some(s.clone()), step.action.name(), level + 1),
                );
                depth = depth.max(level + 1);
                if let Some(inv) = m.first_violated(&step.next) {
                    let path = trace(&parent, &step.next);
                    return Bfs {
                        generated,
                        distinct: parent.len(),
                        depth,
                        left_on_queue: queue.len(),
                        violation: Some((inv, path)),
                        seen: parent.into_keys().collect(),
                    };
                }
                queue.push_back(step.next);
            }
        }
        Bfs {
            generated,
            distinct: parent.len(),
            depth,
            left_on_queue: 0,
            violation: None,
            seen: parent.into_keys().collect(),
        }
    }

    // README / tlc/bug.out: "Invariant NoPutBlockAfterFinalize is violated", 633 states generated, 199
    // distinct states found, 113 states left on queue, depth 6.
    #[test]
    fn bug_config_bfs_finds_tlcs_violation_at_tlcs_depth_and_counts() {
        let m = mirror(false);
        let r = bfs(&m);
        println!(
            "bug: {} generated, {} distinct, {} left on queue, depth {} (TLC: 633, 199, 113, 6)",
            r.generated, r.distinct, r.left_on_queue, r.depth
        );
        let (inv, path) = r.violation.expect("the bug config violates an invariant");
        assert_eq!(inv, "NoPutBlockAfterFinalize");
        assert_eq!(path.len(), 6, "violation at TLC's depth");
        assert_eq!(r.depth, 6);
        let actions: Vec<&str> = path.iter().map(|(a, _)| *a).collect();
        assert_eq!(
            actions,
            [
                "Init",
                "StartPutBlock",
                "FinalizeBlock",
                "AppendPutBlock",
                "ApplyFinalizeBlock",
                "ApplyPutBlock"
            ]
        );
        // The same search order as TLC's single worker gives its exact figures at the stop.
        assert_eq!((r.generated, r.distinct, r.left_on_queue), (633, 199, 113));
        // The behaviour is bug.out's, state for state.
        let expected: Vec<State> = bug_out_states(&m).into_iter().map(|(_, s)| s).collect();
        let got: Vec<State> = path.into_iter().map(|(_, s)| s).collect();
        assert_eq!(got, expected);
    }

    // README / tlc/fixed.out: no error, 364889 states generated, 53116 distinct states, depth 21.
    #[test]
    fn fixed_config_bfs_matches_tlcs_state_space_exactly() {
        let m = mirror(true);
        let t = std::time::Instant::now();
        let r = bfs(&m);
        println!(
            "fixed: {} generated, {} distinct, depth {} in {:?} (TLC: 364889, 53116, 21)",
            r.generated,
            r.distinct,
            r.depth,
            t.elapsed()
        );
        assert!(
            r.violation.is_none(),
            "violation: {:?}",
            r.violation.map(|(i, p)| (i, p.last().cloned()))
        );
        assert_eq!(r.distinct, 53_116);
        assert_eq!(r.depth, 21);
        assert_eq!(r.generated, 364_889);
    }

    // README: with the data stream on and the patch off, TLC finds the stream path in 5 states (221
    // distinct states): StartPutBlock, FinalizeBlock, ApplyFinalizeBlock (d1), StreamPutBlock (d1).
    #[test]
    fn stream_on_patch_off_finds_the_stream_path_as_the_readme_reports() {
        let mut c = constants(false);
        c.insert("DataStreamEnabled".into(), TlaValue::Bool(true));
        let m = DnFinalizeBlock::new(&c).unwrap();
        let r = bfs(&m);
        println!(
            "stream, no patch: {} generated, {} distinct, depth {} (TLC: 221 distinct, depth 5)",
            r.generated, r.distinct, r.depth
        );
        let (inv, path) = r.violation.expect("a violation");
        assert_eq!(inv, "NoPutBlockAfterFinalize");
        let actions: Vec<&str> = path.iter().map(|(a, _)| *a).collect();
        assert_eq!(
            actions,
            [
                "Init",
                "StartPutBlock",
                "FinalizeBlock",
                "ApplyFinalizeBlock",
                "StreamPutBlock"
            ]
        );
        assert_eq!(r.distinct, 221);
        assert_eq!(r.depth, 5);
    }

    #[test]
    fn every_fixed_state_round_trips_through_tla_values() {
        let m = mirror(true);
        let r = bfs(&m);
        assert_eq!(r.distinct, 53_116);
        for s in &r.seen {
            let v = m.to_tla(s);
            assert_eq!(v.len(), DnFinalizeBlock::VARIABLES.len());
            assert_eq!(m.from_tla(&v).as_ref(), Ok(s));
        }
    }

    fn per_node<T>(xs: [T; 3], f: impl Fn(T) -> TlaValue) -> TlaValue {
        TlaValue::function(
            ["d1", "d2", "d3"]
                .into_iter()
                .zip(xs)
                .map(|(d, x)| (TlaValue::model(d), f(x))),
        )
    }

    fn entry(op: &str, len: i64) -> TlaValue {
        TlaValue::record([("op", TlaValue::str(op)), ("len", TlaValue::int(len))])
    }

    /// One state of bug.out, with its variables in the order TLC prints them there.
    #[allow(clippy::too_many_arguments)]
    fn tlc_state(
        m: &DnFinalizeBlock,
        pending: i64,
        finalized: [bool; 3],
        writer_len: i64,
        committed_len: [i64; 3],
        applied: [i64; 3],
        up: [bool; 3],
        finalized_len: [i64; 3],
        tx_finalized: bool,
        log: Vec<TlaValue>,
    ) -> State {
        let values = vec![
            per_node(up, TlaValue::Bool),
            TlaValue::seq(log),
            per_node(applied, TlaValue::int),
            per_node(committed_len, TlaValue::int),
            per_node(finalized, TlaValue::Bool),
            per_node(finalized_len, TlaValue::int),
            TlaValue::Bool(tx_finalized),
            TlaValue::int(pending),
            TlaValue::int(writer_len),
        ];
        m.from_tla(&values).unwrap()
    }

    /// The six states of `tlc/bug.out`, transcribed by hand, with their labels.
    fn bug_out_states(m: &DnFinalizeBlock) -> Vec<(&'static str, State)> {
        const F: bool = false;
        const T: bool = true;
        let fin = || entry("FinalizeBlock", 0);
        let put1 = || entry("PutBlock", 1);
        vec![
            (
                "Init",
                tlc_state(
                    m,
                    0,
                    [F, F, F],
                    0,
                    [0, 0, 0],
                    [0, 0, 0],
                    [T, T, T],
                    [0, 0, 0],
                    F,
                    vec![],
                ),
            ),
            (
                "StartPutBlock",
                tlc_state(
                    m,
                    1,
                    [F, F, F],
                    1,
                    [0, 0, 0],
                    [0, 0, 0],
                    [T, T, T],
                    [0, 0, 0],
                    F,
                    vec![],
                ),
            ),
            (
                "FinalizeBlock",
                tlc_state(
                    m,
                    1,
                    [F, F, F],
                    1,
                    [0, 0, 0],
                    [0, 0, 0],
                    [T, T, T],
                    [0, 0, 0],
                    T,
                    vec![fin()],
                ),
            ),
            (
                "AppendPutBlock",
                tlc_state(
                    m,
                    0,
                    [F, F, F],
                    1,
                    [0, 0, 0],
                    [0, 0, 0],
                    [T, T, T],
                    [0, 0, 0],
                    T,
                    vec![fin(), put1()],
                ),
            ),
            (
                "ApplyFinalizeBlock",
                tlc_state(
                    m,
                    0,
                    [T, F, F],
                    1,
                    [0, 0, 0],
                    [1, 0, 0],
                    [T, T, T],
                    [0, 0, 0],
                    T,
                    vec![fin(), put1()],
                ),
            ),
            (
                "ApplyPutBlock",
                tlc_state(
                    m,
                    0,
                    [T, F, F],
                    1,
                    [1, 0, 0],
                    [2, 0, 0],
                    [T, T, T],
                    [0, 0, 0],
                    T,
                    vec![fin(), put1()],
                ),
            ),
        ]
    }

    #[test]
    fn bug_out_counterexample_replays_step_by_step() {
        let m = mirror(false);
        let states = bug_out_states(&m);
        assert_eq!(m.init(), vec![states[0].1.clone()]);
        for w in states.windows(2) {
            let ((_, prev), (label, cur)) = (&w[0], &w[1]);
            assert!(
                m.next(prev)
                    .iter()
                    .any(|st| st.action.name() == *label && st.next == *cur),
                "{label} does not lead from {prev:?} to {cur:?}"
            );
            assert!(label.parse::<Action>().is_ok());
        }
        let last = &states.last().unwrap().1;
        assert!(states[..5]
            .iter()
            .all(|(_, s)| m.first_violated(s).is_none()));
        assert_eq!(m.first_violated(last), Some("NoPutBlockAfterFinalize"));
        // Parameters are the datanodes as model values.
        let step = m
            .next(&states[4].1)
            .into_iter()
            .find(|st| st.next == *last)
            .unwrap();
        assert_eq!(step.params, vec![TlaValue::model("d1")]);
        // The values print as TLC prints them (records aside, which TLC prints in field order).
        let v = m.to_tla(last);
        assert_eq!(v[2].to_string(), "(d1 :> 2 @@ d2 :> 0 @@ d3 :> 0)");
        assert_eq!(
            v[4].to_string(),
            "(d1 :> TRUE @@ d2 :> FALSE @@ d3 :> FALSE)"
        );
    }

    #[test]
    fn from_tla_names_the_first_ill_typed_variable_and_holds_rejects_unknown_names() {
        let m = mirror(true);
        let s = m.init().pop().unwrap();
        let mut v = m.to_tla(&s);
        v[3] = TlaValue::int(0);
        v[7] = TlaValue::Bool(true);
        let err = m.from_tla(&v).unwrap_err();
        assert!(err.contains("`committedLen`"), "{err}");
        let mut v = m.to_tla(&s);
        v[1] = TlaValue::seq([entry("WriteChunk", 1)]);
        assert!(m.from_tla(&v).unwrap_err().contains("`log`"));
        // Out of TypeOK's bounds but well-kinded: read, and TypeOK says no.
        let mut v = m.to_tla(&s);
        v[8] = TlaValue::int(3);
        let big = m.from_tla(&v).unwrap();
        assert!(!m.holds("TypeOK", &big));
        assert!(m.holds("NoPutBlockAfterFinalize", &big));
        assert!(m.holds("TypeOK", &s));
        assert!(!m.holds("NoSuchInvariant", &s));
        let mut c = constants(true);
        c.insert("Leader".into(), TlaValue::model("d9"));
        assert!(DnFinalizeBlock::new(&c).unwrap_err().contains("`Leader`"));
    }
}
