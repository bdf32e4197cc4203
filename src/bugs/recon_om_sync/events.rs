//! The event kinds only `recon-om-sync` reads (its grammar's lines; the kinds other parts read too are
//! [`crate::vocab::COMMON`]'s). They follow the kinds of the bugs before it in the registry.

use crate::vocab::{opt, req, FieldType as T};

crate::vocab::vocabulary! {
    KINDS from crate::bugs::first_kind::recon_om_sync;

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
