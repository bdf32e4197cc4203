--------------------------- MODULE ScmFinalization ---------------------------
(***************************************************************************)
(* HDDS-17089 (HDDS-14496-zdu branch): an SCM keeps its apparent version   *)
(* in the VERSION file (SCMStorageConfig) and in #LAYOUTVERSION of the SCM *)
(* DB meta table.  A snapshot install first replaces scm.db with the       *)
(* leader's checkpoint and only later finalizes from it (writing VERSION). *)
(* A crash in between leaves a finalized DB under a pre-finalized VERSION  *)
(* file.  On restart the version manager is built from VERSION only, the   *)
(* FINALIZE entry is below the DB's index and is never replayed, and the   *)
(* SCM fences (shuts down) every finalized datanode that registers.        *)
(*                                                                         *)
(* Granularity: one action = one observable log step; the comment above    *)
(* each action names the Ozone log line(s) witnessing it.                  *)
(*                                                                         *)
(* Abstractions:                                                           *)
(*  - two apparent versions: 0 = INITIAL_VERSION (pre-finalized),          *)
(*    1 = ZDU (100) (finalized).                                           *)
(*  - the SCM Ratis log is a sequence of "tx" (any other SCM transaction)  *)
(*    and one "finalize" entry; log is a ghost of the whole history and    *)
(*    purgedIndex marks the prefix purged on the leader.                   *)
(*  - an SCM starts its datanode server (Register/Fence) once it has       *)
(*    caught up: dbIndex[s] = Len(log), not inside an install.             *)
(*  - finalize is forced (allowed while a peer SCM is down).               *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    Scms,                     \* SCM node ids, e.g. {s1, s2, s3}
    Datanodes,                \* datanode ids, e.g. {d1}
    NoNode,                   \* model value: no leader known
    MaxLog,                   \* bound on the SCM Ratis log length
    FinalizeFromDbOnStartup   \* TRUE = the HDDS-17089 patch

ASSUME NoNode \notin Scms
ASSUME MaxLog \in Nat /\ MaxLog >= 1
ASSUME FinalizeFromDbOnStartup \in BOOLEAN

PreFinalized == 0   \* INITIAL_VERSION (0)
Finalized    == 1   \* ZDU (100)
Versions     == {PreFinalized, Finalized}
Max(a, b) == IF a >= b THEN a ELSE b

VARIABLES
    up,           \* up[s]: SCM process s is running
    leader,       \* current SCM leader or NoNode
    dbIndex,      \* dbIndex[s]: last Ratis index applied to scm.db of s
    dbVersion,    \* dbVersion[s]: #LAYOUTVERSION in scm.db of s
    versionFile,  \* versionFile[s]: apparent version in VERSION of s (and in
                  \*   the running ScmVersionManager, written together)
    install,      \* install[s]: "Idle" | "Downloaded" | "Swapped"
    ckptIndex,    \* ckptIndex[s]: index of the downloaded checkpoint
    log,          \* SCM Ratis log entries, "tx" | "finalize" (ghost)
    purgedIndex,  \* entries 1..purgedIndex are purged on the leader
    registered,   \* registered[s]: datanodes registered with SCM s
    dnVersion,    \* dnVersion[d]: apparent version of datanode d
    dnFenced      \* dnFenced[d]: d was shut down by a registration rejection

vars == <<up, leader, dbIndex, dbVersion, versionFile, install, ckptIndex,
          log, purgedIndex, registered, dnVersion, dnFenced>>

Phases == {"Idle", "Downloaded", "Swapped"}
Entries == {"tx", "finalize"}

\* #LAYOUTVERSION of a DB that has applied log[1..i]
DbVersionAt(i) ==
    IF \E j \in 1..i : log[j] = "finalize" THEN Finalized ELSE PreFinalized

CaughtUp(s) == up[s] /\ install[s] = "Idle" /\ dbIndex[s] = Len(log)

TypeOK ==
    /\ up \in [Scms -> BOOLEAN]
    /\ leader \in Scms \cup {NoNode}
    /\ dbIndex \in [Scms -> 0..MaxLog]
    /\ dbVersion \in [Scms -> Versions]
    /\ versionFile \in [Scms -> Versions]
    /\ install \in [Scms -> Phases]
    /\ ckptIndex \in [Scms -> 0..MaxLog]
    /\ log \in Seq(Entries) /\ Len(log) <= MaxLog
    /\ purgedIndex \in 0..MaxLog
    /\ registered \in [Scms -> SUBSET Datanodes]
    /\ dnVersion \in [Datanodes -> Versions]
    /\ dnFenced \in [Datanodes -> BOOLEAN]

\* Pre-finalized cluster: all SCMs up, no leader yet, no datanode registered.
Init ==
    /\ up = [s \in Scms |-> TRUE]
    /\ leader = NoNode
    /\ dbIndex = [s \in Scms |-> 0]
    /\ dbVersion = [s \in Scms |-> PreFinalized]
    /\ versionFile = [s \in Scms |-> PreFinalized]
    /\ install = [s \in Scms |-> "Idle"]
    /\ ckptIndex = [s \in Scms |-> 0]
    /\ log = <<>>
    /\ purgedIndex = 0
    /\ registered = [s \in Scms |-> {}]
    /\ dnVersion = [d \in Datanodes |-> PreFinalized]
    /\ dnFenced = [d \in Datanodes |-> FALSE]

-----------------------------------------------------------------------------
(* Leader side                                                             *)

\* Witness: Ratis "{}: changes role from CANDIDATE to LEADER at term {} for
\*   changeToLeader" (RaftServerImpl.java:393), "current SCM {} becomes leader
\*   of term {}" (SCMStateMachine.java:315), "Leader {} is ready since
\*   appliedIndex == startIndex == {}" (LeaderStateImpl.java:309).
BecomeLeader(s) ==
    /\ CaughtUp(s)
    /\ leader # s
    /\ leader' = s
    /\ UNCHANGED <<up, dbIndex, dbVersion, versionFile, install, ckptIndex,
                   log, purgedIndex, registered, dnVersion, dnFenced>>

\* Any other SCM Ratis transaction (container, pipeline, ...).
\* Witness: none at INFO (DEBUG "{}: applyTransaction {}",
\*   SCMStateMachine.java:164); the Ratis indices in later lines count it.
Propose ==
    /\ leader # NoNode
    /\ up[leader]
    /\ Len(log) < MaxLog
    /\ log' = Append(log, "tx")
    /\ UNCHANGED <<up, leader, dbIndex, dbVersion, versionFile, install,
                   ckptIndex, purgedIndex, registered, dnVersion, dnFenced>>

\* ozone admin scm finalizeupgrade --force: the leader submits FINALIZE.
\* Witness: WARN "Forcing upgrade finalization by skipping SCM peer and
\*   datanode software version checks" (SCMClientProtocolServer.java:1187);
\*   scm-audit "op=FINALIZE_SCM_UPGRADE {"force":"true"}".
Finalize ==
    /\ leader # NoNode
    /\ up[leader]
    /\ \A j \in 1..Len(log) : log[j] # "finalize"
    /\ Len(log) < MaxLog
    /\ log' = Append(log, "finalize")
    /\ UNCHANGED <<up, leader, dbIndex, dbVersion, versionFile, install,
                   ckptIndex, purgedIndex, registered, dnVersion, dnFenced>>

\* Witness: "Current Snapshot Index {}, takeSnapshot took {} ms"
\*   (SCMStateMachine.java:366) / Ratis "{}: Took a snapshot at index {}"
\*   (StateMachineUpdater.java:307); the log is then purged up to it
\*   (ozone.scm.ha.ratis.log.purge.enabled = true).
PurgeLog ==
    /\ leader # NoNode
    /\ up[leader]
    /\ purgedIndex < dbIndex[leader]
    /\ purgedIndex' = dbIndex[leader]
    /\ UNCHANGED <<up, leader, dbIndex, dbVersion, versionFile, install,
                   ckptIndex, log, registered, dnVersion, dnFenced>>

\* The leader sends a finalize command to a registered pre-finalized DN.
\* Witness (SCM): "Sending finalize command to datanode {} with apparent
\*   version {} which is less than SCM's finalized apparent version {}"
\*   (SCMNodeManager.java:794); (DN) "Processing FinalizeVersionCommandHandler
\*   command." (FinalizeVersionCommandHandler.java:69), "Finalize upgrade
\*   called." (:87), "Version {} has been finalized." (ComponentVersionManager.java:100).
FinalizeDatanode(d) ==
    /\ leader # NoNode
    /\ up[leader]
    /\ versionFile[leader] = Finalized
    /\ d \in registered[leader]
    /\ ~dnFenced[d]
    /\ dnVersion[d] = PreFinalized
    /\ dnVersion' = [dnVersion EXCEPT ![d] = Finalized]
    /\ UNCHANGED <<up, leader, dbIndex, dbVersion, versionFile, install,
                   ckptIndex, log, purgedIndex, registered, dnFenced>>

-----------------------------------------------------------------------------
(* Every SCM                                                               *)

\* Ratis apply of the next log entry.  For FINALIZE, VERSION is written
\* first, then #LAYOUTVERSION with the buffered DB batch (with dbIndex).
\* Witness (finalize entry): "Version {} has been finalized."
\*   (ComponentVersionManager.java:100) for each step up to ZDU (100), or
\*   "Finalize attempt on a version which has already been finalized. {} ..."
\*   (:149) on replay; "tx" entries: DEBUG only.
ApplyEntry(s) ==
    /\ up[s]
    /\ install[s] = "Idle"
    /\ dbIndex[s] < Len(log)
    /\ dbIndex[s] >= purgedIndex
    /\ dbIndex' = [dbIndex EXCEPT ![s] = dbIndex[s] + 1]
    /\ IF log[dbIndex[s] + 1] = "finalize"
         THEN /\ versionFile' = [versionFile EXCEPT ![s] = Finalized]
              /\ dbVersion' = [dbVersion EXCEPT ![s] = Finalized]
         ELSE UNCHANGED <<versionFile, dbVersion>>
    /\ UNCHANGED <<up, leader, install, ckptIndex, log, purgedIndex,
                   registered, dnVersion, dnFenced>>

\* A follower behind the purge point is told to install a snapshot and
\* downloads the leader's checkpoint.
\* Witness: Ratis "{}: Received notification to install snapshot at index {}"
\*   (SnapshotInstallationHandler.java:262), "Received install snapshot
\*   notification from SCM leader: {} with term index: {}"
\*   (SCMStateMachine.java:246), "Downloaded checkpoint from Leader {} to
\*   the location {}" (SCMHAManagerImpl.java:195).
NotifyInstall(s) ==
    /\ up[s]
    /\ leader # NoNode
    /\ leader # s
    /\ up[leader]
    /\ install[s] = "Idle"
    /\ dbIndex[s] < purgedIndex
    /\ install' = [install EXCEPT ![s] = "Downloaded"]
    /\ ckptIndex' = [ckptIndex EXCEPT ![s] = dbIndex[leader]]
    /\ UNCHANGED <<up, leader, dbIndex, dbVersion, versionFile, log,
                   purgedIndex, registered, dnVersion, dnFenced>>

\* HAUtils.replaceDBWithCheckpoint: scm.db (with its #LAYOUTVERSION) is now
\* the checkpoint; VERSION is not written yet.
\* Witness: "{}: Install checkpoint {}" (SCMHAManagerImpl.java:279),
\*   "Replaced DB with checkpoint, term: {}, index: {}" (:317).
ReplaceDb(s) ==
    /\ up[s]
    /\ install[s] = "Downloaded"
    /\ dbIndex' = [dbIndex EXCEPT ![s] = ckptIndex[s]]
    /\ dbVersion' = [dbVersion EXCEPT ![s] = DbVersionAt(ckptIndex[s])]
    /\ install' = [install EXCEPT ![s] = "Swapped"]
    /\ UNCHANGED <<up, leader, versionFile, ckptIndex, log, purgedIndex,
                   registered, dnVersion, dnFenced>>

\* End of startServices: FinalizationStateManagerImpl.reinitialize ->
\* RatisBasedVersionManager.finalizeFromSnapshotIfRequired writes VERSION.
\* Witness: "New snapshot received with higher apparent version {}.
\*   Attempting to finalize to that version." (RatisBasedVersionManager.java:52),
\*   "Version {} has been finalized." (ComponentVersionManager.java:100),
\*   "Reloaded SCM state with Term: {} and Index: {}" (SCMHAManagerImpl.java:332),
\*   "{}: SCMStateMachine is reinitializing. newTermIndex = {}"
\*   (SCMStateMachine.java:539 on the ZDU branch).
FinalizeFromSnapshot(s) ==
    /\ up[s]
    /\ install[s] = "Swapped"
    /\ versionFile' = [versionFile EXCEPT ![s] = Max(versionFile[s], dbVersion[s])]
    /\ install' = [install EXCEPT ![s] = "Idle"]
    /\ UNCHANGED <<up, leader, dbIndex, dbVersion, ckptIndex, log,
                   purgedIndex, registered, dnVersion, dnFenced>>

\* A caught-up SCM accepts the registration of a datanode whose apparent
\* version is not above its own.
\* Witness: "Registered datanode: {}" (SCMNodeManager.java:444).
Register(s, d) ==
    /\ CaughtUp(s)
    /\ ~dnFenced[d]
    /\ d \notin registered[s]
    /\ dnVersion[d] <= versionFile[s]
    /\ registered' = [registered EXCEPT ![s] = registered[s] \cup {d}]
    /\ UNCHANGED <<up, leader, dbIndex, dbVersion, versionFile, install,
                   ckptIndex, log, purgedIndex, dnVersion, dnFenced>>

\* SCMNodeManager.shouldFenceDatanode rejects a datanode whose apparent
\* version is above the SCM's; RegisterEndpointTask shuts the datanode down.
\* Witness (SCM): ERROR "Datanode {} has apparent version {} which is higher
\*   than SCM apparent version {}. SCM must finalize before datanodes."
\*   (SCMNodeManager.java:2076); (DN) ERROR "SCM rejected this datanode's
\*   registration with software version {} and apparent version {}. This
\*   datanode will shut down. ..." (RegisterEndpointTask.java:122),
\*   "DatanodeStateMachine Shutdown due to an critical error"
\*   (DatanodeStateMachine.java:385), "Exiting with status 1: ExitException".
FenceDatanode(s, d) ==
    /\ CaughtUp(s)
    /\ ~dnFenced[d]
    /\ d \notin registered[s]
    /\ dnVersion[d] > versionFile[s]
    /\ dnFenced' = [dnFenced EXCEPT ![d] = TRUE]
    /\ registered' = [x \in Scms |-> registered[x] \ {d}]
    /\ UNCHANGED <<up, leader, dbIndex, dbVersion, versionFile, install,
                   ckptIndex, log, purgedIndex, dnVersion>>

\* kill -9 / OOM kill / host failure, at any point (incl. inside an install).
\* Witness: none; inferred from the next STARTUP_MSG of that SCM without a
\*   SHUTDOWN_MSG in between.
Crash(s) ==
    /\ up[s]
    /\ up' = [up EXCEPT ![s] = FALSE]
    /\ install' = [install EXCEPT ![s] = "Idle"]
    /\ ckptIndex' = [ckptIndex EXCEPT ![s] = 0]
    /\ registered' = [registered EXCEPT ![s] = {}]
    /\ leader' = IF leader = s THEN NoNode ELSE leader
    /\ UNCHANGED <<dbIndex, dbVersion, versionFile, log, purgedIndex,
                   dnVersion, dnFenced>>

\* Graceful stop (SIGTERM); waits for a running reinitialize.
\* Witness: ERROR "RECEIVED SIGNAL 15: SIGTERM" (SignalLogger.java:70),
\*   "Stopping SCM HA services." (StorageContainerManager.java:1764),
\*   "SHUTDOWN_MSG: Shutting down StorageContainerManager at {}".
Stop(s) ==
    /\ up[s]
    /\ install[s] = "Idle"
    /\ up' = [up EXCEPT ![s] = FALSE]
    /\ registered' = [registered EXCEPT ![s] = {}]
    /\ leader' = IF leader = s THEN NoNode ELSE leader
    /\ UNCHANGED <<dbIndex, dbVersion, versionFile, install, ckptIndex, log,
                   purgedIndex, dnVersion, dnFenced>>

\* The version manager is built from VERSION.  With the patch,
\* StorageContainerManager.initializeSystemManagers then calls
\* finalizeToDBVersionIfRequired, finalizing up to the DB's #LAYOUTVERSION.
\* Witness: "STARTUP_MSG: Starting StorageContainerManager", "Initializing
\*   version manager with apparent version {} and software version {}"
\*   (ComponentVersionManager.java:65); patched and DB ahead: a warning and
\*   "Version {} has been finalized." (ComponentVersionManager.java:100).
Restart(s) ==
    /\ ~up[s]
    /\ up' = [up EXCEPT ![s] = TRUE]
    /\ versionFile' = IF FinalizeFromDbOnStartup
                        THEN [versionFile EXCEPT ![s] = Max(versionFile[s], dbVersion[s])]
                        ELSE versionFile
    /\ UNCHANGED <<leader, dbIndex, dbVersion, install, ckptIndex, log,
                   purgedIndex, registered, dnVersion, dnFenced>>

-----------------------------------------------------------------------------

Next ==
    \/ Propose
    \/ Finalize
    \/ PurgeLog
    \/ \E d \in Datanodes : FinalizeDatanode(d)
    \/ \E s \in Scms :
         \/ BecomeLeader(s)
         \/ ApplyEntry(s)
         \/ NotifyInstall(s)
         \/ ReplaceDb(s)
         \/ FinalizeFromSnapshot(s)
         \/ Crash(s)
         \/ Stop(s)
         \/ Restart(s)
         \/ \E d \in Datanodes : Register(s, d) \/ FenceDatanode(s, d)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(* Invariants                                                              *)

\* A running SCM that is not inside the DB-swap-to-finalize window of an
\* install has a VERSION file at or above the #LAYOUTVERSION of its DB.
VersionFileCoversDb ==
    \A s \in Scms :
        (up[s] /\ install[s] # "Swapped") => versionFile[s] >= dbVersion[s]

\* No finalized datanode is ever shut down by a registration rejection.
NoFinalizedDatanodeFenced ==
    \A d \in Datanodes : ~(dnFenced[d] /\ dnVersion[d] = Finalized)

=============================================================================
