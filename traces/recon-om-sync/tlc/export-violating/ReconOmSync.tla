----------------------------- MODULE ReconOmSync -----------------------------
(***************************************************************************)
(* HDDS-16462: Recon falls back to a full OM DB snapshot when the OM was   *)
(* restored onto an earlier lineage (delta fetch fails with                *)
(* SequenceNumberNotFoundException).  executeFullSnapshot sets the         *)
(* OmSnapshotRequest/OmDeltaRequest cursors (TASK_STATUS, durable) to the  *)
(* new, lower sequence number and only queues an in-memory, asynchronous   *)
(* reprocess of the derived tasks.  If Recon stops before the reprocess    *)
(* completes, the startup reconciliation in                                *)
(* OzoneManagerServiceProviderImpl.start() reprocesses a task only when    *)
(* its cursor is strictly below the delta cursor; the stale cursor of the  *)
(* old lineage is above it, so the derived tables stay built from the old  *)
(* lineage for good.  The patch reprocesses on any mismatch (!=).          *)
(*                                                                         *)
(* Granularity: one action = one observable log step; the comment above    *)
(* each action names the Ozone log line(s) witnessing it.                  *)
(*                                                                         *)
(* Abstractions:                                                           *)
(*  - OM state = (lineage, sequence number); a lineage is an OM DB         *)
(*    history, a DR restore / re-bootstrap starts a new one.               *)
(*  - a delta fetch across a lineage change fails (SNNFE): the restored    *)
(*    OM's WAL does not cover Recon's cursor.                              *)
(*  - environment assumption (the patch's residual case is out of scope): *)
(*    a restored lineage starts below every cursor Recon holds and never   *)
(*    reaches them (seqCeiling), so equal numbers never mean different     *)
(*    lineages.                                                            *)
(*  - OmSnapshotRequest always equals OmDeltaRequest here; one variable    *)
(*    deltaSeq models both.  Recon's OM DB is at deltaSeq.                 *)
(*  - taskLineage is a ghost: the OM lineage the task's derived tables     *)
(*    were built from.                                                     *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS
    Tasks,                     \* derived tasks, e.g. {ContainerKeyMapperTask, ...}
    MaxSeq,                    \* bound on OM sequence numbers
    MaxLineage,                \* bound on OM lineages (restores + 1)
    ReprocessOnCursorMismatch  \* TRUE = the HDDS-16462 patch

ASSUME MaxSeq \in Nat /\ MaxLineage \in Nat /\ MaxLineage >= 1
ASSUME ReprocessOnCursorMismatch \in BOOLEAN

VARIABLES
    omLineage,       \* OM side: current lineage of the OM DB
    omSeq,           \* OM side: current sequence number of the OM DB
    seqCeiling,      \* environment: highest seq the current lineage may reach
    phase,           \* Recon process: "Down" | "Starting" | "Running"
    reconDbLineage,  \* lineage of Recon's local OM DB copy
    deltaSeq,        \* TASK_STATUS OmDeltaRequest (= OmSnapshotRequest) cursor
    taskSeq,         \* taskSeq[t]: TASK_STATUS last_updated_seq_number of t
    taskLineage,     \* taskLineage[t]: lineage t's derived tables come from
    reinitQueued,    \* an async reinitialization event is queued (in memory)
    reprocessed      \* tasks already reprocessed by the queued event

vars == <<omLineage, omSeq, seqCeiling, phase, reconDbLineage, deltaSeq,
          taskSeq, taskLineage, reinitQueued, reprocessed>>

Seqs == 0..MaxSeq
Lineages == 1..MaxLineage
Phases == {"Down", "Starting", "Running"}

Min(S) == CHOOSE x \in S : \A y \in S : x <= y
\* lowest cursor Recon holds
MinCursor == Min({deltaSeq} \cup {taskSeq[t] : t \in Tasks})

\* the startup reconciliation filter (getTasksToReprocessOnStartup)
Lagging(t) ==
    IF ReprocessOnCursorMismatch THEN taskSeq[t] # deltaSeq
                                 ELSE taskSeq[t] < deltaSeq

TypeOK ==
    /\ omLineage \in Lineages
    /\ omSeq \in Seqs
    /\ seqCeiling \in Seqs
    /\ phase \in Phases
    /\ reconDbLineage \in Lineages
    /\ deltaSeq \in Seqs
    /\ taskSeq \in [Tasks -> Seqs]
    /\ taskLineage \in [Tasks -> Lineages]
    /\ reinitQueued \in BOOLEAN
    /\ reprocessed \in SUBSET Tasks

\* Recon running and in sync with a fresh OM (lineage 1, sequence 0).
Init ==
    /\ omLineage = 1
    /\ omSeq = 0
    /\ seqCeiling = MaxSeq
    /\ phase = "Running"
    /\ reconDbLineage = 1
    /\ deltaSeq = 0
    /\ taskSeq = [t \in Tasks |-> 0]
    /\ taskLineage = [t \in Tasks |-> 1]
    /\ reinitQueued = FALSE
    /\ reprocessed = {}

-----------------------------------------------------------------------------
(* OM side (environment)                                                   *)

\* Witness: none in the Recon log; visible through the sequence numbers of
\*   Recon's next "From Sequence Number:{}, Recon DB Sequence Number: {}, ..."
\*   (OzoneManagerServiceProviderImpl.java:707).
OmWrite ==
    /\ omSeq < seqCeiling
    /\ omSeq' = omSeq + 1
    /\ UNCHANGED <<omLineage, seqCeiling, phase, reconDbLineage, deltaSeq,
                   taskSeq, taskLineage, reinitQueued, reprocessed>>

\* OM DR restore / re-bootstrap onto an earlier DB: a new lineage at
\* sequence n, below every cursor Recon holds.
\* Witness: none in the Recon log; the next delta fetch fails: OM WARN
\*   "Unable to get delta updates since sequenceNumber {}. This exception
\*   will be thrown to the client" (RDBStore.java:444).
OmRestore(n) ==
    /\ omLineage < MaxLineage
    /\ n < MinCursor
    /\ omLineage' = omLineage + 1
    /\ omSeq' = n
    /\ seqCeiling' = MinCursor - 1
    /\ UNCHANGED <<phase, reconDbLineage, deltaSeq, taskSeq, taskLineage,
                   reinitQueued, reprocessed>>

-----------------------------------------------------------------------------
(* Recon                                                                   *)

\* One delta sync cycle (getDBUpdates from deltaSeq) in the same lineage.
\* The delta events are processed by the tasks at once, or, when a
\* reinitialization event is queued, after it (queued behind it in memory).
\* Witness: "Last known sequence number before sync: {}" (:348),
\*   "From Sequence Number:{}, Recon DB Sequence Number: {}, Number of
\*   updates received from OM : {}, ... isDBUpdateSuccess: {}" (:707),
\*   "Delta updates received from OM : {} loops, {} records" (:853),
\*   "Sequence number after sync: {}" (:353), all in
\*   OzoneManagerServiceProviderImpl.java.
SyncDelta ==
    /\ phase = "Running"
    /\ reconDbLineage = omLineage
    /\ deltaSeq < omSeq
    /\ deltaSeq' = omSeq
    /\ taskSeq' = IF reinitQueued THEN taskSeq ELSE [t \in Tasks |-> omSeq]
    /\ UNCHANGED <<omLineage, omSeq, seqCeiling, phase, reconDbLineage,
                   taskLineage, reinitQueued, reprocessed>>

\* executeFullSnapshot: install the OM DB checkpoint, set both cursors to
\* its sequence number (silently), queue an async reinitialization.
\* Witness: [after an SNNFE: WARN "Unable to get and apply delta updates
\*   from OM: {}, falling back to full snapshot" (:845)],
\*   "Obtaining full snapshot from Ozone Manager" (:897),
\*   "Attempting to update Recon OM DB with new snapshot located at: {}" (:553),
\*   "Successfully updated Recon OM DB with new snapshot." (:566),
\*   "Queueing async reinitialization event instead of blocking call" (:924)
\*   (OzoneManagerServiceProviderImpl.java), "Queueing task reinitialization
\*   event due to: MANUAL_TRIGGER (retry attempt count: {})"
\*   (ReconTaskControllerImpl.java:617), "Successfully queued
\*   reinitialization event after {} retries" (:663).
FullSnapshot ==
    /\ phase = "Running"
    /\ reconDbLineage # omLineage \/ deltaSeq < omSeq
    /\ reconDbLineage' = omLineage
    /\ deltaSeq' = omSeq
    /\ reinitQueued' = TRUE
    /\ reprocessed' = {}
    /\ UNCHANGED <<omLineage, omSeq, seqCeiling, phase, taskSeq, taskLineage>>

\* The queued reinitialization reprocesses task t from Recon's OM DB.
\* Witness: "Task {} started execution on thread {}"
\*   (ReconTaskControllerImpl.java:254), the task's own lines (e.g.
\*   "{}: Starting reprocess for bucket layout {}" / "{}: Reprocess completed
\*   in {} sec", ContainerKeyMapperHelper.java:132/218), "Task {} completed
\*   execution" (ReconTaskControllerImpl.java:258).
ReprocessTask(t) ==
    /\ phase = "Running"
    /\ reinitQueued
    /\ t \notin reprocessed
    /\ taskLineage' = [taskLineage EXCEPT ![t] = reconDbLineage]
    /\ reprocessed' = reprocessed \cup {t}
    /\ UNCHANGED <<omLineage, omSeq, seqCeiling, phase, reconDbLineage,
                   deltaSeq, taskSeq, reinitQueued>>

\* All tasks reprocessed: every task row is set (silently) to the
\* checkpoint's sequence number; delta events queued behind the event are
\* then processed, so the rows end at deltaSeq.
\* Witness: "Re-initialization of tasks completed successfully."
\*   (ReconTaskControllerImpl.java:318), "Completed async task
\*   reinitialization" (:824), "Completed processing reinitialization
\*   event: {}" (:830).
ReinitDone ==
    /\ phase = "Running"
    /\ reinitQueued
    /\ reprocessed = Tasks
    /\ taskSeq' = [t \in Tasks |-> deltaSeq]
    /\ reinitQueued' = FALSE
    /\ reprocessed' = {}
    /\ UNCHANGED <<omLineage, omSeq, seqCeiling, phase, reconDbLineage,
                   deltaSeq, taskLineage>>

\* Recon killed: the queued reinitialization event is lost.
\* Witness: none; inferred from the next "STARTUP_MSG: Starting ReconServer"
\*   without a SHUTDOWN_MSG in between.
Crash ==
    /\ phase # "Down"
    /\ phase' = "Down"
    /\ reinitQueued' = FALSE
    /\ reprocessed' = {}
    /\ UNCHANGED <<omLineage, omSeq, seqCeiling, reconDbLineage, deltaSeq,
                   taskSeq, taskLineage>>

\* Graceful stop: the in-memory event queue is dropped as well.
\* Witness: ERROR "RECEIVED SIGNAL 15: SIGTERM" (SignalLogger.java:70),
\*   "Stopping Recon server" (ReconServer.java:324), "Stopping Ozone Manager
\*   Service Provider." (OzoneManagerServiceProviderImpl.java:397),
\*   "Stopping Recon Task Controller." (ReconTaskControllerImpl.java:397),
\*   "SHUTDOWN_MSG: Shutting down ReconServer at {}".
Stop ==
    /\ phase = "Running"
    /\ phase' = "Down"
    /\ reinitQueued' = FALSE
    /\ reprocessed' = {}
    /\ UNCHANGED <<omLineage, omSeq, seqCeiling, reconDbLineage, deltaSeq,
                   taskSeq, taskLineage>>

\* Witness: "STARTUP_MSG: Starting ReconServer", "Starting Recon server"
\*   (ReconServer.java:303), "Starting Ozone Manager Service Provider."
\*   (OzoneManagerServiceProviderImpl.java:237).
Restart ==
    /\ phase = "Down"
    /\ phase' = "Starting"
    /\ UNCHANGED <<omLineage, omSeq, seqCeiling, reconDbLineage, deltaSeq,
                   taskSeq, taskLineage, reinitQueued, reprocessed>>

\* Startup reconciliation in OzoneManagerServiceProviderImpl.start(): queue
\* a reinitialization of all tasks if any task is Lagging.
\* Witness (some task lagging): "Task name and last updated sequence number
\*   of tasks, that are not matching with the last updated sequence number
\*   of OmDeltaRequest task:\n" (:307), "{} -> {}" (:309, :312),
\*   "Re-initializing all tasks again ..." (:316), "Queueing async
\*   reinitialization events during startup." (:319); always: "Ozone Manager
\*   Service Provider is started." (:335) (OzoneManagerServiceProviderImpl.java).
\*   No lagging task: nothing between :237 and :335.
Reconcile ==
    /\ phase = "Starting"
    /\ phase' = "Running"
    /\ IF \E t \in Tasks : Lagging(t)
         THEN /\ reinitQueued' = TRUE
              /\ reprocessed' = {}
         ELSE UNCHANGED <<reinitQueued, reprocessed>>
    /\ UNCHANGED <<omLineage, omSeq, seqCeiling, reconDbLineage, deltaSeq,
                   taskSeq, taskLineage>>

-----------------------------------------------------------------------------

Next ==
    \/ OmWrite
    \/ \E n \in Seqs : OmRestore(n)
    \/ SyncDelta
    \/ FullSnapshot
    \/ \E t \in Tasks : ReprocessTask(t)
    \/ ReinitDone
    \/ Crash
    \/ Stop
    \/ Restart
    \/ Reconcile

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(* Invariants                                                              *)

\* Whenever Recon is running with no reinitialization pending, every
\* derived task's tables come from the OM lineage of Recon's OM DB.
DerivedTasksMatchOmLineage ==
    (phase = "Running" /\ ~reinitQueued) =>
        \A t \in Tasks : taskLineage[t] = reconDbLineage

=============================================================================
