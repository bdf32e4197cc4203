--------------------------- MODULE DnFinalizeBlock ---------------------------
(***************************************************************************)
(* HDDS-16828: lease recovery finalizes the last block of an hsynced file  *)
(* (FinalizeBlock) and closes the file at the length that FinalizeBlock   *)
(* read.  The only guard against the old writer is the finalized-block     *)
(* check in ContainerStateMachine.startTransaction, on the pipeline leader *)
(* and before the log append.  A writer's PutBlock that passed the check   *)
(* can be appended (and applied) after FinalizeBlock, and a PutBlock sent  *)
(* through the data stream never passes startTransaction; either extends   *)
(* the block after FinalizeBlock reported its length.                      *)
(* The patch checks the finalized set where PutBlock is applied            *)
(* (KeyValueHandler) and fills the leader's set only when FinalizeBlock is *)
(* applied.                                                                *)
(*                                                                         *)
(* One block of one container on one Ratis pipeline of Datanodes, with a  *)
(* fixed pipeline leader.  Granularity: one action = one step; the comment *)
(* above each action names the Ozone log line(s) witnessing it (many of    *)
(* the datanode lines are DEBUG, see the README).                          *)
(*                                                                         *)
(* Abstractions:                                                           *)
(*  - block lengths are 0..MaxLen; each hsync extends the block by 1.      *)
(*  - log is the pipeline's Raft log of PutBlock / FinalizeBlock entries,  *)
(*    applied in order on every datanode (applied[d]).                     *)
(*  - the FINALIZE_BLOCKS table is durable, so finalized[d] survives a     *)
(*    restart; the leader's startTransaction set (txFinalized) too.        *)
(***************************************************************************)
EXTENDS Naturals, Sequences

CONSTANTS
    Datanodes,              \* datanodes of the pipeline, e.g. {d1, d2, d3}
    Leader,                 \* the pipeline's Ratis leader, in Datanodes
    MaxLen,                 \* bound on the block length
    DataStreamEnabled,      \* writer may send PutBlock through the data stream
    CheckFinalizedAtApply   \* TRUE = the HDDS-16828 patch

ASSUME Leader \in Datanodes
ASSUME MaxLen \in Nat
ASSUME DataStreamEnabled \in BOOLEAN /\ CheckFinalizedAtApply \in BOOLEAN

VARIABLES
    up,            \* up[d]: datanode d is running
    log,           \* pipeline Raft log: [op |-> "PutBlock"|"FinalizeBlock", len |-> n]
    applied,       \* applied[d]: entries of log applied on d
    committedLen,  \* committedLen[d]: committed block length on d
    finalized,     \* finalized[d]: d applied FinalizeBlock for the block
    finalizedLen,  \* finalizedLen[d]: length d read when applying FinalizeBlock
    txFinalized,   \* the block is in the leader's startTransaction finalized set
    pending,       \* length of a PutBlock that passed startTransaction and is
                   \*   not yet appended (0 = none)
    writerLen      \* length the writer has sent so far

vars == <<up, log, applied, committedLen, finalized, finalizedLen,
          txFinalized, pending, writerLen>>

Lens == 0..MaxLen
Entry == [op : {"PutBlock", "FinalizeBlock"}, len : Lens]
MaxLogLen == MaxLen + 1

NextEntry(d) == log[applied[d] + 1]
HasFinalizeEntry == \E i \in 1..Len(log) : log[i].op = "FinalizeBlock"
RejectsAtApply(d) == CheckFinalizedAtApply /\ finalized[d]

TypeOK ==
    /\ up \in [Datanodes -> BOOLEAN]
    /\ log \in Seq(Entry) /\ Len(log) <= MaxLogLen
    /\ applied \in [Datanodes -> 0..MaxLogLen]
    /\ committedLen \in [Datanodes -> Lens]
    /\ finalized \in [Datanodes -> BOOLEAN]
    /\ finalizedLen \in [Datanodes -> Lens]
    /\ txFinalized \in BOOLEAN
    /\ pending \in Lens
    /\ writerLen \in Lens

\* An open block with nothing committed yet.
Init ==
    /\ up = [d \in Datanodes |-> TRUE]
    /\ log = <<>>
    /\ applied = [d \in Datanodes |-> 0]
    /\ committedLen = [d \in Datanodes |-> 0]
    /\ finalized = [d \in Datanodes |-> FALSE]
    /\ finalizedLen = [d \in Datanodes |-> 0]
    /\ txFinalized = FALSE
    /\ pending = 0
    /\ writerLen = 0

-----------------------------------------------------------------------------
(* Clients and the pipeline leader                                         *)

\* Writer hsync over Ratis (PutBlock, or WriteChunk carrying a PutBlock):
\* ContainerStateMachine.startTransaction on the leader finds the block not
\* finalized and lets the request through (RaftServerImpl.writeAsyncImpl),
\* before the log append.
\* Witness: none at INFO (DEBUG "{}: writeChunk writeStateMachineData :
\*   blockId{} logIndex {} chunkName {}", ContainerStateMachine.java:645).
\*   When the check fails instead, only the client logs (WARN "Encountered
\*   exception {} on the pipeline {}. ...", KeyOutputStream.java:378).
StartPutBlock ==
    /\ up[Leader]
    /\ pending = 0
    /\ writerLen < MaxLen
    /\ ~txFinalized
    /\ pending' = writerLen + 1
    /\ writerLen' = writerLen + 1
    /\ UNCHANGED <<up, log, applied, committedLen, finalized, finalizedLen,
                   txFinalized>>

\* RaftServerImpl.appendTransaction appends the writer's PutBlock.
\* Witness: none (Ratis append); its logIndex appears in the DEBUG
\*   "ApplyTransaction completed. cmd PutBlock logIndex {}" lines.
AppendPutBlock ==
    /\ up[Leader]
    /\ pending > 0
    /\ Len(log) < MaxLogLen
    /\ log' = Append(log, [op |-> "PutBlock", len |-> pending])
    /\ pending' = 0
    /\ UNCHANGED <<up, applied, committedLen, finalized, finalizedLen,
                   txFinalized, writerLen>>

\* recoverLease -> LeaseRecoveryClientDNHandler -> FinalizeBlock: the
\* leader's startTransaction (unpatched) puts the block into its finalized
\* set, and the request is appended.
\* Witness: OM DEBUG "Key recovered. Volume:{}, Bucket:{}, Key:{}"
\*   (OMRecoverLeaseRequest.java:157), om-audit "op=RECOVER_LEASE ...
\*   ret=SUCCESS"; nothing on the datanode until it is applied.
FinalizeBlock ==
    /\ up[Leader]
    /\ ~HasFinalizeEntry
    /\ Len(log) < MaxLogLen
    /\ log' = Append(log, [op |-> "FinalizeBlock", len |-> 0])
    /\ txFinalized' = IF CheckFinalizedAtApply THEN txFinalized ELSE TRUE
    /\ UNCHANGED <<up, applied, committedLen, finalized, finalizedLen,
                   pending, writerLen>>

\* The writer writes more data through the data stream (no Raft).
\* Witness: DEBUG "{}: getStreamDataChannel {} containerID={} pipelineID={}
\*   traceID={}" (ContainerStateMachine.java:724).
StreamWrite ==
    /\ DataStreamEnabled
    /\ writerLen < MaxLen
    /\ writerLen' = writerLen + 1
    /\ UNCHANGED <<up, log, applied, committedLen, finalized, finalizedLen,
                   txFinalized, pending>>

-----------------------------------------------------------------------------
(* Every datanode                                                          *)

\* applyTransaction of FinalizeBlock (KeyValueHandler.handleFinalizeBlock):
\* the block enters the finalized set; the reply carries the length read.
\* Witness: INFO "Finalized Block request received {} " (KeyValueHandler.java:750),
\*   INFO "Block has been finalized {} " (KeyValueHandler.java:760).
ApplyFinalizeBlock(d) ==
    /\ up[d]
    /\ applied[d] < Len(log)
    /\ NextEntry(d).op = "FinalizeBlock"
    /\ applied' = [applied EXCEPT ![d] = applied[d] + 1]
    /\ finalized' = [finalized EXCEPT ![d] = TRUE]
    /\ finalizedLen' = [finalizedLen EXCEPT ![d] = committedLen[d]]
    /\ txFinalized' = IF CheckFinalizedAtApply /\ d = Leader
                        THEN TRUE ELSE txFinalized
    /\ UNCHANGED <<up, log, committedLen, pending, writerLen>>

\* applyTransaction of a PutBlock that is executed (handlePutBlock /
\* handleWriteChunk): the committed length becomes the entry's length.
\* Witness: DEBUG "Block {} successfully committed with bcsId {} chunk size {}"
\*   (BlockManagerImpl.java:308), DEBUG "gid {} : ApplyTransaction completed.
\*   cmd PutBlock logIndex {} msg : {} Container Result: SUCCESS"
\*   (ContainerStateMachine.java:1209).
ApplyPutBlock(d) ==
    /\ up[d]
    /\ applied[d] < Len(log)
    /\ NextEntry(d).op = "PutBlock"
    /\ ~RejectsAtApply(d)
    /\ applied' = [applied EXCEPT ![d] = applied[d] + 1]
    /\ committedLen' = [committedLen EXCEPT ![d] = NextEntry(d).len]
    /\ UNCHANGED <<up, log, finalized, finalizedLen, txFinalized, pending,
                   writerLen>>

\* Patched only: applyTransaction of a PutBlock on a finalized block is
\* rejected without marking the container unhealthy.
\* Witness: WARN "Operation: PutBlock , Trace ID: {} , Message: {} , Result:
\*   BLOCK_ALREADY_FINALIZED , StorageContainerException Occurred."
\*   (ContainerUtils.java:99, logger KeyValueHandler).
RejectPutBlock(d) ==
    /\ up[d]
    /\ applied[d] < Len(log)
    /\ NextEntry(d).op = "PutBlock"
    /\ RejectsAtApply(d)
    /\ applied' = [applied EXCEPT ![d] = applied[d] + 1]
    /\ UNCHANGED <<up, log, committedLen, finalized, finalizedLen,
                   txFinalized, pending, writerLen>>

\* A PutBlock sent through the data stream (streamCommand / streamPutBlock)
\* is dispatched to the handler on each datanode directly, never passing
\* startTransaction.
\* Witness: DEBUG "Block {} successfully committed with bcsId {} chunk size {}"
\*   (BlockManagerImpl.java:308) without an "ApplyTransaction completed" line.
StreamPutBlock(d) ==
    /\ DataStreamEnabled
    /\ up[d]
    /\ committedLen[d] < writerLen
    /\ ~RejectsAtApply(d)
    /\ committedLen' = [committedLen EXCEPT ![d] = writerLen]
    /\ UNCHANGED <<up, log, applied, finalized, finalizedLen, txFinalized,
                   pending, writerLen>>

\* Patched only: a stream PutBlock on a finalized block is rejected.  No
\* state changes (a stuttering step kept for the log mirror).
\* Witness: WARN "Operation: PutBlock , ... , Result: BLOCK_ALREADY_FINALIZED ,
\*   StorageContainerException Occurred." (ContainerUtils.java:99).
RejectStreamPutBlock(d) ==
    /\ DataStreamEnabled
    /\ up[d]
    /\ committedLen[d] < writerLen
    /\ RejectsAtApply(d)
    /\ UNCHANGED vars

\* Datanode process killed.  A PutBlock pending on the leader is lost.
\* Witness: none; inferred from the next STARTUP_MSG of HddsDatanodeService
\*   without a SHUTDOWN_MSG in between.
Crash(d) ==
    /\ up[d]
    /\ up' = [up EXCEPT ![d] = FALSE]
    /\ pending' = IF d = Leader THEN 0 ELSE pending
    /\ UNCHANGED <<log, applied, committedLen, finalized, finalizedLen,
                   txFinalized, writerLen>>

\* Graceful stop (SIGTERM).
\* Witness: ERROR "RECEIVED SIGNAL 15: SIGTERM" (SignalLogger.java:70),
\*   "Ozone container server stopped." (DatanodeStateMachine.java:640),
\*   "SHUTDOWN_MSG: Shutting down HddsDatanodeService at {}".
Stop(d) ==
    /\ up[d]
    /\ up' = [up EXCEPT ![d] = FALSE]
    /\ pending' = IF d = Leader THEN 0 ELSE pending
    /\ UNCHANGED <<log, applied, committedLen, finalized, finalizedLen,
                   txFinalized, writerLen>>

\* Restart: the container state machine resumes after its last applied
\* index; the finalized set is reloaded from FINALIZE_BLOCKS.
\* Witness: "STARTUP_MSG: Starting HddsDatanodeService", "{}: Setting the
\*   last applied index to {}" (ContainerStateMachine.java:357).
Restart(d) ==
    /\ ~up[d]
    /\ up' = [up EXCEPT ![d] = TRUE]
    /\ UNCHANGED <<log, applied, committedLen, finalized, finalizedLen,
                   txFinalized, pending, writerLen>>

-----------------------------------------------------------------------------

Next ==
    \/ StartPutBlock
    \/ AppendPutBlock
    \/ FinalizeBlock
    \/ StreamWrite
    \/ \E d \in Datanodes :
         \/ ApplyFinalizeBlock(d)
         \/ ApplyPutBlock(d)
         \/ RejectPutBlock(d)
         \/ StreamPutBlock(d)
         \/ RejectStreamPutBlock(d)
         \/ Crash(d)
         \/ Stop(d)
         \/ Restart(d)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(* Invariants                                                              *)

\* Once a datanode has applied FinalizeBlock, no PutBlock changes the
\* committed length of the block on that datanode: it stays at the length
\* FinalizeBlock reported (the length OM closes the file at).
NoPutBlockAfterFinalize ==
    \A d \in Datanodes : finalized[d] => committedLen[d] = finalizedLen[d]

=============================================================================
