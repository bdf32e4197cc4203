//! `dn-finalize-block`: the inverse of [`super::witness`], printing each step of
//! `DnFinalizeBlock` as datanode lines (`ozone-hadoop-datanode-dnN.log`, BlockManagerImpl at DEBUG, as the
//! witness table needs).
//!
//! | action | lines |
//! |---|---|
//! | `ApplyFinalizeBlock(d)` | `Finalized Block request received B ` then `Block has been finalized B ` |
//! | `ApplyPutBlock(d)` | DEBUG `Block B successfully committed with bcsId N chunk size K` (N = the Raft index) |
//! | `StreamPutBlock(d)` | the same commit line (bcsId = d's last applied index, the stream path has none of its own) |
//! | `RejectPutBlock(d)`, `RejectStreamPutBlock(d)` | WARN `Operation: PutBlock , ... Result: BLOCK_ALREADY_FINALIZED ...` |
//! | `Stop(d)` | `RECEIVED SIGNAL 15: SIGTERM`, the stop lines, `SHUTDOWN_MSG` |
//! | `Restart(d)` | `STARTUP_MSG` banner, signal handlers, `HddsDatanodeService <uuid>(...)`, `Setting the last applied index` |
//! | `StartPutBlock`, `AppendPutBlock`, `FinalizeBlock`, `StreamWrite`, `Crash(d)` | nothing (hidden) |
//!
//! The spec follows one block; a datanode's log interleaves many. Before the behaviour, every datanode commits
//! and finalizes two other blocks (the same container with another local id, another container with the same
//! local id), so a monitor that confused blocks would report the behaviour's later PutBlocks.

use super::mirror::{Action, DnFinalizeBlock, State};
use crate::mirror::{Constants, Step};
use crate::refinement::{host_of, shutdown_banner, startup_banner, Logs, Render, Rng};

/// Walk length: long enough to append, finalize and apply on several datanodes.
pub const MAX_LEN: usize = 40;

const KVH: &str = "org.apache.hadoop.ozone.container.keyvalue.KeyValueHandler";
const BMI: &str = "org.apache.hadoop.ozone.container.keyvalue.impl.BlockManagerImpl";
const CSM: &str =
    "org.apache.hadoop.ozone.container.common.transport.server.ratis.ContainerStateMachine";
const HDS: &str = "org.apache.hadoop.ozone.HddsDatanodeService";

struct Dn {
    value: String,
    host: String,
    ip: String,
    uuid: String,
    file: usize,
}

pub struct Renderer {
    dns: Vec<Dn>,
    pipeline: String,
    group: String,
    container: u64,
    local: u64,
    /// Raft index of log entry 1.
    index_base: u64,
}

impl Renderer {
    fn dn(&self, step: &Step<State, Action>) -> usize {
        let v = step.params[0].to_string();
        self.dns
            .iter()
            .position(|d| d.value == v)
            .expect("a datanode of the constants")
    }

    fn block(&self, bcs: u64) -> String {
        format!(
            "conID: {} locID: {} bcsId: {bcs} replicaIndex: null",
            self.container, self.local
        )
    }

    fn op_thread(&self, d: usize) -> String {
        format!("{}-ContainerOp-{}-0", self.dns[d].uuid, self.pipeline)
    }

    fn start_lines(&self, d: usize, logs: &mut Logs, applied: Option<u64>) {
        let n = &self.dns[d];
        logs.record(
            n.file,
            "main",
            "INFO",
            HDS,
            &startup_banner(
                "HddsDatanodeService",
                &n.host,
                &n.ip,
                "hdds.container.ratis.datastream.enabled=false, ozone.fs.hsync.enabled=true",
            ),
        );
        logs.record(
            n.file,
            "main",
            "INFO",
            HDS,
            "registered UNIX signal handlers for [SIGHUP, SIGINT, SIGTERM]",
        );
        logs.record(
            n.file,
            "main",
            "INFO",
            HDS,
            &format!("HddsDatanodeService {}({}/{})", n.uuid, n.host, n.ip),
        );
        let msg = match applied {
            Some(i) => format!(
                "{}: Setting the last applied index to (t:1, i:{i})",
                self.group
            ),
            None => format!(
                "{}: The snapshot info is null. Setting the last applied index to:<INITIAL_VALUE>",
                self.group
            ),
        };
        logs.record(
            n.file,
            &format!("{}-impl-thread1", n.uuid),
            "INFO",
            CSM,
            &msg,
        );
    }
}

impl Renderer {
    /// Two other blocks, committed and finalized on every datanode before the behaviour starts.
    fn other_blocks(&self, logs: &mut Logs, rng: &mut Rng) {
        let others = [
            (self.container, self.local + 1 + rng.below(1000)),
            (self.container + 1 + rng.below(40), self.local),
        ];
        for d in 0..self.dns.len() {
            let t = self.op_thread(d);
            let f = self.dns[d].file;
            for (k, (container, local)) in others.into_iter().enumerate() {
                let block = |bcs: u64| {
                    format!("conID: {container} locID: {local} bcsId: {bcs} replicaIndex: null")
                };
                let bcs = k as u64 + 1;
                logs.record(
                    f,
                    &t,
                    "DEBUG",
                    BMI,
                    &format!(
                        "Block {} successfully committed with bcsId {bcs} chunk size 4096",
                        block(bcs)
                    ),
                );
                logs.record(
                    f,
                    &t,
                    "INFO",
                    KVH,
                    &format!("Finalized Block request received {} ", block(0)),
                );
                logs.record(
                    f,
                    &t,
                    "INFO",
                    KVH,
                    &format!("Block has been finalized {} ", block(0)),
                );
            }
        }
    }
}

impl Render<DnFinalizeBlock> for Renderer {
    /// A datanode said to lack BlockManagerImpl's DEBUG lines lacks them in its file.
    fn reason_holds(reason: &str, logs: &Logs) -> bool {
        if reason.starts_with("no events for this model in these logs") {
            // Every line the monitor counts as evidence, in any datanode's file.
            return !logs.files.iter().any(|f| {
                f.text.lines().any(|l| {
                    [
                        "Finalized Block request received",
                        "Block has been finalized",
                        "successfully committed with bcsId",
                        "successfully persisted for closed container",
                        "in the Container Db is greater than the supplied value",
                    ]
                    .iter()
                    .any(|n| l.contains(n))
                })
            });
        }
        if reason.contains("no block was finalized in view") {
            return !logs
                .files
                .iter()
                .any(|f| f.text.contains("Block has been finalized"));
        }
        let named = crate::refinement::named_after(reason, "datanode ");
        if reason.contains("and never `Block has been finalized`") {
            return named.iter().any(|dn| {
                crate::refinement::unfinished(
                    logs.text_of(&format!("ozone-hadoop-datanode-{dn}.log")),
                    "Finalized Block request received",
                    &["Block has been finalized"],
                    None,
                )
            });
        }
        reason.contains("hold no DEBUG lines from BlockManagerImpl")
            && !named.is_empty()
            && named.iter().all(|dn| {
                !logs
                    .text_of(&format!("ozone-hadoop-datanode-{dn}.log"))
                    .lines()
                    .any(|l| l.contains(" DEBUG ") && l.contains(BMI))
            })
    }
    /// The observer exports one block, the first a datanode finalizes: the other blocks printed at the start
    /// come first, so of the behaviour's own block it reads nothing; the lifecycle it reads in full.
    fn observer_reads(action: Action) -> bool {
        matches!(action, Action::Stop | Action::Restart)
    }
    /// A streamed PutBlock's rejection and commit print the lines of a plain one.
    fn shows(witnessed: Action, took: Action) -> bool {
        witnessed == took
            || (witnessed == Action::RejectPutBlock && took == Action::RejectStreamPutBlock)
            || (witnessed == Action::ApplyPutBlock && took == Action::StreamPutBlock)
    }
    /// Client-side steps (the writer's PutBlock before a datanode applies it, the FinalizeBlock request before
    /// the leader applies it) print nothing on a datanode and change no datanode's state the invariant reads.
    fn silent_and_irrelevant(action: Action) -> bool {
        matches!(
            action,
            Action::StartPutBlock
                | Action::AppendPutBlock
                | Action::FinalizeBlock
                | Action::StreamWrite
        )
    }
    fn monitor() -> Box<dyn crate::monitor::Model> {
        Box::new(super::monitor::DnFinalizeBlock::default())
    }
    fn causal_rules() -> &'static [&'static crate::timeline::causal::CausalRule] {
        crate::bugs::causal_rules()
    }

    fn start(
        _m: &DnFinalizeBlock,
        constants: &Constants,
        _init: &State,
        rng: &mut Rng,
        logs: &mut Logs,
    ) -> Self {
        let values =
            crate::mirror::constants::model_values(constants, "Datanodes").expect("Datanodes");
        let leader = crate::mirror::constants::model_value(constants, "Leader").expect("Leader");
        let dns: Vec<Dn> = values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let host = host_of(&crate::tla::value::TlaValue::model(v.as_str()), "dn");
                Dn {
                    value: v.clone(),
                    file: logs.file(&format!("ozone-hadoop-datanode-{host}.log")),
                    host,
                    ip: format!("172.18.0.{}", 7 + i),
                    uuid: rng.uuid(),
                }
            })
            .collect();
        let pipeline = rng.uuid();
        let group = format!(
            "group-{}",
            pipeline[pipeline.len() - 12..].to_ascii_uppercase()
        );
        let r = Renderer {
            dns,
            group,
            pipeline,
            container: rng.range(1, 40) as u64,
            local: 113_750_153_625_600_000 + rng.below(1000),
            index_base: rng.range(1, 30) as u64,
        };
        for d in 0..r.dns.len() {
            r.start_lines(d, logs, None);
        }
        // The pipeline's leader is elected: the witness reads `Leader` from this line.
        if let Some(l) = r.dns.iter().position(|d| d.value == leader) {
            let n = &r.dns[l];
            logs.record(
                n.file,
                &format!("{}@{}-LeaderElection1", n.uuid, r.group),
                "INFO",
                "org.apache.ratis.server.RaftServer$Division",
                &format!(
                    "{}@{}: changes role from CANDIDATE to LEADER at term 1 for changeToLeader",
                    n.uuid, r.group
                ),
            );
        }
        r.other_blocks(logs, rng);
        r
    }

    fn step(
        &mut self,
        _m: &DnFinalizeBlock,
        before: &State,
        step: &Step<State, Action>,
        _rng: &mut Rng,
        logs: &mut Logs,
    ) {
        let after = &step.next;
        match step.action {
            Action::ApplyFinalizeBlock => {
                let d = self.dn(step);
                let t = self.op_thread(d);
                let f = self.dns[d].file;
                logs.record(
                    f,
                    &t,
                    "INFO",
                    KVH,
                    &format!("Finalized Block request received {} ", self.block(0)),
                );
                logs.record(
                    f,
                    &t,
                    "INFO",
                    KVH,
                    &format!("Block has been finalized {} ", self.block(0)),
                );
            }
            Action::ApplyPutBlock | Action::StreamPutBlock => {
                let d = self.dn(step);
                let bcs = self.index_base + u64::from(after.applied[d]);
                let t = self.op_thread(d);
                logs.record(
                    self.dns[d].file,
                    &t,
                    "DEBUG",
                    BMI,
                    &format!(
                        "Block {} successfully committed with bcsId {bcs} chunk size {}",
                        self.block(bcs),
                        after.committed_len[d]
                    ),
                );
            }
            Action::RejectPutBlock | Action::RejectStreamPutBlock => {
                let d = self.dn(step);
                let t = self.op_thread(d);
                logs.record(
                    self.dns[d].file,
                    &t,
                    "WARN",
                    KVH,
                    "Operation: PutBlock , Trace ID:  , Message: Block already finalized , Result: BLOCK_ALREADY_FINALIZED , StorageContainerException Occurred.",
                );
            }
            Action::Stop => {
                let d = self.dn(step);
                let n = &self.dns[d];
                logs.record(
                    n.file,
                    "SIGTERM handler",
                    "ERROR",
                    HDS,
                    "RECEIVED SIGNAL 15: SIGTERM",
                );
                logs.record(
                    n.file,
                    "shutdown-hook-0",
                    "INFO",
                    "org.apache.hadoop.ozone.container.ozoneimpl.OzoneContainer",
                    "Attempting to stop container services.",
                );
                logs.record(
                    n.file,
                    "shutdown-hook-0",
                    "INFO",
                    "org.apache.hadoop.ozone.container.common.statemachine.DatanodeStateMachine",
                    "Ozone container server stopped.",
                );
                logs.record(
                    n.file,
                    "shutdown-hook-0",
                    "INFO",
                    HDS,
                    &shutdown_banner("HddsDatanodeService", &n.host, &n.ip),
                );
            }
            Action::Restart => {
                let d = self.dn(step);
                let applied = u64::from(before.applied[d]);
                self.start_lines(d, logs, (applied > 0).then_some(self.index_base + applied));
            }
            // Hidden: StartPutBlock, AppendPutBlock, FinalizeBlock, StreamWrite, Crash.
            // Hidden: these print nothing.
            Action::StartPutBlock
            | Action::AppendPutBlock
            | Action::FinalizeBlock
            | Action::StreamWrite
            | Action::Crash => {}
        }
    }
}
