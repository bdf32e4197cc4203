//! The exact mirror of `traces/recon-om-sync/ReconOmSync.tla` (HDDS-16462): Recon's full-snapshot fallback
//! onto an earlier OM lineage, the in-memory reinitialization it queues, and the startup reconciliation that
//! misjudges a stale task cursor (`taskSeq[t] < deltaSeq`; the patch: `#`).
//!
//! Line numbers in the comments are those of `ReconOmSync.tla`. Tasks are indexed in TLA+ order (the sorted
//! order of the model values in `Tasks`); `reprocessed` is a bitset over those indices.

use crate::mirror::constants;
use crate::mirror::{Constants, Mirror, ShippedSpec, Step};
use crate::tla::value::TlaValue;

crate::spec_actions! {
    /// The actions `Next` is the disjunction of, in its order, as the module names them.
    pub enum Action {
        OmWrite,
        OmRestore,
        SyncDelta,
        FullSnapshot,
        ReprocessTask,
        ReinitDone,
        Crash,
        Stop,
        Restart,
        Reconcile,
    }
}

/// `Phases == {"Down", "Starting", "Running"}` (line 60).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    Down,
    Starting,
    Running,
}

impl Phase {
    const ALL: [Phase; 3] = [Phase::Down, Phase::Starting, Phase::Running];

    fn name(self) -> &'static str {
        match self {
            Phase::Down => "Down",
            Phase::Starting => "Starting",
            Phase::Running => "Running",
        }
    }
}

/// One state of `ReconOmSync`: the variables of its `vars` tuple (line 55).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct State {
    /// `omLineage`: current lineage of the OM DB.
    pub om_lineage: u32,
    /// `omSeq`: current sequence number of the OM DB.
    pub om_seq: u32,
    /// `seqCeiling`: highest sequence number the current lineage may reach.
    pub seq_ceiling: u32,
    /// `phase`: the Recon process.
    pub phase: Phase,
    /// `reconDbLineage`: lineage of Recon's local OM DB copy.
    pub recon_db_lineage: u32,
    /// `deltaSeq`: the TASK_STATUS `OmDeltaRequest` (= `OmSnapshotRequest`) cursor.
    pub delta_seq: u32,
    /// `taskSeq`: `taskSeq[t]` by task index, the task's TASK_STATUS `last_updated_seq_number`.
    pub task_seq: Vec<u32>,
    /// `taskLineage`: `taskLineage[t]` by task index, the lineage t's derived tables come from (ghost).
    pub task_lineage: Vec<u32>,
    /// `reinitQueued`: an async reinitialization event is queued (in memory).
    pub reinit_queued: bool,
    /// `reprocessed`: the tasks already reprocessed by the queued event, bit i for task i.
    pub reprocessed: u64,
}

/// The mirror under one assignment of `Tasks`, `MaxSeq`, `MaxLineage`, `ReprocessOnCursorMismatch`.
#[derive(Debug, Clone)]
pub struct ReconOmSync {
    /// `Tasks`, in TLA+ order.
    tasks: Vec<String>,
    /// `MaxSeq`.
    max_seq: u32,
    /// `MaxLineage`.
    max_lineage: u32,
    /// `ReprocessOnCursorMismatch` (the HDDS-16462 patch).
    reprocess_on_cursor_mismatch: bool,
}

impl ReconOmSync {
    /// The set `Tasks` as a bitset.
    fn all_tasks(&self) -> u64 {
        if self.tasks.len() == 64 {
            u64::MAX
        } else {
            (1u64 << self.tasks.len()) - 1
        }
    }

    /// `MinCursor == Min({deltaSeq} \cup {taskSeq[t] : t \in Tasks})` (line 64).
    fn min_cursor(&self, s: &State) -> u32 {
        s.task_seq.iter().copied().fold(s.delta_seq, u32::min)
    }

    /// `Lagging(t)` (line 67): `#` with the patch, `<` without.
    fn lagging(&self, s: &State, t: usize) -> bool {
        if self.reprocess_on_cursor_mismatch {
            s.task_seq[t] != s.delta_seq
        } else {
            s.task_seq[t] < s.delta_seq
        }
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

    /// `OmWrite` (line 102).
    fn om_write(&self, s: &State, out: &mut Vec<Step<State, Action>>) {
        if s.om_seq < s.seq_ceiling {
            let mut n = s.clone();
            n.om_seq = s.om_seq + 1;
            Self::push(out, Action::OmWrite, vec![], n);
        }
    }

    /// `OmRestore(n)` (line 113).
    fn om_restore(&self, s: &State, n: u32, out: &mut Vec<Step<State, Action>>) {
        let min = self.min_cursor(s);
        if s.om_lineage < self.max_lineage && n < min {
            let mut x = s.clone();
            x.om_lineage = s.om_lineage + 1;
            x.om_seq = n;
            x.seq_ceiling = min - 1;
            Self::push(out, Action::OmRestore, vec![TlaValue::int(i64::from(n))], x);
        }
    }

    /// `SyncDelta` (line 134).
    fn sync_delta(&self, s: &State, out: &mut Vec<Step<State, Action>>) {
        if s.phase == Phase::Running && s.recon_db_lineage == s.om_lineage && s.delta_seq < s.om_seq
        {
            let mut n = s.clone();
            n.delta_seq = s.om_seq;
            if !s.reinit_queued {
                n.task_seq.iter_mut().for_each(|v| *v = s.om_seq);
            }
            Self::push(out, Action::SyncDelta, vec![], n);
        }
    }

    /// `FullSnapshot` (line 155).
    fn full_snapshot(&self, s: &State, out: &mut Vec<Step<State, Action>>) {
        if s.phase == Phase::Running
            && (s.recon_db_lineage != s.om_lineage || s.delta_seq < s.om_seq)
        {
            let mut n = s.clone();
            n.recon_db_lineage = s.om_lineage;
            n.delta_seq = s.om_seq;
            n.reinit_queued = true;
            n.reprocessed = 0;
            Self::push(out, Action::FullSnapshot, vec![], n);
        }
    }

    /// `ReprocessTask(t)` (line 170).
    fn reprocess_task(&self, s: &State, t: usize, out: &mut Vec<Step<State, Action>>) {
        if s.phase == Phase::Running && s.reinit_queued && s.reprocessed & (1 << t) == 0 {
            let mut n = s.clone();
            n.task_lineage[t] = s.recon_db_lineage;
            n.reprocessed |= 1 << t;
            let param = TlaValue::model(self.tasks[t].as_str());
            Self::push(out, Action::ReprocessTask, vec![param], n);
        }
    }

    /// `ReinitDone` (line 186).
    fn reinit_done(&self, s: &State, out: &mut Vec<Step<State, Action>>) {
        if s.phase == Phase::Running && s.reinit_queued && s.reprocessed == self.all_tasks() {
            let mut n = s.clone();
            n.task_seq.iter_mut().for_each(|v| *v = s.delta_seq);
            n.reinit_queued = false;
            n.reprocessed = 0;
            Self::push(out, Action::ReinitDone, vec![], n);
        }
    }

    /// The state `Crash` and `Stop` both leave: Recon down, its in-memory queue and reprocessing lost.
    fn down(s: &State) -> State {
        let mut n = s.clone();
        n.phase = Phase::Down;
        n.reinit_queued = false;
        n.reprocessed = 0;
        n
    }

    /// `Crash` (line 199).
    fn crash(&self, s: &State, out: &mut Vec<Step<State, Action>>) {
        if s.phase != Phase::Down {
            Self::push(out, Action::Crash, vec![], Self::down(s));
        }
    }

    /// `Stop` (line 213).
    fn stop(&self, s: &State, out: &mut Vec<Step<State, Action>>) {
        if s.phase == Phase::Running {
            Self::push(out, Action::Stop, vec![], Self::down(s));
        }
    }

    /// `Restart` (line 224).
    fn restart(&self, s: &State, out: &mut Vec<Step<State, Action>>) {
        if s.phase == Phase::Down {
            let mut n = s.clone();
            n.phase = Phase::Starting;
            Self::push(out, Action::Restart, vec![], n);
        }
    }

    /// `Reconcile` (line 239).
    fn reconcile(&self, s: &State, out: &mut Vec<Step<State, Action>>) {
        if s.phase == Phase::Starting {
            let mut n = s.clone();
            n.phase = Phase::Running;
            if (0..self.tasks.len()).any(|t| self.lagging(s, t)) {
                n.reinit_queued = true;
                n.reprocessed = 0;
            }
            Self::push(out, Action::Reconcile, vec![], n);
        }
    }

    /// `TypeOK` (line 71).
    fn type_ok(&self, s: &State) -> bool {
        let lineage = |l: u32| (1..=self.max_lineage).contains(&l);
        let seq = |n: u32| n <= self.max_seq;
        let k = self.tasks.len();
        lineage(s.om_lineage)
            && seq(s.om_seq)
            && seq(s.seq_ceiling)
            && lineage(s.recon_db_lineage)
            && seq(s.delta_seq)
            && s.task_seq.len() == k
            && s.task_seq.iter().all(|&n| seq(n))
            && s.task_lineage.len() == k
            && s.task_lineage.iter().all(|&l| lineage(l))
            && s.reprocessed & !self.all_tasks() == 0
    }

    /// `DerivedTasksMatchOmLineage` (line 270).
    fn derived_tasks_match_om_lineage(&self, s: &State) -> bool {
        let quiet = s.phase == Phase::Running && !s.reinit_queued;
        // quiet => \A t \in Tasks : taskLineage[t] = reconDbLineage
        if quiet {
            s.task_lineage.iter().all(|&l| l == s.recon_db_lineage)
        } else {
            true
        }
    }

    /// `Next`'s successors (line 251), disjunct by disjunct, `\E t \in Tasks` in TLA+ order, with
    /// `OmRestore(n)` for the `n` of `restores` (ascending, as `\E n \in Seqs` is in TLA+ order).
    fn successors(
        &self,
        s: &State,
        restores: impl Iterator<Item = u32>,
    ) -> Vec<Step<State, Action>> {
        let mut out = Vec::new();
        self.om_write(s, &mut out);
        for n in restores {
            self.om_restore(s, n, &mut out);
        }
        self.sync_delta(s, &mut out);
        self.full_snapshot(s, &mut out);
        for t in 0..self.tasks.len() {
            self.reprocess_task(s, t, &mut out);
        }
        self.reinit_done(s, &mut out);
        self.crash(s, &mut out);
        self.stop(s, &mut out);
        self.restart(s, &mut out);
        self.reconcile(s, &mut out);
        out
    }

    /// A per-task function `[t \in Tasks |-> f(t)]` as TLC prints it.
    fn per_task(&self, values: &[u32]) -> TlaValue {
        TlaValue::function(
            self.tasks
                .iter()
                .zip(values)
                .map(|(t, &v)| (TlaValue::model(t.as_str()), TlaValue::int(i64::from(v)))),
        )
    }
}

/// An integer in `lo..hi` (inclusive), or an error naming the variable.
fn int_in(name: &str, v: &TlaValue, lo: u32, hi: u32) -> Result<u32, String> {
    v.as_i64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| (lo..=hi).contains(n))
        .ok_or_else(|| format!("`{name}` should be an integer in {lo}..{hi}, not {v}"))
}

impl Mirror for ReconOmSync {
    type State = State;

    const MODEL: &'static str = "recon-om-sync";
    const MODULE: &'static str = "ReconOmSync";
    const VARIABLES: &'static [&'static str] = &[
        "omLineage",
        "omSeq",
        "seqCeiling",
        "phase",
        "reconDbLineage",
        "deltaSeq",
        "taskSeq",
        "taskLineage",
        "reinitQueued",
        "reprocessed",
    ];
    type Action = Action;
    const INVARIANTS: &'static [&'static str] = &["TypeOK", "DerivedTasksMatchOmLineage"];
    const PATCH_CONSTANT: &'static str = "ReprocessOnCursorMismatch";
    const SPEC: ShippedSpec = crate::shipped_spec!("recon-om-sync", "ReconOmSync");

    fn new(c: &Constants) -> Result<Self, String> {
        let tasks = constants::model_values(c, "Tasks")?;
        if tasks.len() > 64 {
            return Err(format!(
                "constant `Tasks` has {} elements; this mirror handles at most 64",
                tasks.len()
            ));
        }
        let max_seq = constants::natural(c, "MaxSeq")?;
        let max_lineage = constants::natural(c, "MaxLineage")?;
        if max_lineage < 1 {
            // ASSUME MaxLineage >= 1 (line 45).
            return Err("constant `MaxLineage` should be at least 1, not 0".into());
        }
        let reprocess_on_cursor_mismatch = constants::boolean(c, "ReprocessOnCursorMismatch")?;
        Ok(ReconOmSync {
            tasks,
            max_seq,
            max_lineage,
            reprocess_on_cursor_mismatch,
        })
    }

    /// `Init` (line 84): one state.
    fn init(&self) -> Vec<State> {
        let k = self.tasks.len();
        vec![State {
            om_lineage: 1,
            om_seq: 0,
            seq_ceiling: self.max_seq,
            phase: Phase::Running,
            recon_db_lineage: 1,
            delta_seq: 0,
            task_seq: vec![0; k],
            task_lineage: vec![1; k],
            reinit_queued: false,
            reprocessed: 0,
        }]
    }

    /// `Next` (line 251), disjunct by disjunct, `\E n \in Seqs` and `\E t \in Tasks` in TLA+ order.
    fn next(&self, s: &State) -> Vec<Step<State, Action>> {
        // `OmRestore(n)` needs `n < MinCursor`: no larger `n` is tried.
        let below = self.min_cursor(s).min(self.max_seq.saturating_add(1));
        self.successors(s, 0..below)
    }

    /// `next` with `OmRestore(n)` only for the `n` the goal names: `OmRestore` is wide (one instance per
    /// sequence number below the cursor, and the numbers grow with the log), and the witnesses name every
    /// restore the logs show. A restore no witness names never shortens the run to a step that the search
    /// without it reaches: it changes only `omLineage`, `omSeq` and `seqCeiling`, a new lineage disables
    /// `SyncDelta`, and the only steps it enables, `FullSnapshot` and `OmWrite`, that search reaches with
    /// at most one `OmWrite` or not at all (and then searches `next`).
    fn next_toward(
        &self,
        s: &State,
        action: Action,
        params: &[TlaValue],
    ) -> Option<Vec<Step<State, Action>>> {
        let goal = match (action, params) {
            (Action::OmRestore, [n]) => n.as_i64().and_then(|n| u32::try_from(n).ok()),
            _ => None,
        };
        Some(self.successors(s, goal.into_iter().filter(|&n| n <= self.max_seq)))
    }

    /// `TypeOK` and `DerivedTasksMatchOmLineage`; any other name is not an invariant of this module, and
    /// `false` is returned for it so that a misspelt invariant can never pass for a holding one.
    fn holds(&self, invariant: &str, s: &State) -> bool {
        match invariant {
            "TypeOK" => self.type_ok(s),
            "DerivedTasksMatchOmLineage" => self.derived_tasks_match_om_lineage(s),
            _ => false,
        }
    }

    fn to_tla(&self, s: &State) -> Vec<TlaValue> {
        let int = |n: u32| TlaValue::int(i64::from(n));
        vec![
            int(s.om_lineage),
            int(s.om_seq),
            int(s.seq_ceiling),
            TlaValue::str(s.phase.name()),
            int(s.recon_db_lineage),
            int(s.delta_seq),
            self.per_task(&s.task_seq),
            self.per_task(&s.task_lineage),
            TlaValue::Bool(s.reinit_queued),
            TlaValue::set(
                self.tasks
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| s.reprocessed & (1 << i) != 0)
                    .map(|(_, t)| TlaValue::model(t.as_str())),
            ),
        ]
    }

    fn from_tla(&self, values: &[TlaValue]) -> Result<State, String> {
        if values.len() != Self::VARIABLES.len() {
            return Err(format!(
                "expected {} values ({}), got {}",
                Self::VARIABLES.len(),
                Self::VARIABLES.join(", "),
                values.len()
            ));
        }
        let lineage = |i: usize| int_in(Self::VARIABLES[i], &values[i], 1, self.max_lineage);
        let seq = |i: usize| int_in(Self::VARIABLES[i], &values[i], 0, self.max_seq);
        // `[Tasks -> lo..hi]`: a function whose domain is exactly `Tasks`.
        let per_task = |i: usize, lo: u32, hi: u32| -> Result<Vec<u32>, String> {
            let name = Self::VARIABLES[i];
            let v = &values[i];
            let wrong = || {
                format!(
                    "`{name}` should be a function from Tasks to {lo}..{hi}, not the {} {v}",
                    v.kind()
                )
            };
            let pairs = match v {
                TlaValue::Function(p) if p.len() == self.tasks.len() => p,
                _ => return Err(wrong()),
            };
            // Both in TLA+ order, so the keys must line up one to one.
            pairs
                .iter()
                .zip(&self.tasks)
                .map(|((k, val), t)| match k {
                    TlaValue::ModelValue(m) if m == t => int_in(name, val, lo, hi),
                    _ => Err(wrong()),
                })
                .collect()
        };
        let phase = match &values[3] {
            TlaValue::Str(p) => Phase::ALL.into_iter().find(|ph| ph.name() == p),
            _ => None,
        }
        .ok_or_else(|| {
            format!(
                "`phase` should be one of \"Down\", \"Starting\", \"Running\", not {}",
                values[3]
            )
        })?;
        let reinit_queued = values[8]
            .as_bool()
            .ok_or_else(|| format!("`reinitQueued` should be TRUE or FALSE, not {}", values[8]))?;
        let reprocessed = {
            let v = &values[9];
            let wrong = || format!("`reprocessed` should be a subset of Tasks, not {v}");
            let elems = v.as_set().ok_or_else(wrong)?;
            let mut bits = 0u64;
            for e in elems {
                let i = match e {
                    TlaValue::ModelValue(m) => self.tasks.iter().position(|t| t == m),
                    _ => None,
                }
                .ok_or_else(wrong)?;
                bits |= 1 << i;
            }
            bits
        };
        Ok(State {
            om_lineage: lineage(0)?,
            om_seq: seq(1)?,
            seq_ceiling: seq(2)?,
            phase,
            recon_db_lineage: lineage(4)?,
            delta_seq: seq(5)?,
            task_seq: per_task(6, 0, self.max_seq)?,
            task_lineage: per_task(7, 1, self.max_lineage)?,
            reinit_queued,
            reprocessed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::{FxHashMap, FxHashSet};
    use std::collections::VecDeque;

    const CKM: &str = "ContainerKeyMapperTask";
    const NSS: &str = "NSSummaryTask";

    /// The constants of `ReconOmSync.cfg` (`fixed = false`) or `ReconOmSyncFixed.cfg` (`fixed = true`).
    fn mirror(fixed: bool) -> ReconOmSync {
        let mut c = Constants::new();
        c.insert(
            "Tasks".into(),
            TlaValue::set([TlaValue::model(CKM), TlaValue::model(NSS)]),
        );
        c.insert("MaxSeq".into(), TlaValue::int(4));
        c.insert("MaxLineage".into(), TlaValue::int(3));
        c.insert("ReprocessOnCursorMismatch".into(), TlaValue::Bool(fixed));
        ReconOmSync::new(&c).expect("the configs' constants are well typed")
    }

    /// What a TLC-style breadth-first search saw.
    struct Search {
        /// Distinct states, in the order they were found, with their BFS level (init = 1, as TLC counts).
        states: Vec<(State, usize)>,
        /// Init states plus every successor generated (duplicates included), up to the stop.
        generated: usize,
        /// Deepest level reached: the longest shortest path, in states.
        depth: usize,
        /// The first violated invariant and the level of the state violating it.
        violation: Option<(&'static str, usize)>,
        /// States found and not yet expanded when the search stopped (the violating one excluded).
        left_on_queue: usize,
    }

    /// Breadth-first search as TLC's single worker does it: invariants are checked, in `INVARIANTS` order, on
    /// each state when it is first seen, and the search stops at the first violation.
    fn bfs(m: &ReconOmSync) -> Search {
        let mut seen: FxHashMap<State, usize> = FxHashMap::default();
        let mut order: Vec<(State, usize)> = Vec::new();
        let mut queue: VecDeque<(State, usize)> = VecDeque::new();
        let mut generated = 0;
        let mut depth = 0;
        let mut visit = |s: State,
                         level: usize,
                         seen: &mut FxHashMap<State, usize>,
                         queue: &mut VecDeque<(State, usize)>|
         -> Option<(&'static str, usize)> {
            if seen.contains_key(&s) {
                return None;
            }
            seen.insert(s.clone(), level);
            order.push((s.clone(), level));
            depth = depth.max(level);
            // TLC checks a new state's invariants before it enqueues it.
            let bad = m.first_violated(&s);
            if bad.is_none() {
                queue.push_back((s, level));
            }
            bad.map(|inv| (inv, level))
        };
        let violation = 'search: {
            for s in m.init() {
                generated += 1;
                if let Some(v) = visit(s, 1, &mut seen, &mut queue) {
                    break 'search Some(v);
                }
            }
            while let Some((s, level)) = queue.pop_front() {
                for step in m.next(&s) {
                    generated += 1;
                    if let Some(v) = visit(step.next, level + 1, &mut seen, &mut queue) {
                        break 'search Some(v);
                    }
                }
            }
            None
        };
        Search {
            states: order,
            generated,
            depth,
            violation,
            // Empty unless the search stopped at a violation.
            left_on_queue: queue.len(),
        }
    }

    #[test]
    fn bug_config_bfs_violates_derived_tasks_match_om_lineage_at_depth_8_like_tlc() {
        let m = mirror(false);
        let r = bfs(&m);
        println!(
            "bug BFS: {} distinct, {} generated, depth {}, {} left on queue \
             (TLC: 306 distinct, 769 generated, depth 8, 129 left on queue)",
            r.states.len(),
            r.generated,
            r.depth,
            r.left_on_queue
        );
        assert_eq!(r.violation, Some(("DerivedTasksMatchOmLineage", 8)));
        assert_eq!(r.depth, 8);
        // TLC's own numbers when it stopped (README, tlc/bug.out): the same search order gives the same.
        assert_eq!(r.states.len(), 306);
        assert_eq!(r.generated, 769);
        assert_eq!(r.left_on_queue, 129);
    }

    #[test]
    fn fixed_config_bfs_finds_tlcs_2484_distinct_9087_generated_depth_20_and_no_violation() {
        let m = mirror(true);
        let r = bfs(&m);
        println!(
            "fixed BFS: {} distinct, {} generated, depth {} (TLC: 2484 distinct, 9087 generated, depth 20)",
            r.states.len(),
            r.generated,
            r.depth
        );
        assert_eq!(r.violation, None);
        assert_eq!(r.states.len(), 2484);
        assert_eq!(r.generated, 9087);
        assert_eq!(r.depth, 20);
        // Every action of Next is taken somewhere in the fixed state space, and every task parameter.
        let mut taken: FxHashSet<(Action, Vec<TlaValue>)> = FxHashSet::default();
        for (s, _) in &r.states {
            for step in m.next(s) {
                taken.insert((step.action, step.params));
            }
        }
        for a in Action::ALL {
            assert!(taken.iter().any(|(b, _)| b == a), "{a} never enabled");
        }
        for t in [CKM, NSS] {
            assert!(taken.contains(&(Action::ReprocessTask, vec![TlaValue::model(t)])));
        }
    }

    #[test]
    fn to_tla_then_from_tla_is_the_identity_on_every_fixed_state() {
        let m = mirror(true);
        let r = bfs(&m);
        assert_eq!(r.states.len(), 2484);
        for (s, _) in &r.states {
            let values = m.to_tla(s);
            assert_eq!(values.len(), ReconOmSync::VARIABLES.len());
            assert_eq!(m.from_tla(&values).as_ref(), Ok(s));
        }
    }

    /// One state of a TLC trace, its values written as TLC prints them, in `VARIABLES` order.
    #[allow(clippy::too_many_arguments)]
    fn tlc_state(
        om_lineage: i64,
        om_seq: i64,
        seq_ceiling: i64,
        phase: &str,
        recon_db_lineage: i64,
        delta_seq: i64,
        task_seq: (i64, i64),
        task_lineage: (i64, i64),
        reinit_queued: bool,
        reprocessed: &[&str],
    ) -> Vec<TlaValue> {
        let per_task = |(a, b): (i64, i64)| {
            TlaValue::function([
                (TlaValue::model(CKM), TlaValue::int(a)),
                (TlaValue::model(NSS), TlaValue::int(b)),
            ])
        };
        vec![
            TlaValue::int(om_lineage),
            TlaValue::int(om_seq),
            TlaValue::int(seq_ceiling),
            TlaValue::str(phase),
            TlaValue::int(recon_db_lineage),
            TlaValue::int(delta_seq),
            per_task(task_seq),
            per_task(task_lineage),
            TlaValue::Bool(reinit_queued),
            TlaValue::set(reprocessed.iter().map(|t| TlaValue::model(*t))),
        ]
    }

    #[test]
    fn tlc_bug_counterexample_replays_step_by_step() {
        let m = mirror(false);
        // tlc/bug.out, states 1..8 with their labels.
        #[rustfmt::skip]
        let trace: Vec<(&str, Vec<TlaValue>)> = vec![
            ("Init",         tlc_state(1, 0, 4, "Running",  1, 0, (0, 0), (1, 1), false, &[])),
            ("OmWrite",      tlc_state(1, 1, 4, "Running",  1, 0, (0, 0), (1, 1), false, &[])),
            ("SyncDelta",    tlc_state(1, 1, 4, "Running",  1, 1, (1, 1), (1, 1), false, &[])),
            ("OmRestore",    tlc_state(2, 0, 0, "Running",  1, 1, (1, 1), (1, 1), false, &[])),
            ("FullSnapshot", tlc_state(2, 0, 0, "Running",  2, 0, (1, 1), (1, 1), true,  &[])),
            ("Crash",        tlc_state(2, 0, 0, "Down",     2, 0, (1, 1), (1, 1), false, &[])),
            ("Restart",      tlc_state(2, 0, 0, "Starting", 2, 0, (1, 1), (1, 1), false, &[])),
            ("Reconcile",    tlc_state(2, 0, 0, "Running",  2, 0, (1, 1), (1, 1), false, &[])),
        ];
        let states: Vec<State> = trace
            .iter()
            .map(|(_, v)| m.from_tla(v).expect("TLC's values are in the spec's types"))
            .collect();
        assert_eq!(states[0], m.init()[0]);
        for (i, (label, _)) in trace.iter().enumerate().skip(1) {
            let steps = m.next(&states[i - 1]);
            assert!(
                steps
                    .iter()
                    .any(|st| st.action.name() == *label && st.next == states[i]),
                "state {} is not a {label} successor of state {i}",
                i + 1
            );
        }
        for (i, s) in states.iter().enumerate() {
            assert_eq!(m.to_tla(s), trace[i].1);
            let expected = if i == 7 {
                Some("DerivedTasksMatchOmLineage")
            } else {
                None
            };
            assert_eq!(m.first_violated(s), expected, "state {}", i + 1);
        }
        // The restore went to sequence 0, and the patch's reconciliation would have queued the reprocess.
        let restore = m.next(&states[2]);
        assert!(restore
            .iter()
            .any(|st| st.action == Action::OmRestore && st.params == [TlaValue::int(0)]));
        let fixed = mirror(true);
        let rec = fixed.next(&states[6]);
        assert_eq!(rec.len(), 2, "Crash and Reconcile from Starting");
        assert!(rec
            .iter()
            .any(|st| st.action == Action::Reconcile && st.next.reinit_queued));
    }

    /// A value of this spec's types as TLC writes it: integers, strings, booleans, sets of model values and
    /// `(k :> v @@ ...)` functions over model values. Enough for `tlc/simulate`, nothing more.
    fn parse_value(text: &str) -> TlaValue {
        let t = text.trim();
        if let Some(inner) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
            return TlaValue::function(inner.split("@@").map(|pair| {
                let (k, v) = pair.split_once(":>").expect("k :> v");
                (TlaValue::model(k.trim()), parse_value(v))
            }));
        }
        if let Some(inner) = t.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            return TlaValue::set(
                inner
                    .split(',')
                    .map(str::trim)
                    .filter(|e| !e.is_empty())
                    .map(TlaValue::model),
            );
        }
        if let Some(s) = t.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
            return TlaValue::str(s);
        }
        match t {
            "TRUE" => TlaValue::Bool(true),
            "FALSE" => TlaValue::Bool(false),
            _ => TlaValue::int(t.parse().expect("an integer")),
        }
    }

    #[test]
    fn tlc_simulated_fixed_behaviours_replay() {
        let m = mirror(true);
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/traces/recon-om-sync/tlc/simulate"
        );
        let mut files = 0;
        for entry in std::fs::read_dir(dir).expect("tlc/simulate exists") {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let mut states: Vec<State> = Vec::new();
            for block in text.split("STATE_").skip(1) {
                let mut values: FxHashMap<&str, TlaValue> = FxHashMap::default();
                for line in block.lines() {
                    if let Some(rest) = line.strip_prefix("/\\ ") {
                        let (name, v) = rest.split_once(" = ").expect("var = value");
                        values.insert(name.trim(), parse_value(v));
                    }
                }
                let ordered: Vec<TlaValue> = ReconOmSync::VARIABLES
                    .iter()
                    .map(|v| values.remove(v).expect("every variable is printed"))
                    .collect();
                assert!(values.is_empty(), "no other variables");
                let s = m.from_tla(&ordered).unwrap();
                assert_eq!(m.to_tla(&s), ordered);
                assert_eq!(m.first_violated(&s), None);
                match states.last() {
                    None => assert_eq!(s, m.init()[0], "{path:?} starts in Init"),
                    Some(prev) => assert!(
                        m.next(prev).iter().any(|st| st.next == s),
                        "{path:?}: state {} is no successor of state {}",
                        states.len() + 1,
                        states.len()
                    ),
                }
                states.push(s);
            }
            assert!(states.len() > 1, "{path:?} holds a behaviour");
            files += 1;
        }
        assert_eq!(files, 20);
    }

    #[test]
    fn from_tla_names_the_variable_outside_its_type_and_holds_rejects_unknown_invariants() {
        let m = mirror(true);
        let good = tlc_state(1, 0, 4, "Running", 1, 0, (0, 0), (1, 1), false, &[]);
        assert!(m.from_tla(&good).is_ok());
        let mut bad = good.clone();
        bad[1] = TlaValue::int(5);
        assert!(m.from_tla(&bad).unwrap_err().contains("`omSeq`"));
        let mut bad = good.clone();
        bad[3] = TlaValue::str("Stopping");
        assert!(m.from_tla(&bad).unwrap_err().contains("`phase`"));
        let mut bad = good.clone();
        bad[7] = TlaValue::function([(TlaValue::model(CKM), TlaValue::int(1))]);
        assert!(m.from_tla(&bad).unwrap_err().contains("`taskLineage`"));
        let mut bad = good.clone();
        bad[9] = TlaValue::set([TlaValue::model("OmTableInsightTask")]);
        assert!(m.from_tla(&bad).unwrap_err().contains("`reprocessed`"));
        assert!(m.from_tla(&good[..9]).is_err());
        let s = m.from_tla(&good).unwrap();
        assert!(m.holds("TypeOK", &s));
        assert!(m.holds("DerivedTasksMatchOmLineage", &s));
        assert!(!m.holds("NoSuchInvariant", &s));
        let mut wrong = s.clone();
        wrong.om_lineage = 4;
        assert!(!m.holds("TypeOK", &wrong));
        let mut wrong = s;
        wrong.reprocessed = 0b100;
        assert!(!m.holds("TypeOK", &wrong));
    }
}
