//! The event kinds only `scm-finalization` reads (its grammar's lines; the kinds other parts read too are
//! [`crate::vocab::COMMON`]'s). They follow the kinds of the bugs before it in the registry.

use crate::vocab::{opt, req, FieldType as T};

crate::vocab::vocabulary! {
    KINDS from crate::bugs::first_kind::scm_finalization;

    /// `New snapshot received with higher apparent version V. Attempting to finalize to that version.`
    SnapshotVersionHigher [req("version", T::Version)],
    /// `Updating version in the VERSION file from A to B failed.`
    VersionPersistFailed [opt("from", T::Version), opt("to", T::Version)],
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
}
