//! The event kinds only `dn-finalize-block` reads (its grammar's lines; the kinds other parts read too are
//! [`crate::vocab::COMMON`]'s). They follow the kinds of the bugs before it in the registry.

use crate::vocab::{opt, req, FieldType as T};

crate::vocab::vocabulary! {
    KINDS from crate::bugs::first_kind::dn_finalize_block;

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
}
