---------------------------- MODULE ScmSecretKeys ----------------------------
(***************************************************************************)
(* HDDS-16923: SCM snapshot install replaces scm.db before it saves the    *)
(* leader's secret keys.  If the SCM stops in between (FailSave / Crash),  *)
(* scm.db is at the checkpoint index while the local key file              *)
(* (LocalSecretKeyStore, secret_keys.json) is older.  When that SCM later  *)
(* becomes leader it reloads the stale file and replicates it through      *)
(* SecretKeyState.updateKeys, dropping unexpired keys on every SCM.        *)
(*                                                                         *)
(* Granularity: one action = one observable log step of one SCM.  The      *)
(* comment above each action names the Ozone log line(s) witnessing it.    *)
(*                                                                         *)
(* Abstractions:                                                           *)
(*  - key ids are 1..MaxKeys in creation order; a key expires in id order  *)
(*    and the newest key never expires (rotation < expiry duration).       *)
(*  - the Ratis log holds only the replicated updateKeys entries; entry i  *)
(*    is the full key list (a set of key ids) that updateKeys installs.    *)
(*    dbIndex[s] counts the entries applied to scm.db of SCM s.            *)
(*  - log is a ghost of the whole history; purgedIndex marks the prefix    *)
(*    the leader has purged (only reachable through a snapshot install).   *)
(*  - a leader is "ready" once it applied the whole log, so BecomeLeader   *)
(*    requires dbIndex[s] = Len(log) (Ratis: appliedIndex == startIndex).  *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    Nodes,                 \* SCM node ids, e.g. {s1, s2, s3}
    NoNode,                \* model value: no leader known
    MaxKeys,               \* bound on generated secret keys
    MaxLog,                \* bound on replicated updateKeys entries
    SaveKeysBeforeDbSwap   \* TRUE = the HDDS-16923 patch

ASSUME NoNode \notin Nodes
ASSUME MaxKeys \in Nat /\ MaxLog \in Nat
ASSUME SaveKeysBeforeDbSwap \in BOOLEAN

VARIABLES
    up,           \* up[s]: the SCM process of s is running
    leader,       \* the current Ratis/SCM leader, or NoNode
    dbIndex,      \* dbIndex[s]: last log entry applied to scm.db of s
    keyFile,      \* keyFile[s]: key ids in the local secret key file of s
    memKeys,      \* memKeys[s]: key ids in SecretKeyState memory of s
    install,      \* install[s]: snapshot install phase of s
    ckptIndex,    \* ckptIndex[s]: index of the checkpoint s downloaded
    fetchedKeys,  \* fetchedKeys[s]: keys s fetched from the leader
    log,          \* replicated updateKeys entries (ghost of the full log)
    purgedIndex,  \* entries 1..purgedIndex are purged from the leader log
    lastKey,      \* highest key id generated so far (0 = none)
    expired       \* key ids that have expired

vars == <<up, leader, dbIndex, keyFile, memKeys, install, ckptIndex,
          fetchedKeys, log, purgedIndex, lastKey, expired>>

Keys == 1..MaxKeys
\* install phases.  Unpatched order: Idle -> Downloaded -> Fetched ->
\* Swapped (ReplaceDb) -> Idle (SaveKeys).  Patched order: Idle ->
\* Downloaded -> Fetched -> Saved (SaveKeys) -> Idle (ReplaceDb).
Phases == {"Idle", "Downloaded", "Fetched", "Swapped", "Saved"}

\* the key list scm.db "implies" at log index i
KeysAt(i) == IF i = 0 THEN {} ELSE log[i]

Generated == 1..lastKey

TypeOK ==
    /\ up \in [Nodes -> BOOLEAN]
    /\ leader \in Nodes \cup {NoNode}
    /\ dbIndex \in [Nodes -> 0..MaxLog]
    /\ keyFile \in [Nodes -> SUBSET Keys]
    /\ memKeys \in [Nodes -> SUBSET Keys]
    /\ install \in [Nodes -> Phases]
    /\ ckptIndex \in [Nodes -> 0..MaxLog]
    /\ fetchedKeys \in [Nodes -> SUBSET Keys]
    /\ log \in Seq(SUBSET Keys) /\ Len(log) <= MaxLog
    /\ purgedIndex \in 0..MaxLog
    /\ lastKey \in 0..MaxKeys
    /\ expired \in SUBSET Keys

\* Fresh cluster: every SCM up, no leader, no key, empty log.
Init ==
    /\ up = [s \in Nodes |-> TRUE]
    /\ leader = NoNode
    /\ dbIndex = [s \in Nodes |-> 0]
    /\ keyFile = [s \in Nodes |-> {}]
    /\ memKeys = [s \in Nodes |-> {}]
    /\ install = [s \in Nodes |-> "Idle"]
    /\ ckptIndex = [s \in Nodes |-> 0]
    /\ fetchedKeys = [s \in Nodes |-> {}]
    /\ log = <<>>
    /\ purgedIndex = 0
    /\ lastKey = 0
    /\ expired = {}

-----------------------------------------------------------------------------
(* Leader side                                                             *)

\* Witness (leader): "SecretKey rotation is happening, new key generated {}"
\*   (SecretKeyManager.java:123).  The new list is then applied on every SCM
\*   by ReplicateKeys ("Updating keys with {}").
RotateKey ==
    /\ leader # NoNode
    /\ up[leader]
    /\ install[leader] = "Idle"
    /\ dbIndex[leader] = Len(log)
    /\ memKeys[leader] # {}
    /\ lastKey < MaxKeys
    /\ Len(log) < MaxLog
    /\ lastKey' = lastKey + 1
    /\ log' = Append(log, (memKeys[leader] \ expired) \cup {lastKey + 1})
    /\ UNCHANGED <<up, leader, dbIndex, keyFile, memKeys, install, ckptIndex,
                   fetchedKeys, purgedIndex, expired>>

\* Witness: none of its own; the key's "expire at: <Instant>" in any key
\*   list line (ManagedSecretKey.toString) is passed by the log timestamp.
ExpireKey(k) ==
    /\ k \in Generated \ expired
    /\ k < lastKey
    /\ \A j \in Generated \ expired : k <= j
    /\ expired' = expired \cup {k}
    /\ UNCHANGED <<up, leader, dbIndex, keyFile, memKeys, install, ckptIndex,
                   fetchedKeys, log, purgedIndex, lastKey>>

\* Witness (leader): "Current Snapshot Index {}, takeSnapshot took {} ms"
\*   (SCMStateMachine.java:366) / Ratis "{}: Took a snapshot at index {}"
\*   (StateMachineUpdater.java:307); Ratis then purges the log up to it
\*   (ozone.scm.ha.ratis.log.purge.enabled).
PurgeLog ==
    /\ leader # NoNode
    /\ up[leader]
    /\ purgedIndex < dbIndex[leader]
    /\ purgedIndex' = dbIndex[leader]
    /\ UNCHANGED <<up, leader, dbIndex, keyFile, memKeys, install, ckptIndex,
                   fetchedKeys, log, lastKey, expired>>

\* Witness: Ratis "{}: changes role from CANDIDATE to LEADER at term {} for
\*   changeToLeader" (RaftServerImpl.java:393), "current SCM {} becomes leader
\*   of term {}" (SCMStateMachine.java:315), "Leader {} is ready since
\*   appliedIndex == startIndex == {}" (LeaderStateImpl.java:309), then, only
\*   if the in-memory key state is empty (checkAndInitialize):
\*   "Initializing SecretKeys." (SecretKeyManager.java:78),
\*   "Loaded {} from {}" (LocalSecretKeyStore.java:83) and either
\*   "Keys reloaded: {}" (SecretKeyManager.java:95) or
\*   "No valid key has been loaded. A new key is generated: {}" (:92).
\*   The list is replicated (updateKeys), applied by ReplicateKeys.
BecomeLeader(s) ==
    /\ up[s]
    /\ install[s] = "Idle"
    /\ leader # s
    /\ dbIndex[s] = Len(log)
    /\ leader' = s
    /\ IF memKeys[s] # {}
         THEN UNCHANGED <<log, lastKey>>
       ELSE IF keyFile[s] \ expired # {}
         THEN /\ Len(log) < MaxLog
              /\ log' = Append(log, keyFile[s] \ expired)      \* Keys reloaded
              /\ UNCHANGED lastKey
       ELSE /\ lastKey < MaxKeys                                \* new key
            /\ Len(log) < MaxLog
            /\ lastKey' = lastKey + 1
            /\ log' = Append(log, {lastKey + 1})
    /\ UNCHANGED <<up, dbIndex, keyFile, memKeys, install, ckptIndex,
                   fetchedKeys, purgedIndex, expired>>

-----------------------------------------------------------------------------
(* Every SCM                                                               *)

\* Ratis apply of a replicated SecretKeyState.updateKeys entry.
\* Witness: "Updating keys with {}" (SecretKeyStateImpl.java:111),
\*   "Current key updated {}" (:126), "Saved {} to file {}"
\*   (LocalSecretKeyStore.java:107), not right after "SCMStateMachine is
\*   reinitializing".
ReplicateKeys(s) ==
    /\ up[s]
    /\ install[s] = "Idle"
    /\ dbIndex[s] < Len(log)
    /\ dbIndex[s] >= purgedIndex
    /\ dbIndex' = [dbIndex EXCEPT ![s] = dbIndex[s] + 1]
    /\ memKeys' = [memKeys EXCEPT ![s] = log[dbIndex[s] + 1]]
    /\ keyFile' = [keyFile EXCEPT ![s] = log[dbIndex[s] + 1]]
    /\ UNCHANGED <<up, leader, install, ckptIndex, fetchedKeys, log,
                   purgedIndex, lastKey, expired>>

\* A follower behind the leader's purge point is told to install a snapshot
\* and downloads the leader's checkpoint.
\* Witness: Ratis "{}: Received notification to install snapshot at index {}"
\*   (SnapshotInstallationHandler.java:262), "Received install snapshot
\*   notification from SCM leader: {} with term index: {}"
\*   (SCMStateMachine.java:246), "Downloading checkpoint from leader SCM {}
\*   and reloading state from the checkpoint." (SCMHAManagerImpl.java:260),
\*   "Downloaded checkpoint from Leader {} to the location {}" (:195).
NotifyInstall(s) ==
    /\ up[s]
    /\ leader # NoNode
    /\ leader # s
    /\ up[leader]
    /\ install[s] = "Idle"
    /\ dbIndex[s] < purgedIndex
    /\ install' = [install EXCEPT ![s] = "Downloaded"]
    /\ ckptIndex' = [ckptIndex EXCEPT ![s] = dbIndex[leader]]
    /\ UNCHANGED <<up, leader, dbIndex, keyFile, memKeys, fetchedKeys, log,
                   purgedIndex, lastKey, expired>>

\* Witness: "Getting secret keys from leader {}." (SCMHAManagerImpl.java:208),
\*   "Got secret keys from leaders {}" (SCMStateMachine.java:264, full list).
FetchKeys(s) ==
    /\ up[s]
    /\ install[s] = "Downloaded"
    /\ leader # NoNode
    /\ up[leader]
    /\ memKeys[leader] # {}
    /\ fetchedKeys' = [fetchedKeys EXCEPT ![s] = memKeys[leader]]
    /\ install' = [install EXCEPT ![s] = "Fetched"]
    /\ UNCHANGED <<up, leader, dbIndex, keyFile, memKeys, ckptIndex, log,
                   purgedIndex, lastKey, expired>>

\* SCMHAManagerImpl.installCheckpoint moves the checkpoint into place.
\* Witness: "{}: Install checkpoint {}" (SCMHAManagerImpl.java:279),
\*   "Replaced DB with checkpoint, term: {}, index: {}" (:317),
\*   "Reloaded SCM state with Term: {} and Index: {}" (:332).
ReplaceDb(s) ==
    /\ up[s]
    /\ install[s] = IF SaveKeysBeforeDbSwap THEN "Saved" ELSE "Fetched"
    /\ dbIndex' = [dbIndex EXCEPT ![s] = ckptIndex[s]]
    /\ install' = [install EXCEPT ![s] =
                     IF SaveKeysBeforeDbSwap THEN "Idle" ELSE "Swapped"]
    /\ UNCHANGED <<up, leader, keyFile, memKeys, ckptIndex, fetchedKeys, log,
                   purgedIndex, lastKey, expired>>

\* SecretKeyManager.reinitialize with the fetched keys: memory + file.
\* Witness: "{}: SCMStateMachine is reinitializing. newTermIndex = {}"
\*   (SCMStateMachine.java:540, unpatched order only), then
\*   "Updating keys with {}" (SecretKeyStateImpl.java:111),
\*   "Current key updated {}" (:126), "Saved {} to file {}"
\*   (LocalSecretKeyStore.java:107).
SaveKeys(s) ==
    /\ up[s]
    /\ install[s] = IF SaveKeysBeforeDbSwap THEN "Fetched" ELSE "Swapped"
    /\ memKeys' = [memKeys EXCEPT ![s] = fetchedKeys[s]]
    /\ keyFile' = [keyFile EXCEPT ![s] = fetchedKeys[s]]
    /\ install' = [install EXCEPT ![s] =
                     IF SaveKeysBeforeDbSwap THEN "Saved" ELSE "Idle"]
    /\ UNCHANGED <<up, leader, dbIndex, ckptIndex, fetchedKeys, log,
                   purgedIndex, lastKey, expired>>

\* LocalSecretKeyStore.save throws (I/O error, full disk): reinitialize
\* fails, Ratis closes the state machine and the SCM terminates.  The key
\* file is not updated; scm.db stays as it is (swapped when unpatched,
\* untouched when patched).
\* Witness: ERROR "Failed to reinitialize SCMStateMachine."
\*   (SCMStateMachine.java:536) with "Error saving SecretKeys to file" in the
\*   trace, "{} caught a Throwable." (StateMachineUpdater.java:206),
\*   "Terminating with exit status 0: scm statemachine is closed by ratis,
\*   terminate SCM" (StorageContainerManager.java:1817), SHUTDOWN_MSG.
FailSave(s) ==
    /\ up[s]
    /\ install[s] = IF SaveKeysBeforeDbSwap THEN "Fetched" ELSE "Swapped"
    /\ up' = [up EXCEPT ![s] = FALSE]
    /\ memKeys' = [memKeys EXCEPT ![s] = {}]
    /\ install' = [install EXCEPT ![s] = "Idle"]
    /\ ckptIndex' = [ckptIndex EXCEPT ![s] = 0]
    /\ fetchedKeys' = [fetchedKeys EXCEPT ![s] = {}]
    /\ leader' = IF leader = s THEN NoNode ELSE leader
    /\ UNCHANGED <<dbIndex, keyFile, log, purgedIndex, lastKey, expired>>

\* kill -9 / OOM kill / power loss, at any point (incl. inside an install).
\* Witness: none; inferred from the next STARTUP_MSG of that SCM without a
\*   SHUTDOWN_MSG in between.
Crash(s) ==
    /\ up[s]
    /\ up' = [up EXCEPT ![s] = FALSE]
    /\ memKeys' = [memKeys EXCEPT ![s] = {}]
    /\ install' = [install EXCEPT ![s] = "Idle"]
    /\ ckptIndex' = [ckptIndex EXCEPT ![s] = 0]
    /\ fetchedKeys' = [fetchedKeys EXCEPT ![s] = {}]
    /\ leader' = IF leader = s THEN NoNode ELSE leader
    /\ UNCHANGED <<dbIndex, keyFile, log, purgedIndex, lastKey, expired>>

\* Graceful stop (SIGTERM): waits for reinitialize to finish, so it is only
\* possible outside an install.
\* Witness: ERROR "RECEIVED SIGNAL 15: SIGTERM" (SignalLogger.java:70),
\*   "Stopping SCM HA services." (StorageContainerManager.java:1764),
\*   "SHUTDOWN_MSG: Shutting down StorageContainerManager at {}".
Stop(s) ==
    /\ up[s]
    /\ install[s] = "Idle"
    /\ up' = [up EXCEPT ![s] = FALSE]
    /\ memKeys' = [memKeys EXCEPT ![s] = {}]
    /\ leader' = IF leader = s THEN NoNode ELSE leader
    /\ UNCHANGED <<dbIndex, keyFile, install, ckptIndex, fetchedKeys, log,
                   purgedIndex, lastKey, expired>>

\* A restarted SCM reads scm.db (its index) but not the key file: the
\* in-memory key state stays empty until an updateKeys entry is applied or
\* it becomes leader.
\* Witness: "STARTUP_MSG: Starting StorageContainerManager",
\*   "Updated lastAppliedTermIndex {} with transactionInfo term andIndex"
\*   (SCMStateMachine.java:106).
Restart(s) ==
    /\ ~up[s]
    /\ up' = [up EXCEPT ![s] = TRUE]
    /\ UNCHANGED <<leader, dbIndex, keyFile, memKeys, install, ckptIndex,
                   fetchedKeys, log, purgedIndex, lastKey, expired>>

-----------------------------------------------------------------------------

Next ==
    \/ RotateKey
    \/ \E k \in Keys : ExpireKey(k)
    \/ PurgeLog
    \/ \E s \in Nodes :
         \/ BecomeLeader(s)
         \/ ReplicateKeys(s)
         \/ NotifyInstall(s)
         \/ FetchKeys(s)
         \/ ReplaceDb(s)
         \/ SaveKeys(s)
         \/ FailSave(s)
         \/ Crash(s)
         \/ Stop(s)
         \/ Restart(s)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(* Invariants                                                              *)

\* Outside the DB-swap-to-key-save window of an install, the key file of
\* every SCM holds every unexpired key of the key list its scm.db is at.
KeyFileCoversDb ==
    \A s \in Nodes :
        install[s] # "Swapped" => (KeysAt(dbIndex[s]) \ expired) \subseteq keyFile[s]

\* The cluster's current key list (the last replicated updateKeys entry)
\* holds every generated key that has not expired.
NoUnexpiredKeyDropped ==
    Len(log) > 0 => (Generated \ expired) \subseteq log[Len(log)]

=============================================================================
