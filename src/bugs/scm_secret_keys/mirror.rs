//! Exact mirror of `traces/scm-secret-keys/ScmSecretKeys.tla` (HDDS-16923: an SCM snapshot install replaces
//! scm.db before it saves the leader's secret keys).
//!
//! Every TLA+ variable is a field of [`State`], every action a method of [`ScmSecretKeys`] under the same name
//! (snake_case), every invariant of the configs a case of [`Mirror::holds`]. [`Mirror::next`] enumerates the
//! disjuncts of `Next` in the order TLC splits them into actions: `RotateKey`, `ExpireKey(k)` for `k` in
//! `1..MaxKeys`, `PurgeLog`, then for each node `s` (in TLA+ order) `BecomeLeader(s)` … `Restart(s)`. Every
//! action of this spec is deterministic once its parameters are fixed, so each enabled action instance
//! yields exactly one [`Step`].
//!
//! Compact representation: nodes are positions into the sorted `Nodes` constant, key sets are bitsets
//! ([`KeySet`], so `MaxKeys <= 128`), indices are `u8` (so `MaxLog <= 255`). [`Mirror::to_tla`] and
//! [`Mirror::from_tla`] translate to and from the exact values TLC prints.

use crate::mirror::{constants, Constants, Mirror, ShippedSpec, Step};
use crate::tla::value::TlaValue;
use std::fmt;

crate::spec_actions! {
    /// The actions `Next` is the disjunction of, in its order, as the module names them.
    pub enum Action {
        RotateKey,
        ExpireKey,
        PurgeLog,
        BecomeLeader,
        ReplicateKeys,
        NotifyInstall,
        FetchKeys,
        ReplaceDb,
        SaveKeys,
        FailSave,
        Crash,
        Stop,
        Restart,
    }
}

/// The most keys a [`KeySet`] holds: `MaxKeys <= MAX_KEYS`. 128 rather than 64 so that an export of a long
/// log (three keys a fortnight) is a behaviour of the mirror for about 40 fortnights, not 20.
pub const MAX_KEYS: u8 = 128;

/// A set of key ids, a subset of `Keys == 1..MaxKeys`: bit `k - 1` stands for key `k`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct KeySet(pub u128);

impl KeySet {
    pub const EMPTY: KeySet = KeySet(0);

    /// `{k}`, for `1 <= k <= MAX_KEYS`.
    pub fn single(k: u8) -> KeySet {
        debug_assert!((1..=MAX_KEYS).contains(&k));
        KeySet(1u128 << (k - 1))
    }

    /// `1..n`, for `n <= MAX_KEYS`.
    pub fn upto(n: u8) -> KeySet {
        debug_assert!(n <= MAX_KEYS);
        if n >= MAX_KEYS {
            KeySet(u128::MAX)
        } else {
            KeySet((1u128 << n) - 1)
        }
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn contains(self, k: u8) -> bool {
        (1..=MAX_KEYS).contains(&k) && self.0 & (1u128 << (k - 1)) != 0
    }

    /// `self \cup other`
    pub fn union(self, other: KeySet) -> KeySet {
        KeySet(self.0 | other.0)
    }

    /// `self \ other`
    pub fn minus(self, other: KeySet) -> KeySet {
        KeySet(self.0 & !other.0)
    }

    /// `self \subseteq other`
    pub fn is_subset(self, other: KeySet) -> bool {
        self.0 & !other.0 == 0
    }

    /// The key ids, ascending (set bits only: the search calls this on every state).
    pub fn iter(self) -> impl Iterator<Item = u8> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let k = bits.trailing_zeros() as u8 + 1;
                bits &= bits - 1;
                k
            })
        })
    }

    fn to_tla(self) -> TlaValue {
        TlaValue::set(self.iter().map(|k| TlaValue::int(i64::from(k))))
    }
}

impl fmt::Debug for KeySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// `Phases == {"Idle", "Downloaded", "Fetched", "Swapped", "Saved"}`: the snapshot install phase of a node.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Default)]
pub enum Phase {
    #[default]
    Idle,
    Downloaded,
    Fetched,
    Swapped,
    Saved,
}

impl Phase {
    pub const ALL: [Phase; 5] = [
        Phase::Idle,
        Phase::Downloaded,
        Phase::Fetched,
        Phase::Swapped,
        Phase::Saved,
    ];

    /// The TLA+ string.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Idle => "Idle",
            Phase::Downloaded => "Downloaded",
            Phase::Fetched => "Fetched",
            Phase::Swapped => "Swapped",
            Phase::Saved => "Saved",
        }
    }
}

/// A state of the spec: one field per variable of `vars`, per-node functions as vectors indexed by the
/// node's position in the sorted `Nodes`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct State {
    /// `up`: `up[s]`, the SCM process of `s` is running.
    pub up: Vec<bool>,
    /// `leader`: the current leader's position, `None` for `NoNode`.
    pub leader: Option<usize>,
    /// `dbIndex`: `dbIndex[s]`, the last log entry applied to scm.db of `s`.
    pub db_index: Vec<u8>,
    /// `keyFile`: `keyFile[s]`, the key ids in the local secret key file of `s`.
    pub key_file: Vec<KeySet>,
    /// `memKeys`: `memKeys[s]`, the key ids in SecretKeyState memory of `s`.
    pub mem_keys: Vec<KeySet>,
    /// `install`: `install[s]`, the snapshot install phase of `s`.
    pub install: Vec<Phase>,
    /// `ckptIndex`: `ckptIndex[s]`, the index of the checkpoint `s` downloaded.
    pub ckpt_index: Vec<u8>,
    /// `fetchedKeys`: `fetchedKeys[s]`, the keys `s` fetched from the leader.
    pub fetched_keys: Vec<KeySet>,
    /// `log`: the replicated updateKeys entries (`log[i]` is `log[i - 1]` here).
    pub log: Vec<KeySet>,
    /// `purgedIndex`: entries `1..purgedIndex` are purged from the leader log.
    pub purged_index: u8,
    /// `lastKey`: the highest key id generated so far (0 = none).
    pub last_key: u8,
    /// `expired`: the key ids that have expired.
    pub expired: KeySet,
}

/// The mirror of `ScmSecretKeys` under one assignment of its constants.
#[derive(Debug, Clone)]
pub struct ScmSecretKeys {
    /// `Nodes`, in TLA+ order.
    nodes: Vec<String>,
    /// `NoNode`
    no_node: String,
    /// `MaxKeys`
    max_keys: u8,
    /// `MaxLog`
    max_log: u8,
    /// `SaveKeysBeforeDbSwap`
    save_keys_before_db_swap: bool,
}

impl ScmSecretKeys {
    fn n(&self) -> usize {
        self.nodes.len()
    }

    fn push(
        &self,
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

    fn node(&self, s: usize) -> TlaValue {
        TlaValue::model(self.nodes[s].as_str())
    }

    // ---- Leader side --------------------------------------------------------------------------------

    /// `RotateKey` (ScmSecretKeys.tla line 100).
    fn rotate_key(&self, st: &State, out: &mut Vec<Step<State, Action>>) {
        let Some(l) = st.leader else { return };
        if !(st.up[l]
            && st.install[l] == Phase::Idle
            && usize::from(st.db_index[l]) == st.log.len()
            && !st.mem_keys[l].is_empty()
            && st.last_key < self.max_keys
            && st.log.len() < usize::from(self.max_log))
        {
            return;
        }
        let mut n = st.clone();
        n.last_key = st.last_key + 1;
        n.log.push(
            st.mem_keys[l]
                .minus(st.expired)
                .union(KeySet::single(st.last_key + 1)),
        );
        self.push(out, Action::RotateKey, vec![], n);
    }

    /// `ExpireKey(k)` (ScmSecretKeys.tla line 115).
    fn expire_key(&self, st: &State, k: u8, out: &mut Vec<Step<State, Action>>) {
        let live = KeySet::upto(st.last_key).minus(st.expired); // Generated \ expired
        if !(live.contains(k) && k < st.last_key && live.iter().all(|j| k <= j)) {
            return;
        }
        let mut n = st.clone();
        n.expired = st.expired.union(KeySet::single(k));
        self.push(out, Action::ExpireKey, vec![TlaValue::int(i64::from(k))], n);
    }

    /// `PurgeLog` (ScmSecretKeys.tla line 127).
    fn purge_log(&self, st: &State, out: &mut Vec<Step<State, Action>>) {
        let Some(l) = st.leader else { return };
        if !(st.up[l] && st.purged_index < st.db_index[l]) {
            return;
        }
        let mut n = st.clone();
        n.purged_index = st.db_index[l];
        self.push(out, Action::PurgeLog, vec![], n);
    }

    /// `BecomeLeader(s)` (ScmSecretKeys.tla line 145).
    fn become_leader(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        if !(st.up[s]
            && st.install[s] == Phase::Idle
            && st.leader != Some(s)
            && usize::from(st.db_index[s]) == st.log.len())
        {
            return;
        }
        let mut n = st.clone();
        n.leader = Some(s);
        let room = st.log.len() < usize::from(self.max_log);
        let reloaded = st.key_file[s].minus(st.expired);
        if !st.mem_keys[s].is_empty() {
            // UNCHANGED <<log, lastKey>>
        } else if !reloaded.is_empty() {
            // "Keys reloaded"
            if !room {
                return;
            }
            n.log.push(reloaded);
        } else {
            // "A new key is generated"
            if !(st.last_key < self.max_keys && room) {
                return;
            }
            n.last_key = st.last_key + 1;
            n.log.push(KeySet::single(st.last_key + 1));
        }
        self.push(out, Action::BecomeLeader, vec![self.node(s)], n);
    }

    // ---- Every SCM ----------------------------------------------------------------------------------

    /// `ReplicateKeys(s)` (ScmSecretKeys.tla line 172).
    fn replicate_keys(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        if !(st.up[s]
            && st.install[s] == Phase::Idle
            && usize::from(st.db_index[s]) < st.log.len()
            && st.db_index[s] >= st.purged_index)
        {
            return;
        }
        let entry = st.log[usize::from(st.db_index[s])]; // log[dbIndex[s] + 1]
        let mut n = st.clone();
        n.db_index[s] = st.db_index[s] + 1;
        n.mem_keys[s] = entry;
        n.key_file[s] = entry;
        self.push(out, Action::ReplicateKeys, vec![self.node(s)], n);
    }

    /// `NotifyInstall(s)` (ScmSecretKeys.tla line 191).
    fn notify_install(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        let Some(l) = st.leader else { return };
        if !(st.up[s]
            && l != s
            && st.up[l]
            && st.install[s] == Phase::Idle
            && st.db_index[s] < st.purged_index)
        {
            return;
        }
        let mut n = st.clone();
        n.install[s] = Phase::Downloaded;
        n.ckpt_index[s] = st.db_index[l];
        self.push(out, Action::NotifyInstall, vec![self.node(s)], n);
    }

    /// `FetchKeys(s)` (ScmSecretKeys.tla line 205).
    fn fetch_keys(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        let Some(l) = st.leader else { return };
        if !(st.up[s]
            && st.install[s] == Phase::Downloaded
            && st.up[l]
            && !st.mem_keys[l].is_empty())
        {
            return;
        }
        let mut n = st.clone();
        n.fetched_keys[s] = st.mem_keys[l];
        n.install[s] = Phase::Fetched;
        self.push(out, Action::FetchKeys, vec![self.node(s)], n);
    }

    /// `ReplaceDb(s)` (ScmSecretKeys.tla line 220).
    fn replace_db(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        let (from, to) = if self.save_keys_before_db_swap {
            (Phase::Saved, Phase::Idle)
        } else {
            (Phase::Fetched, Phase::Swapped)
        };
        if !(st.up[s] && st.install[s] == from) {
            return;
        }
        let mut n = st.clone();
        n.db_index[s] = st.ckpt_index[s];
        n.install[s] = to;
        self.push(out, Action::ReplaceDb, vec![self.node(s)], n);
    }

    /// `SaveKeys(s)` (ScmSecretKeys.tla line 235).
    fn save_keys(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        let (from, to) = if self.save_keys_before_db_swap {
            (Phase::Fetched, Phase::Saved)
        } else {
            (Phase::Swapped, Phase::Idle)
        };
        if !(st.up[s] && st.install[s] == from) {
            return;
        }
        let mut n = st.clone();
        n.mem_keys[s] = st.fetched_keys[s];
        n.key_file[s] = st.fetched_keys[s];
        n.install[s] = to;
        self.push(out, Action::SaveKeys, vec![self.node(s)], n);
    }

    /// The state after `s` terminates in the middle of anything (the common body of `FailSave` and `Crash`).
    fn terminated(&self, st: &State, s: usize) -> State {
        let mut n = st.clone();
        n.up[s] = false;
        n.mem_keys[s] = KeySet::EMPTY;
        n.install[s] = Phase::Idle;
        n.ckpt_index[s] = 0;
        n.fetched_keys[s] = KeySet::EMPTY;
        if st.leader == Some(s) {
            n.leader = None;
        }
        n
    }

    /// `FailSave(s)` (ScmSecretKeys.tla line 254).
    fn fail_save(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        let during = if self.save_keys_before_db_swap {
            Phase::Fetched
        } else {
            Phase::Swapped
        };
        if !(st.up[s] && st.install[s] == during) {
            return;
        }
        self.push(
            out,
            Action::FailSave,
            vec![self.node(s)],
            self.terminated(st, s),
        );
    }

    /// `Crash(s)` (ScmSecretKeys.tla line 268).
    fn crash(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        if !st.up[s] {
            return;
        }
        self.push(
            out,
            Action::Crash,
            vec![self.node(s)],
            self.terminated(st, s),
        );
    }

    /// `Stop(s)` (ScmSecretKeys.tla line 283).
    fn stop(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        if !(st.up[s] && st.install[s] == Phase::Idle) {
            return;
        }
        let mut n = st.clone();
        n.up[s] = false;
        n.mem_keys[s] = KeySet::EMPTY;
        if st.leader == Some(s) {
            n.leader = None;
        }
        self.push(out, Action::Stop, vec![self.node(s)], n);
    }

    /// `Restart(s)` (ScmSecretKeys.tla line 298).
    fn restart(&self, st: &State, s: usize, out: &mut Vec<Step<State, Action>>) {
        if st.up[s] {
            return;
        }
        let mut n = st.clone();
        n.up[s] = true;
        self.push(out, Action::Restart, vec![self.node(s)], n);
    }

    // ---- Invariants ---------------------------------------------------------------------------------

    /// `TypeOK` (ScmSecretKeys.tla line 65).
    fn type_ok(&self, st: &State) -> bool {
        let n = self.n();
        let keys = KeySet::upto(self.max_keys);
        let per_node = [
            st.up.len(),
            st.db_index.len(),
            st.key_file.len(),
            st.mem_keys.len(),
            st.install.len(),
            st.ckpt_index.len(),
            st.fetched_keys.len(),
        ];
        per_node.iter().all(|&len| len == n)
            && st.leader.is_none_or(|l| l < n)
            && st.db_index.iter().all(|&i| i <= self.max_log)
            && st.key_file.iter().all(|k| k.is_subset(keys))
            && st.mem_keys.iter().all(|k| k.is_subset(keys))
            && st.ckpt_index.iter().all(|&i| i <= self.max_log)
            && st.fetched_keys.iter().all(|k| k.is_subset(keys))
            && st.log.len() <= usize::from(self.max_log)
            && st.log.iter().all(|k| k.is_subset(keys))
            && st.purged_index <= self.max_log
            && st.last_key <= self.max_keys
            && st.expired.is_subset(keys)
    }

    /// `KeyFileCoversDb` (ScmSecretKeys.tla line 329). Where TLC could not evaluate it (`dbIndex[s]` beyond
    /// `Len(log)`, so `log[dbIndex[s]]` is undefined) it is not said to hold.
    fn key_file_covers_db(&self, st: &State) -> bool {
        st.install
            .iter()
            .zip(&st.db_index)
            .zip(&st.key_file)
            .all(|((&phase, &i), &file)| {
                phase == Phase::Swapped
                    || match keys_at(st, i) {
                        Some(at) => at.minus(st.expired).is_subset(file),
                        None => false,
                    }
            })
    }

    /// `NoUnexpiredKeyDropped` (ScmSecretKeys.tla line 335).
    fn no_unexpired_key_dropped(&self, st: &State) -> bool {
        let Some(&current) = st.log.last() else {
            return true;
        };
        if st.last_key > MAX_KEYS {
            return false; // Generated holds keys no KeySet can: they are not in log[Len(log)]
        }
        KeySet::upto(st.last_key)
            .minus(st.expired)
            .is_subset(current)
    }
}

/// `KeysAt(i) == IF i = 0 THEN {} ELSE log[i]`; `None` where `log[i]` is undefined.
fn keys_at(st: &State, i: u8) -> Option<KeySet> {
    match i {
        0 => Some(KeySet::EMPTY),
        i => st.log.get(usize::from(i) - 1).copied(),
    }
}

/// The value of variable `var` is outside its type.
fn outside(var: &str, v: &TlaValue, ty: &str) -> String {
    format!("`{var}` = {v} is outside its type {ty}")
}

impl ScmSecretKeys {
    fn int_in(&self, var: &str, v: &TlaValue, max: u8) -> Result<u8, String> {
        v.as_i64()
            .and_then(|i| u8::try_from(i).ok())
            .filter(|&i| i <= max)
            .ok_or_else(|| outside(var, v, &format!("0..{max}")))
    }

    fn keys_of(&self, var: &str, v: &TlaValue) -> Result<KeySet, String> {
        let ty = || format!("SUBSET 1..{}", self.max_keys);
        let elems = v.as_set().ok_or_else(|| outside(var, v, &ty()))?;
        let mut ks = KeySet::EMPTY;
        for e in elems {
            match e.as_i64() {
                Some(k) if k >= 1 && k <= i64::from(self.max_keys) => {
                    ks = ks.union(KeySet::single(k as u8));
                }
                _ => return Err(outside(var, v, &ty())),
            }
        }
        Ok(ks)
    }

    /// A function `[Nodes -> T]`, each value read by `each`.
    fn per_node<T>(
        &self,
        var: &str,
        v: &TlaValue,
        ty: &str,
        each: impl Fn(&TlaValue) -> Result<T, String>,
    ) -> Result<Vec<T>, String> {
        let full_ty = || format!("[Nodes -> {ty}]");
        match v {
            TlaValue::Function(pairs) if pairs.len() == self.n() => {}
            _ => return Err(outside(var, v, &full_ty())),
        }
        self.nodes
            .iter()
            .map(|n| {
                let x = v
                    .apply(&TlaValue::model(n.as_str()))
                    .ok_or_else(|| outside(var, v, &full_ty()))?;
                each(x).map_err(|_| outside(var, v, &full_ty()))
            })
            .collect()
    }
}

impl Mirror for ScmSecretKeys {
    type State = State;

    const MODEL: &'static str = "scm-secret-keys";
    const MODULE: &'static str = "ScmSecretKeys";
    const VARIABLES: &'static [&'static str] = &[
        "up",
        "leader",
        "dbIndex",
        "keyFile",
        "memKeys",
        "install",
        "ckptIndex",
        "fetchedKeys",
        "log",
        "purgedIndex",
        "lastKey",
        "expired",
    ];
    type Action = Action;
    const INVARIANTS: &'static [&'static str] =
        &["TypeOK", "KeyFileCoversDb", "NoUnexpiredKeyDropped"];
    const PATCH_CONSTANT: &'static str = "SaveKeysBeforeDbSwap";
    const SPEC: ShippedSpec = crate::shipped_spec!("scm-secret-keys", "ScmSecretKeys");

    fn new(c: &Constants) -> Result<Self, String> {
        let nodes = constants::model_values(c, "Nodes")?;
        let no_node = constants::model_value(c, "NoNode")?;
        if nodes.contains(&no_node) {
            return Err(format!(
                "ASSUME NoNode \\notin Nodes fails: `{no_node}` is a node"
            ));
        }
        let max_keys = constants::natural(c, "MaxKeys")?;
        let max_keys = u8::try_from(max_keys)
            .ok()
            .filter(|&k| k <= MAX_KEYS)
            .ok_or_else(|| {
                format!(
                    "constant `MaxKeys` = {max_keys}: the mirror supports at most {MAX_KEYS} keys"
                )
            })?;
        let max_log = constants::natural(c, "MaxLog")?;
        let max_log = u8::try_from(max_log).map_err(|_| {
            format!("constant `MaxLog` = {max_log}: the mirror supports at most 255 entries")
        })?;
        let save_keys_before_db_swap = constants::boolean(c, Self::PATCH_CONSTANT)?;
        Ok(ScmSecretKeys {
            nodes,
            no_node,
            max_keys,
            max_log,
            save_keys_before_db_swap,
        })
    }

    /// `Init` (ScmSecretKeys.tla line 80): a fresh cluster.
    fn init(&self) -> Vec<State> {
        let n = self.n();
        vec![State {
            up: vec![true; n],
            leader: None,
            db_index: vec![0; n],
            key_file: vec![KeySet::EMPTY; n],
            mem_keys: vec![KeySet::EMPTY; n],
            install: vec![Phase::Idle; n],
            ckpt_index: vec![0; n],
            fetched_keys: vec![KeySet::EMPTY; n],
            log: Vec::new(),
            purged_index: 0,
            last_key: 0,
            expired: KeySet::EMPTY,
        }]
    }

    /// `Next` (ScmSecretKeys.tla line 306), in TLC's order of actions.
    fn next(&self, st: &State) -> Vec<Step<State, Action>> {
        let mut out = Vec::new();
        self.rotate_key(st, &mut out);
        for k in 1..=self.max_keys {
            self.expire_key(st, k, &mut out);
        }
        self.purge_log(st, &mut out);
        for s in 0..self.n() {
            self.become_leader(st, s, &mut out);
            self.replicate_keys(st, s, &mut out);
            self.notify_install(st, s, &mut out);
            self.fetch_keys(st, s, &mut out);
            self.replace_db(st, s, &mut out);
            self.save_keys(st, s, &mut out);
            self.fail_save(st, s, &mut out);
            self.crash(st, s, &mut out);
            self.stop(st, s, &mut out);
            self.restart(st, s, &mut out);
        }
        out
    }

    /// Whether the invariant holds. A name that is not one of [`Mirror::INVARIANTS`] gives `false`: the
    /// mirror cannot vouch for an invariant it does not know.
    fn holds(&self, invariant: &str, st: &State) -> bool {
        match invariant {
            "TypeOK" => self.type_ok(st),
            "KeyFileCoversDb" => self.key_file_covers_db(st),
            "NoUnexpiredKeyDropped" => self.no_unexpired_key_dropped(st),
            _ => false,
        }
    }

    fn to_tla(&self, st: &State) -> Vec<TlaValue> {
        let per_node = |f: &dyn Fn(usize) -> TlaValue| {
            TlaValue::function((0..self.n()).map(|s| (self.node(s), f(s))))
        };
        let int = |i: u8| TlaValue::int(i64::from(i));
        vec![
            per_node(&|s| TlaValue::Bool(st.up[s])),
            match st.leader {
                Some(l) => self.node(l),
                None => TlaValue::model(self.no_node.as_str()),
            },
            per_node(&|s| int(st.db_index[s])),
            per_node(&|s| st.key_file[s].to_tla()),
            per_node(&|s| st.mem_keys[s].to_tla()),
            per_node(&|s| TlaValue::str(st.install[s].name())),
            per_node(&|s| int(st.ckpt_index[s])),
            per_node(&|s| st.fetched_keys[s].to_tla()),
            TlaValue::seq(st.log.iter().map(|k| k.to_tla())),
            int(st.purged_index),
            int(st.last_key),
            st.expired.to_tla(),
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
        let keys_ty = format!("SUBSET 1..{}", self.max_keys);
        let idx_ty = format!("0..{}", self.max_log);
        let up = self.per_node("up", &values[0], "BOOLEAN", |v| {
            v.as_bool().ok_or_else(String::new)
        })?;
        let leader = match &values[1] {
            TlaValue::ModelValue(m) if *m == self.no_node => None,
            TlaValue::ModelValue(m) if self.nodes.contains(m) => {
                self.nodes.iter().position(|n| n == m)
            }
            v => return Err(outside("leader", v, "Nodes \\cup {NoNode}")),
        };
        let db_index = self.per_node("dbIndex", &values[2], &idx_ty, |v| {
            self.int_in("dbIndex", v, self.max_log)
        })?;
        let key_file = self.per_node("keyFile", &values[3], &keys_ty, |v| {
            self.keys_of("keyFile", v)
        })?;
        let mem_keys = self.per_node("memKeys", &values[4], &keys_ty, |v| {
            self.keys_of("memKeys", v)
        })?;
        let install = self.per_node("install", &values[5], "Phases", |v| match v {
            TlaValue::Str(s) => Phase::ALL
                .into_iter()
                .find(|p| p.name() == s)
                .ok_or_else(String::new),
            _ => Err(String::new()),
        })?;
        let ckpt_index = self.per_node("ckptIndex", &values[6], &idx_ty, |v| {
            self.int_in("ckptIndex", v, self.max_log)
        })?;
        let fetched_keys = self.per_node("fetchedKeys", &values[7], &keys_ty, |v| {
            self.keys_of("fetchedKeys", v)
        })?;
        let log_ty = format!(
            "Seq(SUBSET 1..{}) of length <= {}",
            self.max_keys, self.max_log
        );
        let log = match &values[8] {
            TlaValue::Seq(entries) if entries.len() <= usize::from(self.max_log) => entries
                .iter()
                .map(|e| self.keys_of("log", e))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| outside("log", &values[8], &log_ty))?,
            v => return Err(outside("log", v, &log_ty)),
        };
        let purged_index = self.int_in("purgedIndex", &values[9], self.max_log)?;
        let last_key = self.int_in("lastKey", &values[10], self.max_keys)?;
        let expired = self.keys_of("expired", &values[11])?;
        Ok(State {
            up,
            leader,
            db_index,
            key_file,
            mem_keys,
            install,
            ckpt_index,
            fetched_keys,
            log,
            purged_index,
            last_key,
            expired,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashMap;
    use std::collections::VecDeque;
    use std::sync::OnceLock;

    const SPEC: &str = include_str!("../../../traces/scm-secret-keys/ScmSecretKeys.tla");
    const BUG_OUT: &str = include_str!("../../../traces/scm-secret-keys/tlc/bug.out");
    const FIXED_OUT: &str = include_str!("../../../traces/scm-secret-keys/tlc/fixed.out");
    const THIS_FILE: &str = include_str!("mirror.rs");

    /// The constants of `ScmSecretKeys.cfg` (`fix = false`) or `ScmSecretKeysFixed.cfg` (`fix = true`).
    fn mirror(fix: bool) -> ScmSecretKeys {
        let mut c = Constants::new();
        c.insert(
            "Nodes".into(),
            TlaValue::set([TlaValue::model("s1"), TlaValue::model("s2")]),
        );
        c.insert("NoNode".into(), TlaValue::model("NoNode"));
        c.insert("MaxKeys".into(), TlaValue::int(3));
        c.insert("MaxLog".into(), TlaValue::int(3));
        c.insert("SaveKeysBeforeDbSwap".into(), TlaValue::Bool(fix));
        ScmSecretKeys::new(&c).unwrap()
    }

    #[test]
    fn key_sets_hold_keys_up_to_max_keys() {
        let high = KeySet::single(100)
            .union(KeySet::single(65))
            .union(KeySet::single(1));
        assert_eq!(high.iter().collect::<Vec<_>>(), [1, 65, 100]);
        assert!(high.contains(100) && !high.contains(64) && !high.contains(MAX_KEYS + 1));
        assert_eq!(KeySet::upto(MAX_KEYS).iter().count(), usize::from(MAX_KEYS));
        assert_eq!(KeySet::upto(70).iter().last(), Some(70));
        assert!(high.is_subset(KeySet::upto(100)) && !high.is_subset(KeySet::upto(99)));
        assert_eq!(
            high.minus(KeySet::upto(64)).iter().collect::<Vec<_>>(),
            [65, 100]
        );
    }

    #[test]
    fn max_keys_above_what_a_key_set_holds_is_refused() {
        let with_max_keys = |n: i64| {
            let mut c = Constants::new();
            c.insert("Nodes".into(), TlaValue::set([TlaValue::model("s1")]));
            c.insert("NoNode".into(), TlaValue::model("NoNode"));
            c.insert("MaxKeys".into(), TlaValue::int(n));
            c.insert("MaxLog".into(), TlaValue::int(n));
            c.insert("SaveKeysBeforeDbSwap".into(), TlaValue::Bool(false));
            ScmSecretKeys::new(&c)
        };
        assert!(with_max_keys(i64::from(MAX_KEYS)).is_ok());
        let err = with_max_keys(i64::from(MAX_KEYS) + 1).err().unwrap();
        assert_eq!(
            err,
            "constant `MaxKeys` = 129: the mirror supports at most 128 keys"
        );
    }

    /// What TLC's breadth-first search reports.
    struct Bfs {
        /// Distinct states, in the order found (index = TLC's discovery order).
        states: Vec<State>,
        /// Predecessor of each state (`None` for initial states).
        parent: Vec<Option<usize>>,
        generated: u64,
        /// The highest level reached, initial states being level 1.
        depth: u32,
        left_on_queue: usize,
        /// The first invariant violated and the violating state.
        violation: Option<(&'static str, usize)>,
    }

    impl Bfs {
        fn trace(&self, mut id: usize) -> Vec<&State> {
            let mut t = vec![&self.states[id]];
            while let Some(p) = self.parent[id] {
                t.push(&self.states[p]);
                id = p;
            }
            t.reverse();
            t
        }
    }

    /// Breadth-first search as TLC runs it with one worker (`ModelChecker.doNext`): a FIFO queue; for each
    /// state the actions in order, all successors of one action counted as generated before any is checked;
    /// each new state checked against the invariants in order; stop at the first violation.
    fn tlc_bfs(m: &ScmSecretKeys) -> Bfs {
        let mut b = Bfs {
            states: Vec::new(),
            parent: Vec::new(),
            generated: 0,
            depth: 0,
            left_on_queue: 0,
            violation: None,
        };
        let mut index: FxHashMap<State, usize> = FxHashMap::default();
        let mut level: Vec<u32> = Vec::new();
        let mut queue = VecDeque::new();
        let mut add = |b: &mut Bfs, s: State, parent: Option<usize>, lvl: u32| -> Option<usize> {
            if index.contains_key(&s) {
                return None;
            }
            let id = b.states.len();
            index.insert(s.clone(), id);
            b.states.push(s);
            b.parent.push(parent);
            level.push(lvl);
            b.depth = b.depth.max(lvl);
            Some(id)
        };
        for s in m.init() {
            b.generated += 1;
            if let Some(id) = add(&mut b, s, None, 1) {
                if let Some(inv) = m.first_violated(&b.states[id]) {
                    b.violation = Some((inv, id));
                    return b;
                }
                queue.push_back((id, 1));
            }
        }
        while let Some((cur, lvl)) = queue.pop_front() {
            let steps = m.next(&b.states[cur]);
            let mut i = 0;
            while i < steps.len() {
                // One TLC action: the consecutive steps of one action instance.
                let j = steps[i..]
                    .iter()
                    .position(|st| st.action != steps[i].action || st.params != steps[i].params)
                    .map_or(steps.len(), |p| i + p);
                b.generated += (j - i) as u64;
                for step in &steps[i..j] {
                    if let Some(id) = add(&mut b, step.next.clone(), Some(cur), lvl + 1) {
                        if let Some(inv) = m.first_violated(&b.states[id]) {
                            b.violation = Some((inv, id));
                            b.left_on_queue = queue.len();
                            return b;
                        }
                        queue.push_back((id, lvl + 1));
                    }
                }
                i = j;
            }
        }
        b
    }

    /// The fixed config's full state space, searched once for all the tests that need it.
    fn fixed_bfs() -> &'static (ScmSecretKeys, Bfs) {
        static FIXED: OnceLock<(ScmSecretKeys, Bfs)> = OnceLock::new();
        FIXED.get_or_init(|| {
            let m = mirror(true);
            let b = tlc_bfs(&m);
            (m, b)
        })
    }

    /// The number before `what` in TLC's summary line, e.g. `984 states generated`.
    fn tlc_count(out: &str, what: &str) -> u64 {
        // The last such line is the summary (progress lines come before it).
        let line = out.lines().rev().find(|l| l.contains(what)).unwrap();
        let before = &line[..line.find(what).unwrap()];
        let num = before.rsplit([' ', ',']).find(|w| !w.is_empty()).unwrap();
        // TLC's summary line has no thousands separators: "226988 states generated, 48158 distinct ...".
        num.parse().unwrap()
    }

    fn tlc_depth(out: &str) -> u32 {
        let line = out
            .lines()
            .find(|l| l.starts_with("The depth of the complete state graph search is "))
            .unwrap();
        line.trim_end_matches('.')
            .rsplit(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    }

    /// A TLC state as text: one `(variable, value)` pair per `/\ var = value` line, in file order.
    type TextState = Vec<(String, String)>;

    /// The states of a TLC error trace (`State N: <Label ...>` blocks), each with its action name
    /// (`None` for the initial predicate).
    fn tlc_trace(out: &str) -> Vec<(Option<String>, TextState)> {
        let mut trace: Vec<(Option<String>, TextState)> = Vec::new();
        for line in out.lines() {
            if let Some(rest) = line.strip_prefix("State ") {
                let label = &rest[rest.find('<').unwrap() + 1..];
                let action = if label.starts_with("Initial predicate") {
                    None
                } else {
                    Some(label[..label.find(' ').unwrap()].to_string())
                };
                trace.push((action, Vec::new()));
            } else if let Some(rest) = line.strip_prefix("/\\ ") {
                if let Some((var, val)) = rest.split_once(" = ") {
                    trace.last_mut().unwrap().1.push((var.into(), val.into()));
                }
            }
        }
        trace
    }

    /// A state's values as TLC prints them, in TLC's order of variables (as in `text`).
    fn as_text(m: &ScmSecretKeys, s: &State, order: &TextState) -> TextState {
        let values = m.to_tla(s);
        order
            .iter()
            .map(|(var, _)| {
                let i = ScmSecretKeys::VARIABLES
                    .iter()
                    .position(|v| v == var)
                    .unwrap_or_else(|| panic!("TLC printed unknown variable {var}"));
                (var.clone(), values[i].to_string())
            })
            .collect()
    }

    /// A state of the two-node configs, written as TLA+ values by hand.
    struct Tla<'a> {
        up: [bool; 2],
        leader: &'a str,
        db_index: [i64; 2],
        key_file: [&'a [i64]; 2],
        mem_keys: [&'a [i64]; 2],
        install: [&'a str; 2],
        ckpt_index: [i64; 2],
        fetched_keys: [&'a [i64]; 2],
        log: &'a [&'a [i64]],
        purged_index: i64,
        last_key: i64,
        expired: &'a [i64],
    }

    impl Tla<'_> {
        fn values(&self) -> Vec<TlaValue> {
            fn f(vals: [TlaValue; 2]) -> TlaValue {
                let [a, b] = vals;
                TlaValue::function([(TlaValue::model("s1"), a), (TlaValue::model("s2"), b)])
            }
            fn set(ks: &[i64]) -> TlaValue {
                TlaValue::set(ks.iter().map(|&k| TlaValue::int(k)))
            }
            vec![
                f(self.up.map(TlaValue::Bool)),
                TlaValue::model(self.leader),
                f(self.db_index.map(TlaValue::int)),
                f(self.key_file.map(set)),
                f(self.mem_keys.map(set)),
                f(self.install.map(TlaValue::str)),
                f(self.ckpt_index.map(TlaValue::int)),
                f(self.fetched_keys.map(set)),
                TlaValue::seq(self.log.iter().map(|k| set(k))),
                TlaValue::int(self.purged_index),
                TlaValue::int(self.last_key),
                set(self.expired),
            ]
        }
    }

    /// The counterexample of `tlc/bug.out`, written by hand, with the action of each step.
    fn bug_counterexample() -> Vec<(Option<&'static str>, Vec<TlaValue>)> {
        let init = Tla {
            up: [true, true],
            leader: "NoNode",
            db_index: [0, 0],
            key_file: [&[], &[]],
            mem_keys: [&[], &[]],
            install: ["Idle", "Idle"],
            ckpt_index: [0, 0],
            fetched_keys: [&[], &[]],
            log: &[],
            purged_index: 0,
            last_key: 0,
            expired: &[],
        };
        let s2 = Tla {
            leader: "s1",
            log: &[&[1]],
            last_key: 1,
            ..init
        };
        let s3 = Tla {
            db_index: [1, 0],
            key_file: [&[1], &[]],
            mem_keys: [&[1], &[]],
            ..s2
        };
        let s4 = Tla {
            purged_index: 1,
            ..s3
        };
        let s5 = Tla {
            install: ["Idle", "Downloaded"],
            ckpt_index: [0, 1],
            ..s4
        };
        let s6 = Tla {
            install: ["Idle", "Fetched"],
            fetched_keys: [&[], &[1]],
            ..s5
        };
        let s7 = Tla {
            install: ["Idle", "Swapped"],
            db_index: [1, 1],
            ..s6
        };
        let s8 = Tla {
            install: ["Idle", "Idle"],
            up: [true, false],
            ckpt_index: [0, 0],
            fetched_keys: [&[], &[]],
            ..s7
        };
        vec![
            (None, init.values()),
            (Some("BecomeLeader"), s2.values()),
            (Some("ReplicateKeys"), s3.values()),
            (Some("PurgeLog"), s4.values()),
            (Some("NotifyInstall"), s5.values()),
            (Some("FetchKeys"), s6.values()),
            (Some("ReplaceDb"), s7.values()),
            (Some("FailSave"), s8.values()),
        ]
    }

    #[test]
    fn bug_config_bfs_stops_where_tlc_does_with_tlcs_counterexample() {
        let m = mirror(false);
        let b = tlc_bfs(&m);
        let (inv, id) = b.violation.expect("the bug config violates an invariant");
        println!(
            "bug BFS: {inv} violated at depth {}; {} generated, {} distinct, {} left on queue \
             (TLC: 984, 361, 181)",
            b.depth,
            b.generated,
            b.states.len(),
            b.left_on_queue
        );
        assert_eq!(inv, "KeyFileCoversDb");
        assert_eq!(b.depth, tlc_depth(BUG_OUT));
        assert_eq!(b.depth, 8);
        // TLC's exact stopping point: its action order and FIFO queue are mirrored, so the counts match.
        assert_eq!(b.generated, tlc_count(BUG_OUT, " states generated"));
        assert_eq!(
            b.states.len() as u64,
            tlc_count(BUG_OUT, " distinct states found")
        );
        assert_eq!(
            b.left_on_queue as u64,
            tlc_count(BUG_OUT, " states left on queue")
        );
        // And the very behaviour TLC prints.
        let expected: Vec<State> = bug_counterexample()
            .into_iter()
            .map(|(_, v)| m.from_tla(&v).unwrap())
            .collect();
        let found: Vec<State> = b.trace(id).into_iter().cloned().collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn fixed_config_bfs_matches_tlc_exactly() {
        let t = std::time::Instant::now();
        let (m, b) = fixed_bfs();
        println!(
            "fixed BFS: {} distinct, {} generated, depth {} (TLC: 48158, 226988, 27), {:?}",
            b.states.len(),
            b.generated,
            b.depth,
            t.elapsed()
        );
        assert_eq!(b.violation, None);
        assert_eq!(
            b.states.len() as u64,
            tlc_count(FIXED_OUT, " distinct states found")
        );
        assert_eq!(b.generated, tlc_count(FIXED_OUT, " states generated"));
        assert_eq!(b.depth, tlc_depth(FIXED_OUT));
        assert_eq!((b.states.len(), b.generated, b.depth), (48158, 226988, 27));
        for s in &b.states {
            for inv in ScmSecretKeys::INVARIANTS {
                assert!(m.holds(inv, s), "{inv} fails in {s:?}");
            }
        }
    }

    #[test]
    fn tlc_bug_counterexample_replays_step_by_step() {
        let m = mirror(false);
        let tlc = tlc_trace(BUG_OUT);
        let mine = bug_counterexample();
        assert_eq!(tlc.len(), mine.len());
        let states: Vec<State> = mine.iter().map(|(_, v)| m.from_tla(v).unwrap()).collect();
        assert_eq!(m.init(), vec![states[0].clone()]);
        for (i, ((tlc_action, tlc_text), (action, _))) in tlc.iter().zip(&mine).enumerate() {
            // The hand-written state is the one TLC printed, value for value.
            assert_eq!(
                &as_text(&m, &states[i], tlc_text),
                tlc_text,
                "state {}",
                i + 1
            );
            assert_eq!(tlc_action.as_deref(), *action, "label of state {}", i + 1);
            if i == 0 {
                continue;
            }
            // TLC labels a state with the first action (in its order) that leads there from the
            // predecessor: FailSave and Crash reach the same state, and FailSave comes first.
            let first = m
                .next(&states[i - 1])
                .into_iter()
                .find(|st| st.next == states[i])
                .unwrap_or_else(|| panic!("state {} is no successor of state {i}", i + 1));
            assert_eq!(Some(first.action.name()), *action, "state {}", i + 1);
        }
        // The parameters, read off the diffs: s1 leads and replicates, s2 installs and fails.
        let param = |i: usize, action: &str| {
            m.next(&states[i - 1])
                .into_iter()
                .find(|st| st.next == states[i] && st.action.name() == action)
                .unwrap()
                .params
        };
        assert_eq!(param(1, "BecomeLeader"), [TlaValue::model("s1")]);
        assert_eq!(param(2, "ReplicateKeys"), [TlaValue::model("s1")]);
        assert_eq!(param(3, "PurgeLog"), []);
        assert_eq!(param(7, "FailSave"), [TlaValue::model("s2")]);
        // The last state violates KeyFileCoversDb and only that; the ones before hold everything.
        assert_eq!(m.first_violated(&states[7]), Some("KeyFileCoversDb"));
        assert!(m.holds("NoUnexpiredKeyDropped", &states[7]));
        for s in &states[..7] {
            assert_eq!(m.first_violated(s), None);
        }
    }

    #[test]
    fn from_tla_inverts_to_tla_on_every_fixed_state() {
        let (m, b) = fixed_bfs();
        for s in &b.states {
            let values = m.to_tla(s);
            assert_eq!(values.len(), ScmSecretKeys::VARIABLES.len());
            assert_eq!(&m.from_tla(&values).unwrap(), s);
        }
    }

    /// TLC's 20 simulated behaviours of the fixed config (`tlc/simulate`, no action names): the first state
    /// is the initial one and every next state is, value for value as TLC prints it, a successor by `next`.
    #[test]
    fn tlc_simulations_of_the_fixed_config_replay() {
        let m = mirror(true);
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/traces/scm-secret-keys/tlc/simulate"
        );
        for n in 0..20 {
            let text = std::fs::read_to_string(format!("{dir}/trace_0_{n}")).unwrap();
            let mut trace: Vec<TextState> = Vec::new();
            for line in text.lines() {
                if line.starts_with("STATE_") {
                    trace.push(Vec::new());
                } else if let Some((var, val)) =
                    line.strip_prefix("/\\ ").and_then(|r| r.split_once(" = "))
                {
                    trace.last_mut().unwrap().push((var.into(), val.into()));
                }
            }
            assert_eq!(trace.len(), 30, "trace_0_{n}");
            let mut cur = m.init().remove(0);
            assert_eq!(
                as_text(&m, &cur, &trace[0]),
                trace[0],
                "trace_0_{n} state 1"
            );
            for (i, t) in trace.iter().enumerate().skip(1) {
                let step = m
                    .next(&cur)
                    .into_iter()
                    .find(|st| as_text(&m, &st.next, t) == *t)
                    .unwrap_or_else(|| {
                        panic!("trace_0_{n}: state {} is no successor of {cur:?}", i + 1)
                    });
                assert_eq!(m.first_violated(&step.next), None);
                cur = step.next;
            }
        }
    }

    #[test]
    fn comments_quote_the_lines_of_the_tla_definitions() {
        let lines: Vec<&str> = SPEC.lines().collect();
        let mut quoted = Vec::new();
        for line in THIS_FILE.lines() {
            let Some(at) = line.find("(ScmSecretKeys.tla line ") else {
                continue;
            };
            let Some(name) = line.trim_start().strip_prefix("/// `") else {
                continue;
            };
            let name = &name[..name.find('`').unwrap()];
            let name = name.split('(').next().unwrap();
            let rest = &line[at + "(ScmSecretKeys.tla line ".len()..];
            let n: usize = rest[..rest.find(')').unwrap()].parse().unwrap();
            let def = lines[n - 1];
            assert!(
                def.starts_with(&format!("{name} ==")) || def.starts_with(&format!("{name}(")),
                "line {n} is `{def}`, not the definition of {name}"
            );
            quoted.push(name.to_string());
        }
        for name in Action::NAMES.iter().chain(ScmSecretKeys::INVARIANTS) {
            assert!(
                quoted.iter().any(|q| q == name),
                "no line quoted for {name}"
            );
        }
        // VARIABLES is the `vars` tuple.
        let vars = SPEC.split("vars == <<").nth(1).unwrap();
        let vars: Vec<&str> = vars[..vars.find(">>").unwrap()]
            .split(',')
            .map(str::trim)
            .collect();
        assert_eq!(vars, ScmSecretKeys::VARIABLES);
        // ACTIONS are the disjuncts of Next, in order.
        let next = &SPEC[SPEC.find("Next ==").unwrap()..SPEC.find("Spec ==").unwrap()];
        let disjuncts: Vec<&str> = next
            .lines()
            .filter_map(|l| l.trim().strip_prefix("\\/ "))
            .map(|d| {
                let d = d.trim_start_matches("\\E k \\in Keys : ");
                let d = d.trim_start_matches("\\E s \\in Nodes :");
                d.split('(').next().unwrap().trim()
            })
            .filter(|d| !d.is_empty())
            .collect();
        assert_eq!(disjuncts, Action::NAMES);
    }

    #[test]
    fn from_tla_names_the_variable_outside_its_type_and_holds_knows_only_the_invariants() {
        let m = mirror(false);
        let init = m.init().remove(0);
        let mut values = m.to_tla(&init);
        values[2] = TlaValue::function([
            (TlaValue::model("s1"), TlaValue::int(0)),
            (TlaValue::model("s2"), TlaValue::int(4)),
        ]);
        let err = m.from_tla(&values).unwrap_err();
        assert!(err.starts_with("`dbIndex` ="), "{err}");
        let mut values = m.to_tla(&init);
        values[8] = TlaValue::seq([TlaValue::set([TlaValue::int(4)])]);
        assert!(m.from_tla(&values).unwrap_err().starts_with("`log` ="));
        let mut values = m.to_tla(&init);
        values[1] = TlaValue::model("s3");
        assert!(m.from_tla(&values).unwrap_err().starts_with("`leader` ="));
        assert!(m.from_tla(&values[..11]).is_err());
        assert!(!m.holds("NoSuchInvariant", &init));
        // TypeOK is a real check on the Rust state.
        let mut bad = init.clone();
        bad.last_key = 4;
        assert!(!m.holds("TypeOK", &bad));
        assert_eq!(m.first_violated(&bad), Some("TypeOK"));
    }
}
