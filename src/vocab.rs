//! The closed vocabulary of abstract events and field types.
//!
//! Grammar files may only name events and fields declared in it: the models are written against this
//! vocabulary, so a typo in a grammar must fail at load time, not silently produce an event no model reads.
//! The kinds every part may read (process lifecycle, node identity, Ratis, and the lines the clocks and the
//! merge read) are declared here; the kinds only one bug reads, in that bug's folder (`events.rs`), and the
//! registry puts the sections together (`src/bugs/vocabulary.rs`).

use std::fmt;

/// How a placeholder's text is parsed into a typed value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    /// Unsigned decimal integer.
    U64,
    /// Signed decimal integer.
    I64,
    /// A run of non-blank characters.
    Word,
    /// Any text on the line (shortest match before the literal that follows it).
    Text,
    /// A UUID in its canonical 8-4-4-4-12 hex form (an scmId, a key or datanode id).
    Uuid,
    /// Ratis `TermIndex`: `(t:3, i:5120)`.
    TermIndex,
    /// Ozone `TransactionInfo`: `3#5120`.
    TxInfo,
    /// Layout or component version: `ZDU (100)`, `INITIAL_VERSION (0)`.
    Version,
    /// Ozone `BlockID`: `conID: 1 locID: 1137 bcsId: 0 replicaIndex: null`.
    BlockId,
    /// One `ManagedSecretKey`: `SecretKey(id = <uuid>, creation at: <instant>, expire at: <instant>)`.
    SecretKey,
    /// A list of secret keys: `[SecretKey(...), SecretKey(...)]`.
    SecretKeys,
    /// `DatanodeDetails`: `<uuid>(<host>/<ip>)` or its debug form `<uuid>{ip: ..., host: ...}`.
    Datanode,
    /// Ratis member id: `<peerId>@group-<12 hex>`.
    Member,
    /// `host/ip` as printed by Hadoop's `NetUtils` (banners).
    HostIp,
}

impl FieldType {
    pub const ALL: &'static [FieldType] = &[
        FieldType::U64,
        FieldType::I64,
        FieldType::Word,
        FieldType::Text,
        FieldType::Uuid,
        FieldType::TermIndex,
        FieldType::TxInfo,
        FieldType::Version,
        FieldType::BlockId,
        FieldType::SecretKey,
        FieldType::SecretKeys,
        FieldType::Datanode,
        FieldType::Member,
        FieldType::HostIp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FieldType::U64 => "u64",
            FieldType::I64 => "i64",
            FieldType::Word => "word",
            FieldType::Text => "text",
            FieldType::Uuid => "uuid",
            FieldType::TermIndex => "termindex",
            FieldType::TxInfo => "txinfo",
            FieldType::Version => "version",
            FieldType::BlockId => "blockid",
            FieldType::SecretKey => "secretkey",
            FieldType::SecretKeys => "secretkeys",
            FieldType::Datanode => "datanode",
            FieldType::Member => "member",
            FieldType::HostIp => "hostip",
        }
    }

    pub fn from_name(name: &str) -> Option<FieldType> {
        FieldType::ALL.iter().copied().find(|t| t.name() == name)
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which Ozone process kind an event comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Component {
    Scm,
    Datanode,
    Recon,
    Om,
    /// The rule applies to every daemon (banners, signals, exit lines).
    Any,
}

impl Component {
    pub fn from_name(name: &str) -> Option<Component> {
        Some(match name {
            "scm" => Component::Scm,
            "datanode" => Component::Datanode,
            "recon" => Component::Recon,
            "om" => Component::Om,
            "any" => Component::Any,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Component::Scm => "scm",
            Component::Datanode => "datanode",
            Component::Recon => "recon",
            Component::Om => "om",
            Component::Any => "any",
        }
    }
}

/// One declared field of an event kind. `optional` fields may be absent from a rule's template.
#[derive(Clone, Copy, Debug)]
pub struct FieldSpec {
    pub name: &'static str,
    pub ty: FieldType,
    pub optional: bool,
}

pub const fn req(name: &'static str, ty: FieldType) -> FieldSpec {
    FieldSpec {
        name,
        ty,
        optional: false,
    }
}

pub const fn opt(name: &'static str, ty: FieldType) -> FieldSpec {
    FieldSpec {
        name,
        ty,
        optional: true,
    }
}

/// An abstract event's kind: its place in the vocabulary, which is this module's [`COMMON`] kinds followed
/// by each bug's own (`src/bugs/<bug>/events.rs`), in registry order. A kind is named by an associated const
/// (`EventKind::SecretKeyGenerated`) declared with [`vocabulary!`] where it belongs, and matches like an enum
/// variant; its name and fields are looked up in the registry's table (`src/bugs/vocabulary.rs`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventKind(u16);

impl EventKind {
    /// The kind at `index` in the vocabulary ([`vocabulary!`] numbers them).
    pub const fn at(index: u16) -> EventKind {
        EventKind(index)
    }

    /// Its place in the vocabulary: the index of `EventKind::ALL` that holds it.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// An event kind's name and fields, as [`vocabulary!`] declares them.
#[derive(Clone, Copy, Debug)]
pub struct KindDef {
    pub name: &'static str,
    pub fields: &'static [FieldSpec],
}

/// Declares a section of the vocabulary: `vocabulary! { SECTION from FIRST; Kind [fields], ... }` makes
/// `pub const SECTION: &[KindDef]` (the kinds in order) and `EventKind::Kind` for each, numbered from `FIRST`.
/// Sections are declared here ([`COMMON`]) and in each bug's `events.rs` (`KINDS`, from its place in the
/// registry: `crate::bugs::first_kind::<bug>`).
#[macro_export]
#[doc(hidden)]
macro_rules! vocabulary {
    ($section:ident from $first:expr; $( $(#[$doc:meta])* $kind:ident [$($field:expr),* $(,)?] ),* $(,)?) => {
        /// Each kind's place in this section.
        #[allow(clippy::enum_variant_names, dead_code)]
        #[repr(u16)]
        enum Place { $($kind),* }

        /// This section's kinds, in order.
        pub const $section: &[$crate::vocab::KindDef] =
            &[$($crate::vocab::KindDef { name: stringify!($kind), fields: &[$($field),*] }),*];

        #[allow(non_upper_case_globals)]
        impl $crate::vocab::EventKind {
            $( $(#[$doc])* pub const $kind: $crate::vocab::EventKind =
                $crate::vocab::EventKind::at($first + Place::$kind as u16); )*
        }
    };
}
pub use vocabulary;

use FieldType as T;

vocabulary! {
    COMMON from 0;

    // ---- process lifecycle (every daemon) ----
    /// `STARTUP_MSG` banner; `host` comes from its `host = name/ip` line.
    ProcessStarted [req("service", T::Word), opt("host", T::HostIp)],
    /// `SHUTDOWN_MSG` banner.
    ProcessShutdown [req("service", T::Word), opt("host", T::HostIp)],
    /// `RECEIVED SIGNAL 15: SIGTERM`.
    SignalReceived [req("number", T::U64), req("signal", T::Word)],
    /// Ratis `ExitUtils.terminate`: `Terminating with exit status N: reason`.
    TerminatingWithStatus [req("status", T::U64), opt("reason", T::Text)],
    /// `registered UNIX signal handlers for [...]` after a STARTUP_MSG: the first banner of its JVM.
    SignalHandlersRegistered [opt("signals", T::Text)],
    /// `failed to register any UNIX signal loggers: ` after a STARTUP_MSG: not the JVM's first banner.
    SignalHandlersNotRegistered [],
    /// `SCM start failed with exception` (StorageContainerManagerStarter): the process exits.
    ScmStartFailed [],
    /// `Exception in HddsDatanodeService.`: the datanode process exits.
    DatanodeStartFailed [],
    /// Hadoop `ExitUtil.terminate`: `Exiting with status N: reason`.
    ExitingWithStatus [req("status", T::U64), opt("reason", T::Text)],
    /// A component stops inside a running JVM (service `stop()` lines; MiniOzoneCluster restarts).
    ComponentStopping [opt("detail", T::Text)],
    /// A component starts inside a running JVM (no banner in MiniOzoneCluster).
    ComponentStarting [opt("detail", T::Text)],

    // ---- node identity (lets single-JVM test output tell which SCM a line belongs to) ----
    /// `Found matching SCM address with SCMServiceId: S, SCMNodeId: N, ...` (SCM construction).
    ScmNodeIdentified [req("node_id", T::Word)],
    /// `starting Raft server for scm:<scmId>` (SCM construction, after ScmNodeIdentified on the same thread).
    ScmRaftServerCreated [req("scm_id", T::Uuid)],
    /// MiniOzoneHAClusterImpl: `Shutting down StorageContainerManager <scmId>`.
    HarnessScmShutdown [req("scm_id", T::Uuid)],
    /// `... RPC server ... is listening at /host:port`: the port's IPC handler threads belong to this node.
    RpcServerListening [req("address", T::Text)],

    // ---- Ratis / SCM HA (shared by the SCM models) ----
    /// `Received install snapshot notification from SCM leader: L with term index: (t:T, i:I)`.
    SnapshotInstallNotified [opt("leader", T::Text), opt("term_index", T::TermIndex)],
    /// `Downloaded checkpoint from Leader L to the location P`.
    CheckpointDownloaded [opt("leader", T::Text), opt("path", T::Text)],
    /// `{}: Install checkpoint T#N`.
    CheckpointInstallStarted [opt("member", T::Member), opt("tx", T::TxInfo)],
    /// `Replaced DB with checkpoint, term: T, index: N`: scm.db now holds the leader's checkpoint.
    CheckpointInstalled [req("term", T::U64), req("index", T::U64)],
    /// `Reloaded SCM state with Term: T and Index: N`.
    ScmStateReloaded [req("term", T::U64), req("index", T::U64)],
    /// Install failed before or at the DB swap (the old DB stays or is restored).
    CheckpointInstallFailed [opt("detail", T::Text)],
    /// `{}: SCMStateMachine is reinitializing. newTermIndex = (t:T, i:N)`.
    StateMachineReinitializing [opt("member", T::Member), opt("term_index", T::TermIndex)],
    /// `Failed to reinitialize SCMStateMachine.`
    StateMachineReinitializeFailed [],
    /// `Failed to unpause ` (SCMStateMachine.reinitialize, logged and not rethrown).
    ScmStateMachineUnpauseFailed [],
    /// `Follower caught up with leader: lastAppliedIndex=A, leaderCommitOnStart=C` (once per run).
    ScmFollowerCaughtUp [req("applied", T::I64), req("leader_commit", T::I64)],
    /// `Updated lastAppliedTermIndex T#N with transactionInfo term andIndex` (SCM startup).
    AppliedIndexRestored [req("tx", T::TxInfo)],
    /// `current SCM X becomes leader of term T`.
    ScmBecameLeader [req("scm", T::Word), req("term", T::U64)],
    /// `SCM X steps down from being leader.`
    ScmSteppedDown [req("scm", T::Word)],
    /// Ratis `{}: changes role from A to B at term T for R`.
    RaftRoleChanged [req("member", T::Member), req("from", T::Word), req("to", T::Word), req("term", T::U64)],
    /// Ratis `{} {} round {}: submit vote requests at term {} for {}` (first `{}` is `<member>-LeaderElection<N>`).
    RaftElectionRound [req("member", T::Member), req("phase", T::Word), req("round", T::U64), req("term", T::U64)],
    /// Ratis `{} {} round {}: result {}` (`PASSED`, `REJECTED`, `TIMEOUT`, `DISCOVERED_A_NEW_TERM (term=T)`, ...).
    RaftElectionResult [req("member", T::Member), req("phase", T::Word), req("round", T::U64), req("result", T::Word)],
    /// Ratis `{}: change Leader from {} to {} at term {} for {}{}` (`null` when no leader is known).
    RaftLeaderChanged [req("member", T::Member), req("from", T::Word), req("to", T::Word), req("term", T::U64)],
    /// Ratis `Leader {} is ready since appliedIndex == startIndex == {}` (`{}` is `<member>-LeaderStateImpl`).
    RaftLeaderReady [req("member", T::Member), req("index", T::U64)],
    /// `update <isLeader,term> from <{},{}> to <{},{}>` (SCMContext; term -1 = INVALID_TERM).
    ScmLeaderStateUpdated [req("was_leader", T::Word), req("was_term", T::I64), req("leader", T::Word), req("term", T::I64)],
    /// `update <isLeaderReady> from <{}> to <{}>` (SCMContext; `false` -> `true` = leader ready).
    ScmLeaderReadyUpdated [req("from", T::Word), req("to", T::Word)],
    /// `Leader changed to {}, current SCM {} is still follower.`
    ScmFollowerLeaderChanged [req("leader", T::Word), req("scm", T::Word)],
    /// Ratis `{}: Received notification to install snapshot at index {}` (leader's first available log index).
    RaftSnapshotInstallNotified [req("member", T::Member), req("index", T::U64)],
    /// Ratis `{}: notifyInstallSnapshot: nextIndex is {} but the leader's first available index is {}.`
    RaftNotifyInstallSnapshot [req("member", T::Member), req("next_index", T::U64), req("first_index", T::U64)],
    /// Ratis `{}: receive installSnapshot: {} {}` (InstallSnapshot RPC or notification received; batched).
    InstallSnapshotRequestReceived [req("member", T::Member)],
    /// Ratis `{}: reply installSnapshot: {} {}` (reply to an InstallSnapshot RPC; batched).
    InstallSnapshotReplySent [req("member", T::Member)],
    /// `Downloading checkpoint from leader SCM {} and reloading state from the checkpoint.`
    CheckpointDownloadStarted [opt("leader", T::Text)],
    /// `Successfully downloaded latest checkpoint from leader SCM: {} path {}` (SCMSnapshotProvider, before CheckpointDownloaded).
    CheckpointDownloadSucceeded [opt("leader", T::Text), opt("path", T::Text)],
    /// `{}: Verify checkpoint {} from leader {}` (checkpoint TransactionInfo `T#N`).
    CheckpointVerifying [opt("tx", T::TxInfo), opt("leader", T::Text)],
    /// Ratis `{}: StateMachine successfully installed snapshot index {}. Reloading the StateMachine.`
    StateMachineSnapshotInstalled [req("member", T::Member), req("index", T::U64)],
    /// `{}: Try to pause from current LifeCycle state {}` (SCMStateMachine.pause, just before the Ratis reload).
    ScmStateMachinePausing [opt("state", T::Word)],
    /// Ratis `{}: InstallSnapshot notification result: {}, at index: {}` (and the ALREADY_INSTALLED / SNAPSHOT_UNAVAILABLE forms).
    RaftInstallSnapshotResult [req("member", T::Member), req("result", T::Word), opt("term_index", T::TermIndex), opt("index", T::I64)],
    /// Ratis `{}: {}` = `<member>-StateMachineUpdater: snapshotIndex: setUnconditionally A -> B` (after reinitialize).
    StateMachineIndexReset [req("member", T::Member), req("index_name", T::Word), req("from", T::I64), req("to", T::I64)],
    /// Ratis `{} caught a Throwable.` (`<member>-StateMachineUpdater`; the Raft server closes).
    StateMachineUpdaterFailed [req("member", T::Member)],
    /// `Failed to delete the backup of the original DB {}` (after a successful checkpoint install).
    CheckpointBackupDeleteFailed [opt("path", T::Text)],
    /// DEBUG `{}: applyTransaction {}` (SCMStateMachine; `(t:T, i:N)`).
    ScmTransactionApplied [req("term_index", T::TermIndex)],

    // ---- scm-secret-keys: the clocks read their instants (`src/clock.rs`), the merge their key ids ----
    /// `Got secret keys from leaders [...]` (held in memory during a snapshot install).
    SecretKeysFetched [req("keys", T::SecretKeys)],
    /// `Updating keys with [...]`: the key list applied on this SCM.
    SecretKeysUpdated [req("keys", T::SecretKeys)],
    /// `Current key updated SecretKey(...)`.
    CurrentSecretKeyUpdated [req("key", T::SecretKey)],
    /// `Saved [...] to file P`: the local key file now holds this list.
    SecretKeysSaved [req("keys", T::SecretKeys), opt("path", T::Text)],
    /// `Loaded [...] from P`: key file read by a new leader.
    SecretKeysLoaded [req("keys", T::SecretKeys), opt("path", T::Text)],
    /// `Initializing SecretKeys.`
    SecretKeysInitializing [],
    /// `Keys reloaded: [...]`: the new leader adopts the keys from its file.
    SecretKeysReloaded [req("keys", T::SecretKeys)],
    /// `No valid key has been loaded. A new key is generated: SecretKey(...)`.
    SecretKeyGenerated [req("key", T::SecretKey)],
    /// `[Forced ]SecretKey rotation is happening, new key generated SecretKey(...)`.
    SecretKeyRotated [req("key", T::SecretKey)],

    // ---- scm-finalization: node identity and the merge read them (`src/timeline/`) ----
    /// `Initializing version manager with apparent version A and software version S`.
    VersionManagerInitialized [req("apparent", T::Version), req("software", T::Version)],
    /// `Version V has been finalized.`: the VERSION file now says V.
    VersionFinalized [req("version", T::Version)],
    /// `Datanode D has apparent version X which is higher than SCM apparent version Y. SCM must finalize before datanodes.`
    DatanodeFenced [req("datanode", T::Datanode), req("datanode_version", T::Version), req("scm_version", T::Version)],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_fields_are_unique() {
        for kind in EventKind::ALL {
            assert_eq!(EventKind::from_name(kind.name()), Some(*kind));
            let mut names: Vec<_> = kind.fields().iter().map(|f| f.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(
                names.len(),
                kind.fields().len(),
                "duplicate field in {kind}"
            );
        }
        for ty in FieldType::ALL {
            assert_eq!(FieldType::from_name(ty.name()), Some(*ty));
        }
    }
}
