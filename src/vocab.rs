//! The closed vocabulary of abstract events and field types.
//!
//! Grammar files may only name events and fields declared here: the models are written against this
//! vocabulary, so a typo in a grammar must fail at load time, not silently produce an event no model reads.

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

const fn req(name: &'static str, ty: FieldType) -> FieldSpec {
    FieldSpec {
        name,
        ty,
        optional: false,
    }
}

const fn opt(name: &'static str, ty: FieldType) -> FieldSpec {
    FieldSpec {
        name,
        ty,
        optional: true,
    }
}

macro_rules! vocabulary {
    ($( $(#[$doc:meta])* $kind:ident [$($field:expr),* $(,)?] ),* $(,)?) => {
        /// Every abstract event a grammar may produce.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum EventKind { $( $(#[$doc])* $kind ),* }

        impl EventKind {
            pub const ALL: &'static [EventKind] = &[$(EventKind::$kind),*];

            pub fn name(self) -> &'static str {
                match self { $(EventKind::$kind => stringify!($kind)),* }
            }

            pub fn fields(self) -> &'static [FieldSpec] {
                match self { $(EventKind::$kind => { const F: &[FieldSpec] = &[$($field),*]; F }),* }
            }
        }
    };
}

use FieldType as T;

vocabulary! {
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

    // ---- scm-secret-keys (HDDS-16923) ----
    /// `Got secret keys from leaders [...]` (held in memory during a snapshot install).
    SecretKeysFetched [req("keys", T::SecretKeys)],
    /// `Failed to get secret keys from SCM leader L`.
    SecretKeysFetchFailed [opt("leader", T::Text)],
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
    /// `Getting secret keys from leader {}.` (security enabled only; before SecretKeysFetched).
    SecretKeysFetching [opt("leader", T::Text)],
    /// DEBUG `The latest key was created at: {} which does not pass the rotation duration`.
    SecretKeyRotationNotDue [opt("created", T::Word)],
    /// `Scheduling rotation checker with interval {}` (SecretKeyManagerService start; `PT10M`).
    SecretKeyRotationScheduled [opt("interval", T::Word)],
    /// DN/OM verifier: `Secret key fetched from SCM: {}`; no `key` when SCM answered `null` (key unknown to SCM).
    SecretKeyFetchedFromScm [opt("key", T::SecretKey)],

    // ---- scm-finalization (HDDS-17089) ----
    /// `Initializing version manager with apparent version A and software version S`.
    VersionManagerInitialized [req("apparent", T::Version), req("software", T::Version)],
    /// `New snapshot received with higher apparent version V. Attempting to finalize to that version.`
    SnapshotVersionHigher [req("version", T::Version)],
    /// `Version V has been finalized.`: the VERSION file now says V.
    VersionFinalized [req("version", T::Version)],
    /// `Updating version in the VERSION file from A to B failed.`
    VersionPersistFailed [opt("from", T::Version), opt("to", T::Version)],
    /// `Datanode D has apparent version X which is higher than SCM apparent version Y. SCM must finalize before datanodes.`
    DatanodeFenced [req("datanode", T::Datanode), req("datanode_version", T::Version), req("scm_version", T::Version)],
    /// `Registered datanode: D`.
    DatanodeRegistered [req("datanode", T::Datanode)],
    /// Datanode side: `SCM rejected this datanode's registration ... This datanode will shut down.`
    DatanodeRegistrationRejected [opt("software", T::Text), opt("apparent", T::Text)],
    /// `Sending finalize command to datanode D with apparent version X which is less than SCM's finalized apparent version Y`.
    DatanodeFinalizeSent [req("datanode", T::Datanode), opt("datanode_version", T::Version), opt("scm_version", T::Version)],
    /// `Finalize attempt on a version which has already been finalized. {} This can happen when Raft Log is replayed during service restart.`
    VersionAlreadyFinalized [opt("software", T::Version), opt("apparent", T::Version), opt("version", T::Version)],
    /// WARN `Failed to roll back apparent version to {} after persist failure.`
    VersionRollbackFailed [opt("version", T::Version)],
    /// `Failed to reinitialize finalization state` (finalize from snapshot threw during reload).
    FinalizationReinitializeFailed [],
    /// WARN `Forcing upgrade finalization by skipping SCM peer and datanode software version checks`.
    FinalizeForced [],
    /// Admin finalize rejected (`SCM peer {} is running software version {} but leader is running version {}. ...` and the
    /// unreachable-peer / datanode-version forms).
    FinalizeRejected [opt("peer", T::Word), opt("peer_version", T::Version), opt("leader_version", T::Version), opt("datanodes", T::U64), opt("version", T::Version)],
    /// Other fence reasons: `Datanode {} did not report its version. ...`, `... has software version {} which is newer/older than SCM software version {} ...`.
    DatanodeRegistrationDenied [req("datanode", T::Datanode), opt("datanode_software", T::Version), opt("scm_software", T::Version)],
    /// `Invalid datanode in the cluster : {host}. Datanode software version = ..., ...` (registered DN, not fenced).
    DatanodeVersionInvalid [req("host", T::Word), opt("datanode_software", T::Version), opt("datanode_apparent", T::Version), opt("scm_software", T::Version), opt("scm_apparent", T::Version)],
    /// `SCM trying to process heartbeat from an unregistered node {}. Ignoring the heartbeat.`
    UnregisteredHeartbeatIgnored [req("datanode", T::Datanode)],
    /// `SCM received heartbeat from an unregistered datanode {}. Asking datanode to re-register.`
    DatanodeReregisterRequested [req("datanode", T::Datanode)],
    /// Datanode side: `Critical error occurred in StateMachine, setting shutDownMachine`.
    DatanodeCriticalError [],
    /// Datanode side: `DatanodeStateMachine Shutdown due to an critical error` (then `Exiting with status 1`).
    DatanodeShutdownOnError [],
    /// Datanode side: `Processing FinalizeVersionCommandHandler command.`
    DatanodeFinalizeCommandReceived [],
    /// Datanode side: `Finalize upgrade called.` (followed by `Version {} has been finalized.` lines).
    DatanodeFinalizeStarted [],
    /// Datanode side: `Exception during finalization.`
    DatanodeFinalizeFailed [],

    // ---- dn-finalize-block (HDDS-16828) ----
    /// `Finalized Block request received B`.
    FinalizeBlockReceived [req("block", T::BlockId)],
    /// `Block has been finalized B`.
    BlockFinalized [req("block", T::BlockId)],
    /// DEBUG `Block B successfully committed with bcsId N chunk size K`: a PutBlock persisted.
    BlockCommitted [req("block", T::BlockId), req("bcs_id", T::U64), req("chunks", T::U64)],
    /// DEBUG `Block B successfully persisted for closed container C with bcsId N chunk size K`.
    BlockCommittedClosedContainer [req("block", T::BlockId), opt("container", T::U64), req("bcs_id", T::U64), req("chunks", T::U64)],
    /// DEBUG `blockCommitSequenceId D in the Container Db is greater than the supplied value S. Ignoring it`.
    PutBlockReplayIgnored [req("db_bcs_id", T::U64), req("bcs_id", T::U64)],
    /// DEBUG `gid G : ApplyTransaction completed. cmd C logIndex N ...`.
    ApplyTransactionCompleted [opt("group", T::Word), req("cmd", T::Word), req("log_index", T::U64), opt("result", T::Word)],
    /// `Operation: Op , Trace ID: ... , Result: R , StorageContainerException Occurred.`
    ContainerOperationFailed [req("operation", T::Word), opt("message", T::Text), req("result", T::Word)],
    /// `{}: Setting the last applied index to (t:T, i:N)` (datanode restart replay point).
    LastAppliedIndexSet [opt("member", T::Member), opt("term_index", T::TermIndex)],
    /// `gid G : ApplyTransaction failed. cmd C logIndex N msg : M Container Result: R` (and `{}: failed to applyTransaction at logIndex {} for {}`).
    ApplyTransactionFailed [opt("group", T::Word), req("cmd", T::Word), req("log_index", T::U64), opt("message", T::Text), opt("result", T::Word)],
    /// `startTransaction validation failed on leader` (not ContainerNotOpen; stack trace follows).
    StartTransactionValidationFailed [],
    /// DEBUG `{}: writeChunk writeStateMachineData : blockId{} logIndex {} chunkName {}` (WriteChunk data write submitted;
    /// the block id is the protobuf `DatanodeBlockID`, printed over continuation lines).
    WriteChunkDataSubmitted [opt("group", T::Word), opt("container", T::U64), opt("local_id", T::U64), req("log_index", T::U64), opt("chunk", T::Word)],
    /// DEBUG `{}: writeChunk writeStateMachineData  completed: blockId{} logIndex {} chunkName {}` (block id as above).
    WriteChunkDataCompleted [opt("group", T::Word), opt("container", T::U64), opt("local_id", T::U64), req("log_index", T::U64), opt("chunk", T::Word)],
    /// DEBUG `{}: getStreamDataChannel {} containerID={} pipelineID={} traceID={}` (streaming path, no startTransaction).
    StreamDataChannelOpened [opt("group", T::Word), req("cmd", T::Word), opt("container", T::U64), opt("pipeline", T::Word)],
    /// `Leader change notification received for group: {} with new leaderId: {}` (XceiverServerRatis).
    PipelineLeaderChanged [req("group", T::Word), req("leader", T::Word)],

    // ---- recon-om-sync (HDDS-16462) ----
    /// `Starting Ozone Manager Service Provider.`
    OmServiceProviderStarting [],
    /// `Skipping startup task reinitialization because the local OM DB store is not initialized yet ...`
    StartupReinitSkipped [],
    /// `Task name and last updated sequence number of tasks, that are not matching ...`
    StartupTaskMismatch [],
    /// `{task} -> {seq}` lines that follow the mismatch header.
    StartupTaskSeq [req("task", T::Word), req("seq", T::I64)],
    /// `Queueing async reinitialization events during startup.`
    StartupReinitQueued [],
    /// `Ozone Manager Service Provider is started.`: Recon serves from here on.
    OmServiceProviderStarted [],
    /// `Stopping Ozone Manager Service Provider.`
    OmServiceProviderStopping [],
    /// `Last known sequence number before sync: N`.
    SyncStarted [req("seq", T::I64)],
    /// `Sequence number after sync: N`.
    SyncCompleted [req("seq", T::I64)],
    /// `Unable to get and apply delta updates from OM: ..., falling back to full snapshot` (and the ERROR variant).
    DeltaFallbackToFullSnapshot [opt("reason", T::Text), opt("seq", T::I64)],
    /// `Obtaining full snapshot from Ozone Manager`.
    FullSnapshotRequested [],
    /// ERROR `Error starting Recon OM Metadata Manager.` / WARN `Unexpected runtime error starting Recon OM Metadata
    /// Manager.` (Recon's `start()`: the local OM DB copy did not open).
    StartupOmDbFailed [],
    /// `start()` replaces a local OM DB that failed to open: WARN `Trying to delete existing recon OM snapshot DB and
    /// fetch new one.`, `Fetching full snapshot from Ozone Manager`.
    StartupSnapshotFetching [],
    /// `Successfully fetched a full snapshot from Ozone Manager` (after the install line; no reprocess is queued).
    StartupSnapshotFetched [],
    /// ERROR `Failed fetching a full snapshot from Ozone Manager` / `Unexpected IOException occurred while trying to
    /// fetch a full snapshot`: no OM DB; the first scheduled sync takes a full snapshot.
    StartupSnapshotFailed [],
    /// ERROR lines of a scheduled full snapshot that installed nothing (`Unable to obtain Ozone Manager DB Snapshot.`,
    /// `Failed to obtain a valid DB snapshot from Ozone Manager. ...`, `Unable to update Recon's metadata with new OM DB. `, ...).
    FullSnapshotFailed [],
    /// `Successfully updated Recon OM DB with new snapshot.`
    FullSnapshotInstalled [],
    /// `From Sequence Number:F, Recon DB Sequence Number: R, Number of updates received from OM : U, ...`
    DeltaApplied [req("from_seq", T::I64), req("db_seq", T::I64), opt("updates", T::I64)],
    /// Reinitialization queued (`Queueing task reinitialization event due to: R ...`, `Queueing async reinitialization event instead of blocking call`).
    ReinitQueued [opt("reason", T::Word)],
    /// `Processing reinitialization event: reason=R, timestamp=T`.
    ReinitProcessing [opt("reason", T::Word)],
    /// `Task T started execution on thread X`.
    TaskStarted [req("task", T::Word), opt("thread", T::Text)],
    /// `Task T completed execution`.
    TaskCompleted [req("task", T::Word)],
    /// `Re-initialization of tasks completed successfully.`
    ReinitCompleted [],
    /// `Re-initialization of tasks failed.`
    ReinitFailed [],
    /// `Re-initializing all tasks again (not just above failed delta tasks) ...` (startup reconciliation).
    StartupReinitAll [],
    /// ERROR `Failed to queue reinitialization event for manual trigger [at startup ](result: R), failing the snapshot operation`.
    ReinitQueueFailed [opt("result", T::Word)],
    /// `Seq number of Recon's OM DB : N` (sync cycle).
    OmDbSeqObserved [req("seq", T::I64)],
    /// `Delta updates received from OM : L loops, R records`.
    DeltaSyncSummary [req("loops", T::U64), req("records", T::U64)],
    /// `Attempting to update Recon OM DB with new snapshot located at: P`.
    FullSnapshotInstalling [opt("path", T::Text)],
    /// `Created OM DB handle from snapshot at P.` (startup or after a full snapshot).
    OmDbHandleCreated [opt("path", T::Text)],
    /// `Cleaning up old OM snapshot db at P.`
    OmDbCleanedUp [opt("path", T::Text)],
    /// `Attempting checkpoint creation (retry attempt: N)` (reinit queueing).
    ReinitCheckpointAttempt [opt("attempt", T::U64)],
    /// `Checkpoint creation succeeded`.
    ReinitCheckpointCreated [],
    /// `Successfully queued reinitialization event after N retries`.
    ReinitEventQueued [opt("retries", T::U64)],
    /// WARN `Detected condition for task reinitialization: R, queueing async reinitialization event`.
    ReinitConditionDetected [opt("reason", T::Word)],
    /// `Starting async task reinitialization with checkpointed OM metadata manager due to: R`.
    AsyncReinitStarted [opt("reason", T::Word)],
    /// `Starting Re-initialization of tasks. This is a blocking operation.`
    ReinitTasksStarting [],
    /// `Submitting N tasks for parallel reprocessing`.
    ReinitTasksSubmitted [req("count", T::U64)],
    /// `Completed async task reinitialization`.
    AsyncReinitCompleted [],
    /// `Completed processing reinitialization event: R` (R not kept).
    ReinitEventProcessed [],
    /// ERROR `Task T failed` (delta processing).
    TaskFailed [req("task", T::Word)],
    /// WARN `Some tasks failed while processing buffered events, retrying...`
    DeltaTasksRetrying [],
    /// WARN `Some tasks still failed after retry while processing buffered events, signaling for task reinitialization`.
    DeltaTasksFailedAfterRetry [],
    /// `Registered Task: T` (TASK_STATUS row inserted).
    TaskStatusRegistered [req("task", T::Word)],
    /// A task's own reprocess start line (`T: Starting reprocess[ for bucket layout L]`, NSSummary's `Starting NSSummary tree reprocess ...`).
    TaskReprocessStarted [opt("task", T::Word), opt("layout", T::Word)],
    /// A task's own reprocess end line (`T: Reprocess completed in D ms|sec`, `NSSummary tree reprocess completed successfully ...`).
    TaskReprocessCompleted [opt("task", T::Word)],
    /// DEBUG `T successfully processed [N OM DB update event(s) ]in D milliseconds` (delta batch applied by task T).
    TaskDeltaProcessed [req("task", T::Word), opt("events", T::U64)],
}

impl EventKind {
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
