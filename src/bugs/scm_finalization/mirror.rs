//! `scm-finalization`: the exact mirror of `traces/scm-finalization/ScmFinalization.tla` (HDDS-17089).
//!
//! Every variable of the module's `vars` tuple is a field of [`State`]; every action of `Next` is a method of
//! [`ScmFinalization`] under the action's name in snake case. SCMs (`Scms`) and datanodes (`Datanodes`) are
//! indexed by their position in TLA+ order (the sorted order [`constants::model_values`] returns); per-node
//! booleans and versions are bitsets over those positions (bit `i` = node `i`), which limits both sets to 64
//! nodes. Versions are `PreFinalized == 0` (bit clear) and `Finalized == 1` (bit set).
//!
//! [`Mirror::from_tla`] takes any value of the variables' shapes (functions over exactly `Scms` or
//! `Datanodes`, versions in `{0, 1}`, phases in `Phases`, entries in `Entries`, naturals for the indices);
//! the bounds by `MaxLog` are left to `TypeOK`, so a state outside them can still be read and judged.

use crate::mirror::{constants, Constants, Mirror, ShippedSpec, Step};
use crate::tla::value::TlaValue;

crate::spec_actions! {
    /// The actions `Next` is the disjunction of, in its order, as the module names them.
    pub enum Action {
        Propose,
        Finalize,
        PurgeLog,
        FinalizeDatanode,
        BecomeLeader,
        ApplyEntry,
        NotifyInstall,
        ReplaceDb,
        FinalizeFromSnapshot,
        Crash,
        Stop,
        Restart,
        Register,
        FenceDatanode,
    }
}

/// `Phases == {"Idle", "Downloaded", "Swapped"}` (line 61): `install[s]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    Idle,
    Downloaded,
    Swapped,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Idle => "Idle",
            Phase::Downloaded => "Downloaded",
            Phase::Swapped => "Swapped",
        }
    }
}

/// `Entries == {"tx", "finalize"}` (line 62): an entry of `log`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Entry {
    Tx,
    Finalize,
}

impl Entry {
    fn name(self) -> &'static str {
        match self {
            Entry::Tx => "tx",
            Entry::Finalize => "finalize",
        }
    }
}

/// A state of `ScmFinalization`: one field per variable (line 43).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct State {
    /// `up`: bit `s` set = SCM `s` is running.
    pub up: u64,
    /// `leader`: the current leader's index, `None` for `NoNode`.
    pub leader: Option<usize>,
    /// `dbIndex`: per SCM, the last Ratis index applied to scm.db.
    pub db_index: Vec<u32>,
    /// `dbVersion`: bit `s` set = `#LAYOUTVERSION` in scm.db of `s` is `Finalized`.
    pub db_version: u64,
    /// `versionFile`: bit `s` set = the VERSION file of `s` is `Finalized`.
    pub version_file: u64,
    /// `install`: per SCM, the snapshot install phase.
    pub install: Vec<Phase>,
    /// `ckptIndex`: per SCM, the index of the downloaded checkpoint.
    pub ckpt_index: Vec<u32>,
    /// `log`: the ghost SCM Ratis log.
    pub log: Vec<Entry>,
    /// `purgedIndex`: entries `1..purgedIndex` are purged on the leader.
    pub purged_index: u32,
    /// `registered`: per SCM, the bitset of datanodes registered with it.
    pub registered: Vec<u64>,
    /// `dnVersion`: bit `d` set = datanode `d` is `Finalized`.
    pub dn_version: u64,
    /// `dnFenced`: bit `d` set = datanode `d` was shut down by a registration rejection.
    pub dn_fenced: u64,
}

fn bit(set: u64, i: usize) -> bool {
    set & (1 << i) != 0
}

/// All bits below `n`.
fn mask(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1 << n) - 1
    }
}

/// The mirror under one assignment of the constants (line 27).
#[derive(Debug, Clone)]
pub struct ScmFinalization {
    /// `Scms`, in TLA+ order.
    scms: Vec<String>,
    /// `Datanodes`, in TLA+ order.
    datanodes: Vec<String>,
    /// `NoNode`.
    no_node: String,
    /// `MaxLog`.
    max_log: u32,
    /// `FinalizeFromDbOnStartup`: the HDDS-17089 patch.
    finalize_from_db_on_startup: bool,
}

impl ScmFinalization {
    /// `Scms`, in TLA+ order (the index of an SCM in [`State`]).
    pub fn scms(&self) -> &[String] {
        &self.scms
    }

    /// `Datanodes`, in TLA+ order (the index of a datanode in [`State`]).
    pub fn datanodes(&self) -> &[String] {
        &self.datanodes
    }

    fn scm(&self, s: usize) -> TlaValue {
        TlaValue::model(&self.scms[s])
    }

    fn dn(&self, d: usize) -> TlaValue {
        TlaValue::model(&self.datanodes[d])
    }

    /// `DbVersionAt(i)` (line 65): is there a "finalize" among `log[1..i]`? (TLC would fail on `i > Len(log)`,
    /// which no reachable state asks; the mirror reads only the entries there are.)
    fn db_version_at(s: &State, i: u32) -> bool {
        s.log.iter().take(i as usize).any(|e| *e == Entry::Finalize)
    }

    /// `CaughtUp(s)` (line 68).
    fn caught_up(s: &State, n: usize) -> bool {
        bit(s.up, n) && s.install[n] == Phase::Idle && s.db_index[n] as usize == s.log.len()
    }

    /// `versionFile[s]` as the number the spec compares (0 or 1).
    fn version_file(st: &State, s: usize) -> u8 {
        u8::from(bit(st.version_file, s))
    }

    /// `dnVersion[d]` as the number the spec compares (0 or 1).
    fn dn_version(st: &State, d: usize) -> u8 {
        u8::from(bit(st.dn_version, d))
    }

    /// The leader, if there is one and it is up: the guard `leader # NoNode /\ up[leader]`.
    fn up_leader(s: &State) -> Option<usize> {
        s.leader.filter(|&l| bit(s.up, l))
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

    /// `BecomeLeader(s)` (line 106).
    fn become_leader(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        if !Self::caught_up(st, s) || st.leader == Some(s) {
            return;
        }
        let mut n = st.clone();
        n.leader = Some(s);
        Self::push(out, Action::BecomeLeader, vec![self.scm(s)], n);
    }

    /// `Propose` (line 116).
    fn propose(&self, st: &State, out: &mut Vec<Step<State, Action>>) {
        if Self::up_leader(st).is_none() || st.log.len() >= self.max_log as usize {
            return;
        }
        let mut n = st.clone();
        n.log.push(Entry::Tx);
        Self::push(out, Action::Propose, vec![], n);
    }

    /// `Finalize` (line 128).
    fn finalize(&self, st: &State, out: &mut Vec<Step<State, Action>>) {
        if Self::up_leader(st).is_none()
            || st.log.contains(&Entry::Finalize)
            || st.log.len() >= self.max_log as usize
        {
            return;
        }
        let mut n = st.clone();
        n.log.push(Entry::Finalize);
        Self::push(out, Action::Finalize, vec![], n);
    }

    /// `PurgeLog` (line 141).
    fn purge_log(&self, st: &State, out: &mut Vec<Step<State, Action>>) {
        let Some(l) = Self::up_leader(st) else {
            return;
        };
        if st.purged_index >= st.db_index[l] {
            return;
        }
        let mut n = st.clone();
        n.purged_index = st.db_index[l];
        Self::push(out, Action::PurgeLog, vec![], n);
    }

    /// `FinalizeDatanode(d)` (line 155).
    fn finalize_datanode(&self, st: &State, d: usize, out: &mut Vec<Step<State, Action>>) {
        let Some(l) = Self::up_leader(st) else {
            return;
        };
        if !bit(st.version_file, l)
            || !bit(st.registered[l], d)
            || bit(st.dn_fenced, d)
            || bit(st.dn_version, d)
        {
            return;
        }
        let mut n = st.clone();
        n.dn_version |= 1 << d;
        Self::push(out, Action::FinalizeDatanode, vec![self.dn(d)], n);
    }

    /// `ApplyEntry(s)` (line 175).
    fn apply_entry(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        let i = st.db_index[s];
        if !bit(st.up, s)
            || st.install[s] != Phase::Idle
            || i as usize >= st.log.len()
            || i < st.purged_index
        {
            return;
        }
        let mut n = st.clone();
        n.db_index[s] = i + 1;
        if st.log[i as usize] == Entry::Finalize {
            n.version_file |= 1 << s;
            n.db_version |= 1 << s;
        }
        Self::push(out, Action::ApplyEntry, vec![self.scm(s)], n);
    }

    /// `NotifyInstall(s)` (line 195).
    fn notify_install(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        let Some(l) = Self::up_leader(st) else {
            return;
        };
        if !bit(st.up, s)
            || l == s
            || st.install[s] != Phase::Idle
            || st.db_index[s] >= st.purged_index
        {
            return;
        }
        let mut n = st.clone();
        n.install[s] = Phase::Downloaded;
        n.ckpt_index[s] = st.db_index[l];
        Self::push(out, Action::NotifyInstall, vec![self.scm(s)], n);
    }

    /// `ReplaceDb(s)` (line 211).
    fn replace_db(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        if !bit(st.up, s) || st.install[s] != Phase::Downloaded {
            return;
        }
        let mut n = st.clone();
        n.db_index[s] = st.ckpt_index[s];
        if Self::db_version_at(st, st.ckpt_index[s]) {
            n.db_version |= 1 << s;
        } else {
            n.db_version &= !(1 << s);
        }
        n.install[s] = Phase::Swapped;
        Self::push(out, Action::ReplaceDb, vec![self.scm(s)], n);
    }

    /// `FinalizeFromSnapshot(s)` (line 228).
    fn finalize_from_snapshot(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        if !bit(st.up, s) || st.install[s] != Phase::Swapped {
            return;
        }
        let mut n = st.clone();
        // Max(versionFile[s], dbVersion[s]) over {0, 1}.
        n.version_file |= st.db_version & (1 << s);
        n.install[s] = Phase::Idle;
        Self::push(out, Action::FinalizeFromSnapshot, vec![self.scm(s)], n);
    }

    /// `Register(s, d)` (line 239).
    fn register(&self, st: &State, s: usize, d: usize, out: &mut Vec<Step<State, Action>>) {
        if !Self::caught_up(st, s)
            || bit(st.dn_fenced, d)
            || bit(st.registered[s], d)
            // not dnVersion[d] <= versionFile[s]
            || Self::dn_version(st, d) > Self::version_file(st, s)
        {
            return;
        }
        let mut n = st.clone();
        n.registered[s] |= 1 << d;
        Self::push(out, Action::Register, vec![self.scm(s), self.dn(d)], n);
    }

    /// `FenceDatanode(s, d)` (line 257).
    fn fence_datanode(&self, st: &State, s: usize, d: usize, out: &mut Vec<Step<State, Action>>) {
        if !Self::caught_up(st, s)
            || bit(st.dn_fenced, d)
            || bit(st.registered[s], d)
            // not dnVersion[d] > versionFile[s]
            || Self::dn_version(st, d) <= Self::version_file(st, s)
        {
            return;
        }
        let mut n = st.clone();
        n.dn_fenced |= 1 << d;
        for r in &mut n.registered {
            *r &= !(1 << d);
        }
        Self::push(out, Action::FenceDatanode, vec![self.scm(s), self.dn(d)], n);
    }

    /// `Crash(s)` (line 270).
    fn crash(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        if !bit(st.up, s) {
            return;
        }
        let mut n = st.clone();
        n.up &= !(1 << s);
        n.install[s] = Phase::Idle;
        n.ckpt_index[s] = 0;
        n.registered[s] = 0;
        if st.leader == Some(s) {
            n.leader = None;
        }
        Self::push(out, Action::Crash, vec![self.scm(s)], n);
    }

    /// `Stop(s)` (line 284).
    fn stop(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        if !bit(st.up, s) || st.install[s] != Phase::Idle {
            return;
        }
        let mut n = st.clone();
        n.up &= !(1 << s);
        n.registered[s] = 0;
        if st.leader == Some(s) {
            n.leader = None;
        }
        Self::push(out, Action::Stop, vec![self.scm(s)], n);
    }

    /// `Restart(s)` (line 300).
    fn restart(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        if bit(st.up, s) {
            return;
        }
        let mut n = st.clone();
        n.up |= 1 << s;
        if self.finalize_from_db_on_startup {
            n.version_file |= st.db_version & (1 << s);
        }
        Self::push(out, Action::Restart, vec![self.scm(s)], n);
    }

    /// `TypeOK` (line 70).
    fn type_ok(&self, st: &State) -> bool {
        let ns = self.scms.len();
        let nd = self.datanodes.len();
        let in_bound = |v: &[u32]| v.len() == ns && v.iter().all(|&i| i <= self.max_log);
        st.up & !mask(ns) == 0
            && st.leader.is_none_or(|l| l < ns)
            && in_bound(&st.db_index)
            && st.db_version & !mask(ns) == 0
            && st.version_file & !mask(ns) == 0
            && st.install.len() == ns
            && in_bound(&st.ckpt_index)
            && st.log.len() <= self.max_log as usize
            && st.purged_index <= self.max_log
            && st.registered.len() == ns
            && st.registered.iter().all(|r| r & !mask(nd) == 0)
            && st.dn_version & !mask(nd) == 0
            && st.dn_fenced & !mask(nd) == 0
    }

    /// `VersionFileCoversDb` (line 334).
    fn version_file_covers_db(&self, st: &State) -> bool {
        (0..self.scms.len()).all(|s| {
            !(bit(st.up, s) && st.install[s] != Phase::Swapped)
                || bit(st.version_file, s)
                || !bit(st.db_version, s)
        })
    }

    /// `NoFinalizedDatanodeFenced` (line 339).
    fn no_finalized_datanode_fenced(&self, st: &State) -> bool {
        st.dn_fenced & st.dn_version & mask(self.datanodes.len()) == 0
    }

    /// `[nodes -> v]` with the nodes' model values as keys.
    fn per_node(nodes: &[String], v: impl Fn(usize) -> TlaValue) -> TlaValue {
        TlaValue::function(
            nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (TlaValue::model(n), v(i))),
        )
    }

    /// The values of a function whose domain is exactly `nodes`, in node order.
    fn read_per_node<'a>(
        var: &str,
        nodes: &[String],
        set_name: &str,
        v: &'a TlaValue,
    ) -> Result<Vec<&'a TlaValue>, String> {
        let wrong = || format!("variable `{var}` should be a function on {set_name}, not {v}");
        let TlaValue::Function(pairs) = v else {
            return Err(wrong());
        };
        if pairs.len() != nodes.len()
            || pairs
                .iter()
                .zip(nodes)
                .any(|((k, _), n)| !matches!(k, TlaValue::ModelValue(m) if m == n))
        {
            return Err(wrong());
        }
        Ok(pairs.iter().map(|(_, x)| x).collect())
    }

    fn read_bits(
        var: &str,
        nodes: &[String],
        set_name: &str,
        v: &TlaValue,
        elem: impl Fn(&TlaValue) -> Option<bool>,
        want: &str,
    ) -> Result<u64, String> {
        let mut bits = 0;
        for (i, x) in Self::read_per_node(var, nodes, set_name, v)?
            .into_iter()
            .enumerate()
        {
            match elem(x) {
                Some(true) => bits |= 1 << i,
                Some(false) => {}
                None => return Err(format!("variable `{var}` maps to {x}, not {want}")),
            }
        }
        Ok(bits)
    }

    fn read_naturals(
        var: &str,
        nodes: &[String],
        set_name: &str,
        v: &TlaValue,
    ) -> Result<Vec<u32>, String> {
        Self::read_per_node(var, nodes, set_name, v)?
            .into_iter()
            .map(|x| {
                natural(x).ok_or_else(|| format!("variable `{var}` maps to {x}, not a natural"))
            })
            .collect()
    }
}

/// A version: `PreFinalized` (0) is `false`, `Finalized` (1) is `true`.
fn version(v: &TlaValue) -> Option<bool> {
    match v.as_i64()? {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    }
}

fn version_value(finalized: bool) -> TlaValue {
    TlaValue::int(i64::from(finalized))
}

fn natural(v: &TlaValue) -> Option<u32> {
    v.as_i64().and_then(|n| u32::try_from(n).ok())
}

impl Mirror for ScmFinalization {
    type State = State;

    const MODEL: &'static str = "scm-finalization";
    const MODULE: &'static str = "ScmFinalization";
    const VARIABLES: &'static [&'static str] = &[
        "up",
        "leader",
        "dbIndex",
        "dbVersion",
        "versionFile",
        "install",
        "ckptIndex",
        "log",
        "purgedIndex",
        "registered",
        "dnVersion",
        "dnFenced",
    ];
    type Action = Action;
    const INVARIANTS: &'static [&'static str] =
        &["TypeOK", "VersionFileCoversDb", "NoFinalizedDatanodeFenced"];
    const PATCH_CONSTANT: &'static str = "FinalizeFromDbOnStartup";
    const SPEC: ShippedSpec = crate::shipped_spec!("scm-finalization", "ScmFinalization");

    fn new(c: &Constants) -> Result<Self, String> {
        let scms = constants::model_values(c, "Scms")?;
        let datanodes = constants::model_values(c, "Datanodes")?;
        let no_node = constants::model_value(c, "NoNode")?;
        let max_log = constants::natural(c, "MaxLog")?;
        let finalize_from_db_on_startup = constants::boolean(c, Self::PATCH_CONSTANT)?;
        if scms.len() > 64 || datanodes.len() > 64 {
            return Err("the mirror holds at most 64 SCMs and 64 datanodes".into());
        }
        // The module's ASSUMEs (lines 34-36).
        if scms.contains(&no_node) {
            return Err(format!(
                "ASSUME NoNode \\notin Scms fails: {no_node} is an SCM"
            ));
        }
        if max_log < 1 {
            return Err("ASSUME MaxLog >= 1 fails: MaxLog is 0".into());
        }
        Ok(ScmFinalization {
            scms,
            datanodes,
            no_node,
            max_log,
            finalize_from_db_on_startup,
        })
    }

    /// `Init` (line 85).
    fn init(&self) -> Vec<State> {
        let ns = self.scms.len();
        vec![State {
            up: mask(ns),
            leader: None,
            db_index: vec![0; ns],
            db_version: 0,
            version_file: 0,
            install: vec![Phase::Idle; ns],
            ckpt_index: vec![0; ns],
            log: Vec::new(),
            purged_index: 0,
            registered: vec![0; ns],
            dn_version: 0,
            dn_fenced: 0,
        }]
    }

    /// `Next` (line 311), disjunct by disjunct, in the spec's order.
    fn next(&self, st: &State) -> Vec<Step<State, Action>> {
        let mut out = Vec::new();
        self.propose(st, &mut out);
        self.finalize(st, &mut out);
        self.purge_log(st, &mut out);
        for d in 0..self.datanodes.len() {
            self.finalize_datanode(st, d, &mut out);
        }
        for s in 0..self.scms.len() {
            self.become_leader(st, s, &mut out);
            self.apply_entry(st, s, &mut out);
            self.notify_install(st, s, &mut out);
            self.replace_db(st, s, &mut out);
            self.finalize_from_snapshot(st, s, &mut out);
            self.crash(st, s, &mut out);
            self.stop(st, s, &mut out);
            self.restart(st, s, &mut out);
            for d in 0..self.datanodes.len() {
                self.register(st, s, d, &mut out);
                self.fence_datanode(st, s, d, &mut out);
            }
        }
        out
    }

    /// The invariants of both configs. Any other name is not an invariant of this spec and gets `false`, so
    /// that a misspelt name never passes as checked.
    fn holds(&self, invariant: &str, st: &State) -> bool {
        match invariant {
            "TypeOK" => self.type_ok(st),
            "VersionFileCoversDb" => self.version_file_covers_db(st),
            "NoFinalizedDatanodeFenced" => self.no_finalized_datanode_fenced(st),
            _ => false,
        }
    }

    fn to_tla(&self, st: &State) -> Vec<TlaValue> {
        let scm_bits =
            |b: u64, f: fn(bool) -> TlaValue| Self::per_node(&self.scms, |i| f(bit(b, i)));
        let dn_bits =
            |b: u64, f: fn(bool) -> TlaValue| Self::per_node(&self.datanodes, |i| f(bit(b, i)));
        let naturals = |v: &[u32]| Self::per_node(&self.scms, |i| TlaValue::int(i64::from(v[i])));
        vec![
            scm_bits(st.up, TlaValue::Bool),
            match st.leader {
                Some(l) => self.scm(l),
                None => TlaValue::model(&self.no_node),
            },
            naturals(&st.db_index),
            scm_bits(st.db_version, version_value),
            scm_bits(st.version_file, version_value),
            Self::per_node(&self.scms, |i| TlaValue::str(st.install[i].name())),
            naturals(&st.ckpt_index),
            TlaValue::seq(st.log.iter().map(|e| TlaValue::str(e.name()))),
            TlaValue::int(i64::from(st.purged_index)),
            Self::per_node(&self.scms, |i| {
                TlaValue::set(
                    (0..self.datanodes.len())
                        .filter(|&d| bit(st.registered[i], d))
                        .map(|d| self.dn(d)),
                )
            }),
            dn_bits(st.dn_version, version_value),
            dn_bits(st.dn_fenced, TlaValue::Bool),
        ]
    }

    fn from_tla(&self, values: &[TlaValue]) -> Result<State, String> {
        if values.len() != Self::VARIABLES.len() {
            return Err(format!(
                "{} values for the {} variables {}",
                values.len(),
                Self::VARIABLES.len(),
                Self::VARIABLES.join(", ")
            ));
        }
        let (scms, dns) = (&self.scms, &self.datanodes);
        let up = Self::read_bits(
            "up",
            scms,
            "Scms",
            &values[0],
            TlaValue::as_bool,
            "a boolean",
        )?;
        let leader = match &values[1] {
            TlaValue::ModelValue(m) if *m == self.no_node => None,
            TlaValue::ModelValue(m) if scms.contains(m) => scms.iter().position(|s| s == m),
            v => {
                return Err(format!(
                    "variable `leader` should be an SCM or {}, not {v}",
                    self.no_node
                ))
            }
        };
        let db_index = Self::read_naturals("dbIndex", scms, "Scms", &values[2])?;
        let db_version =
            Self::read_bits("dbVersion", scms, "Scms", &values[3], version, "a version")?;
        let version_file = Self::read_bits(
            "versionFile",
            scms,
            "Scms",
            &values[4],
            version,
            "a version",
        )?;
        let install = Self::read_per_node("install", scms, "Scms", &values[5])?
            .into_iter()
            .map(|x| match x {
                TlaValue::Str(p) if p == "Idle" => Ok(Phase::Idle),
                TlaValue::Str(p) if p == "Downloaded" => Ok(Phase::Downloaded),
                TlaValue::Str(p) if p == "Swapped" => Ok(Phase::Swapped),
                _ => Err(format!("variable `install` maps to {x}, not a phase")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let ckpt_index = Self::read_naturals("ckptIndex", scms, "Scms", &values[6])?;
        let log = match &values[7] {
            TlaValue::Seq(entries) => entries
                .iter()
                .map(|e| match e {
                    TlaValue::Str(x) if x == "tx" => Ok(Entry::Tx),
                    TlaValue::Str(x) if x == "finalize" => Ok(Entry::Finalize),
                    _ => Err(format!("variable `log` holds {e}, not an entry")),
                })
                .collect::<Result<Vec<_>, _>>()?,
            v => return Err(format!("variable `log` should be a sequence, not {v}")),
        };
        let purged_index = natural(&values[8]).ok_or_else(|| {
            format!(
                "variable `purgedIndex` should be a natural, not {}",
                values[8]
            )
        })?;
        let registered = Self::read_per_node("registered", scms, "Scms", &values[9])?
            .into_iter()
            .map(|x| {
                let wrong = || format!("variable `registered` maps to {x}, not a set of datanodes");
                let mut bits = 0u64;
                for e in x.as_set().ok_or_else(wrong)? {
                    match e {
                        TlaValue::ModelValue(m) => {
                            bits |= 1 << dns.iter().position(|d| d == m).ok_or_else(wrong)?
                        }
                        _ => return Err(wrong()),
                    }
                }
                Ok(bits)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let dn_version = Self::read_bits(
            "dnVersion",
            dns,
            "Datanodes",
            &values[10],
            version,
            "a version",
        )?;
        let dn_fenced = Self::read_bits(
            "dnFenced",
            dns,
            "Datanodes",
            &values[11],
            TlaValue::as_bool,
            "a boolean",
        )?;
        Ok(State {
            up,
            leader,
            db_index,
            db_version,
            version_file,
            install,
            ckpt_index,
            log,
            purged_index,
            registered,
            dn_version,
            dn_fenced,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashSet;
    use std::collections::VecDeque;
    use std::sync::OnceLock;

    /// The constants of `ScmFinalization.cfg` (bug) or `ScmFinalizationFixed.cfg` (fixed).
    fn constants(patch: bool) -> Constants {
        let mut c = Constants::new();
        c.insert(
            "Scms".into(),
            TlaValue::set([TlaValue::model("s1"), TlaValue::model("s2")]),
        );
        c.insert(
            "Datanodes".into(),
            TlaValue::set([TlaValue::model("d1"), TlaValue::model("d2")]),
        );
        c.insert("NoNode".into(), TlaValue::model("NoNode"));
        c.insert("MaxLog".into(), TlaValue::int(2));
        c.insert("FinalizeFromDbOnStartup".into(), TlaValue::Bool(patch));
        c
    }

    fn mirror(patch: bool) -> ScmFinalization {
        ScmFinalization::new(&constants(patch)).unwrap()
    }

    /// What TLC prints at the end of a breadth-first run.
    #[derive(Debug)]
    struct Bfs {
        distinct: usize,
        generated: usize,
        left_on_queue: usize,
        depth: usize,
        /// The first invariant violated, the depth of the state violating it (init = 1), and that state.
        violation: Option<(&'static str, usize, State)>,
        deadlocks: usize,
        states: Vec<State>,
    }

    /// TLC's breadth-first search with one worker: successors in `Next`'s order, each new state checked
    /// against `invariants` in the config's order as it is found, and (with `stop`) the search stopped at
    /// the first violation, whose state is counted as distinct but not queued.
    fn bfs(m: &ScmFinalization, invariants: &[&'static str], stop: bool) -> Bfs {
        let mut seen: FxHashSet<State> = FxHashSet::default();
        let mut queue: VecDeque<(State, usize)> = VecDeque::new();
        let mut r = Bfs {
            distinct: 0,
            generated: 0,
            left_on_queue: 0,
            depth: 0,
            violation: None,
            deadlocks: 0,
            states: Vec::new(),
        };
        // Counts a generated state; true when the search is to stop.
        let mut found = |st: State, depth: usize, r: &mut Bfs, q: &mut VecDeque<(State, usize)>| {
            r.generated += 1;
            if !seen.insert(st.clone()) {
                return false;
            }
            r.distinct += 1;
            r.depth = r.depth.max(depth);
            r.states.push(st.clone());
            if let Some(inv) = invariants.iter().find(|inv| !m.holds(inv, &st)) {
                if r.violation.is_none() {
                    r.violation = Some((inv, depth, st.clone()));
                }
                if stop {
                    return true;
                }
            }
            q.push_back((st, depth));
            false
        };
        'search: {
            for st in m.init() {
                if found(st, 1, &mut r, &mut queue) {
                    break 'search;
                }
            }
            while let Some((st, depth)) = queue.pop_front() {
                let steps = m.next(&st);
                if steps.is_empty() {
                    r.deadlocks += 1;
                }
                for step in steps {
                    if found(step.next, depth + 1, &mut r, &mut queue) {
                        break 'search;
                    }
                }
            }
        }
        r.left_on_queue = queue.len();
        r
    }

    fn fixed_bfs() -> &'static Bfs {
        static FIXED: OnceLock<Bfs> = OnceLock::new();
        FIXED.get_or_init(|| bfs(&mirror(true), ScmFinalization::INVARIANTS, false))
    }

    #[test]
    fn bug_config_violates_version_file_covers_db_at_tlc_depth() {
        let m = mirror(false);
        let r = bfs(&m, ScmFinalization::INVARIANTS, true);
        println!(
            "bug: {} distinct, {} generated, {} left on queue, depth {} (TLC: 2556, 9484, 1113, 9)",
            r.distinct, r.generated, r.left_on_queue, r.depth
        );
        let (inv, depth, st) = r.violation.unwrap();
        assert_eq!((inv, depth), ("VersionFileCoversDb", 9));
        assert_eq!(r.depth, 9);
        assert_eq!(r.distinct, 2556);
        assert_eq!(r.generated, 9484);
        assert_eq!(r.left_on_queue, 1113);
        // The state TLC stopped at: the last of its counterexample.
        assert_eq!(m.to_tla(&st), bug_trace()[8].1.values());
    }

    #[test]
    fn bug_config_with_only_no_finalized_datanode_fenced_violates_it_at_depth_12() {
        // README: with only NoFinalizedDatanodeFenced in the bug config, TLC reports it after 9,299 distinct
        // states at depth 12.
        let r = bfs(&mirror(false), &["NoFinalizedDatanodeFenced"], true);
        println!(
            "bug, NoFinalizedDatanodeFenced only: {} distinct, {} generated, {} left on queue, depth {} \
             (TLC: 9299 distinct, depth 12)",
            r.distinct, r.generated, r.left_on_queue, r.depth
        );
        let (inv, depth, _) = r.violation.unwrap();
        assert_eq!((inv, depth), ("NoFinalizedDatanodeFenced", 12));
        assert_eq!(r.depth, 12);
        assert_eq!(r.distinct, 9299);
    }

    #[test]
    fn fixed_config_explores_tlc_state_space_without_violation() {
        let r = fixed_bfs();
        println!(
            "fixed: {} distinct, {} generated, depth {} (TLC: 30966, 193341, 24)",
            r.distinct, r.generated, r.depth
        );
        assert_eq!(r.violation, None);
        assert_eq!(r.deadlocks, 0);
        assert_eq!(r.distinct, 30966);
        assert_eq!(r.generated, 193341);
        assert_eq!(r.depth, 24);
    }

    #[test]
    fn fixed_states_round_trip_through_tla_values() {
        let m = mirror(true);
        let r = fixed_bfs();
        assert_eq!(r.states.len(), 30966);
        for st in &r.states {
            let values = m.to_tla(st);
            assert_eq!(values.len(), ScmFinalization::VARIABLES.len());
            assert_eq!(m.from_tla(&values).as_ref(), Ok(st));
        }
    }

    /// A state of the bug counterexample, written as TLC prints it (two SCMs, two datanodes).
    struct Tlc<'a> {
        up: [bool; 2],
        leader: &'a str,
        db_index: [i64; 2],
        db_version: [i64; 2],
        version_file: [i64; 2],
        install: [&'a str; 2],
        ckpt_index: [i64; 2],
        log: &'a [&'a str],
        purged_index: i64,
        registered: [&'a [&'a str]; 2],
        dn_version: [i64; 2],
        dn_fenced: [bool; 2],
    }

    impl Tlc<'_> {
        fn values(&self) -> Vec<TlaValue> {
            fn f(keys: [&str; 2], v: [TlaValue; 2]) -> TlaValue {
                TlaValue::function(keys.into_iter().map(TlaValue::model).zip(v))
            }
            let s = ["s1", "s2"];
            let d = ["d1", "d2"];
            vec![
                f(s, self.up.map(TlaValue::Bool)),
                TlaValue::model(self.leader),
                f(s, self.db_index.map(TlaValue::int)),
                f(s, self.db_version.map(TlaValue::int)),
                f(s, self.version_file.map(TlaValue::int)),
                f(s, self.install.map(TlaValue::str)),
                f(s, self.ckpt_index.map(TlaValue::int)),
                TlaValue::seq(self.log.iter().map(|e| TlaValue::str(*e))),
                TlaValue::int(self.purged_index),
                f(
                    s,
                    self.registered
                        .map(|r| TlaValue::set(r.iter().map(|x| TlaValue::model(*x)))),
                ),
                f(d, self.dn_version.map(TlaValue::int)),
                f(d, self.dn_fenced.map(TlaValue::Bool)),
            ]
        }
    }

    /// The states of `traces/scm-finalization/tlc/bug.out`, with the action of each label.
    fn bug_trace() -> Vec<(&'static str, Tlc<'static>)> {
        let init = Tlc {
            up: [true, true],
            leader: "NoNode",
            db_index: [0, 0],
            db_version: [0, 0],
            version_file: [0, 0],
            install: ["Idle", "Idle"],
            ckpt_index: [0, 0],
            log: &[],
            purged_index: 0,
            registered: [&[], &[]],
            dn_version: [0, 0],
            dn_fenced: [false, false],
        };
        let s2 = Tlc {
            leader: "s1",
            ..init
        };
        let s3 = Tlc {
            log: &["finalize"],
            ..s2
        };
        let s4 = Tlc {
            db_version: [1, 0],
            db_index: [1, 0],
            version_file: [1, 0],
            ..s3
        };
        let s5 = Tlc {
            purged_index: 1,
            ..s4
        };
        let s6 = Tlc {
            install: ["Idle", "Downloaded"],
            ckpt_index: [0, 1],
            ..s5
        };
        let s7 = Tlc {
            install: ["Idle", "Swapped"],
            db_version: [1, 1],
            db_index: [1, 1],
            ..s6
        };
        let s8 = Tlc {
            install: ["Idle", "Idle"],
            up: [true, false],
            ckpt_index: [0, 0],
            ..s7
        };
        let s9 = Tlc {
            up: [true, true],
            ..s8
        };
        vec![
            ("Init", init),
            ("BecomeLeader", s2),
            ("Finalize", s3),
            ("ApplyEntry", s4),
            ("PurgeLog", s5),
            ("NotifyInstall", s6),
            ("ReplaceDb", s7),
            ("Crash", s8),
            ("Restart", s9),
        ]
    }

    /// The `/\ var = value` lines of each state of a TLC error trace (`State 2: <...>`) or simulation dump
    /// (`STATE_2 ==`), by state.
    fn tlc_trace_lines(out: &str) -> Vec<Vec<(String, String)>> {
        let mut states: Vec<Vec<(String, String)>> = Vec::new();
        for line in out.lines() {
            if line.starts_with("State ") || line.starts_with("STATE_") {
                states.push(Vec::new());
            } else if let (Some(rest), Some(cur)) = (line.strip_prefix("/\\ "), states.last_mut()) {
                let (var, val) = rest.split_once(" = ").unwrap();
                cur.push((var.to_string(), val.to_string()));
            }
        }
        states
    }

    #[test]
    fn bug_counterexample_of_tlc_replays_step_by_step() {
        let m = mirror(false);
        let trace = bug_trace();
        let printed = tlc_trace_lines(include_str!("../../../traces/scm-finalization/tlc/bug.out"));
        assert_eq!(printed.len(), trace.len());
        let mut prev: Option<State> = None;
        for (i, ((action, tlc), lines)) in trace.iter().zip(&printed).enumerate() {
            let values = tlc.values();
            // The hand-written state is the one TLC printed, variable by variable.
            assert_eq!(lines.len(), ScmFinalization::VARIABLES.len());
            for (var, text) in lines {
                let k = ScmFinalization::VARIABLES
                    .iter()
                    .position(|v| v == var)
                    .unwrap();
                assert_eq!(&values[k].to_string(), text, "state {}: {var}", i + 1);
            }
            let st = m.from_tla(&values).unwrap();
            assert_eq!(m.to_tla(&st), values);
            match &prev {
                None => {
                    assert_eq!(*action, "Init");
                    assert!(m.init().contains(&st));
                }
                Some(p) => assert!(
                    m.next(p)
                        .iter()
                        .any(|step| step.action.name() == *action && step.next == st),
                    "state {} is no {action} successor of state {i}",
                    i + 1
                ),
            }
            let last = i + 1 == trace.len();
            assert_eq!(
                m.first_violated(&st),
                last.then_some("VersionFileCoversDb"),
                "state {}",
                i + 1
            );
            prev = Some(st);
        }
        // The crash is of s2, and the patched restart would have repaired the VERSION file.
        let fixed = mirror(true);
        let crashed = fixed.from_tla(&trace[7].1.values()).unwrap();
        let restarts: Vec<_> = fixed
            .next(&crashed)
            .into_iter()
            .filter(|s| s.action == Action::Restart)
            .collect();
        assert_eq!(restarts.len(), 1);
        assert_eq!(restarts[0].params, [TlaValue::model("s2")]);
        assert_eq!(fixed.first_violated(&restarts[0].next), None);
    }

    #[test]
    fn readme_fence_trace_walks_by_action_and_fencing_drops_every_registration() {
        // README: the trace TLC gives with only NoFinalizedDatanodeFenced in the bug config.
        let m = mirror(false);
        let (s1, s2, d1) = (
            TlaValue::model("s1"),
            TlaValue::model("s2"),
            TlaValue::model("d1"),
        );
        let walk: [(&str, Vec<TlaValue>); 11] = [
            ("BecomeLeader", vec![s1.clone()]),
            ("Finalize", vec![]),
            ("ApplyEntry", vec![s1.clone()]),
            ("PurgeLog", vec![]),
            ("Register", vec![s1.clone(), d1.clone()]),
            ("FinalizeDatanode", vec![d1.clone()]),
            ("NotifyInstall", vec![s2.clone()]),
            ("ReplaceDb", vec![s2.clone()]),
            ("Crash", vec![s2.clone()]),
            ("Restart", vec![s2.clone()]),
            ("FenceDatanode", vec![s2.clone(), d1.clone()]),
        ];
        let mut st = m.init().remove(0);
        for (i, (action, params)) in walk.iter().enumerate() {
            let mut steps: Vec<_> = m
                .next(&st)
                .into_iter()
                .filter(|s| s.action.name() == *action && s.params == *params)
                .collect();
            assert_eq!(steps.len(), 1, "step {}: {action}{params:?}", i + 1);
            st = steps.remove(0).next;
        }
        let values = m.to_tla(&st);
        assert_eq!(values[9].to_string(), "(s1 :> {} @@ s2 :> {})");
        assert_eq!(values[10].to_string(), "(d1 :> 1 @@ d2 :> 0)");
        assert_eq!(values[11].to_string(), "(d1 :> TRUE @@ d2 :> FALSE)");
        assert!(!m.holds("NoFinalizedDatanodeFenced", &st));
        assert!(!m.holds("VersionFileCoversDb", &st));
        // The fenced datanode can neither register again nor be finalized.
        assert!(m.next(&st).iter().all(|s| !s.params.contains(&d1)));
    }

    /// The variables of a state as TLC prints them, in [`Mirror::VARIABLES`] order.
    fn printed(m: &ScmFinalization, st: &State) -> Vec<String> {
        m.to_tla(st).iter().map(TlaValue::to_string).collect()
    }

    /// Parsed `/\ var = value` lines of one state, reordered to [`Mirror::VARIABLES`] order.
    fn in_variable_order(lines: &[(String, String)]) -> Vec<String> {
        assert_eq!(lines.len(), ScmFinalization::VARIABLES.len());
        ScmFinalization::VARIABLES
            .iter()
            .map(|v| lines.iter().find(|(var, _)| var == v).unwrap().1.clone())
            .collect()
    }

    #[test]
    fn tlc_simulation_traces_of_the_fixed_config_are_behaviours_of_the_mirror() {
        let m = mirror(true);
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/traces/scm-finalization/tlc/simulate"
        );
        let mut traces = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let states = tlc_trace_lines(&std::fs::read_to_string(&path).unwrap());
            assert_eq!(states.len(), 30, "{}", path.display());
            let mut cur = m.init().remove(0);
            assert_eq!(printed(&m, &cur), in_variable_order(&states[0]));
            for (i, lines) in states.iter().enumerate().skip(1) {
                let want = in_variable_order(lines);
                let step = m
                    .next(&cur)
                    .into_iter()
                    .find(|step| printed(&m, &step.next) == want)
                    .unwrap_or_else(|| {
                        panic!("{}: state {} is no successor", path.display(), i + 1)
                    });
                assert_eq!(m.from_tla(&m.to_tla(&step.next)).as_ref(), Ok(&step.next));
                assert_eq!(m.first_violated(&step.next), None);
                cur = step.next;
            }
            traces += 1;
        }
        assert_eq!(traces, 20);
    }

    #[test]
    fn next_names_only_declared_actions_and_params_are_model_values() {
        let m = mirror(true);
        for st in fixed_bfs().states.iter().take(2000) {
            for step in m.next(st) {
                let want = match step.action {
                    Action::Propose | Action::Finalize | Action::PurgeLog => 0,
                    Action::Register | Action::FenceDatanode => 2,
                    _ => 1,
                };
                assert_eq!(step.params.len(), want, "{}", step.action);
                assert!(step
                    .params
                    .iter()
                    .all(|p| matches!(p, TlaValue::ModelValue(_))));
            }
        }
    }

    #[test]
    fn from_tla_names_the_variable_out_of_type_and_holds_rejects_unknown_names() {
        let m = mirror(false);
        let init = m.init().remove(0);
        let mut values = m.to_tla(&init);
        values[5] = TlaValue::function([
            (TlaValue::model("s1"), TlaValue::str("Idle")),
            (TlaValue::model("s2"), TlaValue::str("Busy")),
        ]);
        let err = m.from_tla(&values).unwrap_err();
        assert!(err.contains("`install`"), "{err}");
        let mut values = m.to_tla(&init);
        values[1] = TlaValue::model("s3");
        assert!(m.from_tla(&values).unwrap_err().contains("`leader`"));
        let mut values = m.to_tla(&init);
        values[2] = TlaValue::function([(TlaValue::model("s1"), TlaValue::int(0))]);
        assert!(m.from_tla(&values).unwrap_err().contains("`dbIndex`"));
        // Beyond MaxLog: readable, but not TypeOK.
        let mut values = m.to_tla(&init);
        values[8] = TlaValue::int(3);
        let st = m.from_tla(&values).unwrap();
        assert!(!m.holds("TypeOK", &st));
        assert_eq!(m.first_violated(&st), Some("TypeOK"));
        assert!(m.holds("TypeOK", &init));
        assert!(!m.holds("NoSuchInvariant", &init));
    }

    #[test]
    fn constants_out_of_the_assumptions_are_errors() {
        let mut c = constants(false);
        c.insert("MaxLog".into(), TlaValue::int(0));
        assert!(ScmFinalization::new(&c).unwrap_err().contains("MaxLog"));
        let mut c = constants(false);
        c.insert("NoNode".into(), TlaValue::model("s1"));
        assert!(ScmFinalization::new(&c).unwrap_err().contains("NoNode"));
        let mut c = constants(false);
        c.remove("FinalizeFromDbOnStartup");
        assert!(ScmFinalization::new(&c)
            .unwrap_err()
            .contains("FinalizeFromDbOnStartup"));
    }
}
