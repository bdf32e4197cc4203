//! `scm-finalization`: the inverse of [`super::witness`], printing each step of
//! `ScmFinalization` as SCM lines (`ozone-hadoop-scm-scmN.log`) and datanode lines
//! (`ozone-hadoop-datanode-dnN.log`). Versions: 0 = `INITIAL_VERSION (0)`, 1 = `ZDU (100)`. A finalization
//! (`finalizeUpgrade`) walks every version above the apparent one and logs each as it persists it
//! (`ComponentVersionManager.java:100`): "finalized" below means the [`LADDER`], `Version DATANODE_SCHEMA_V2 (1)
//! has been finalized.` up to `Version ZDU (100) has been finalized.`, and a crash may cut it anywhere.
//!
//! | action | lines |
//! |---|---|
//! | `BecomeLeader(s)` | `current SCM <scmId> becomes leader of term T` |
//! | `Finalize` | WARN `Forcing upgrade finalization by skipping SCM peer and datanode software version checks` (leader) |
//! | `ApplyEntry(s)` of the finalize entry | finalized (or `Finalize attempt on a version which has already been finalized. ...`) |
//! | `FinalizeDatanode(d)` | leader: `Sending finalize command to datanode ...`; d: `Processing FinalizeVersionCommandHandler command.`, finalized |
//! | `NotifyInstall(s)` | `Received notification to install snapshot at index N`, `Received install snapshot notification from SCM leader ...`, `Downloaded checkpoint from Leader ...` |
//! | `ReplaceDb(s)` | `<scmId>: Install checkpoint T#N`, `Replaced DB with checkpoint, term: T, index: N`; a finalized checkpoint over a pre-finalized VERSION: in one behaviour of two also `New snapshot received with higher apparent version ZDU (100). ...` (the first line of the finalize from the snapshot, which a crash can follow) |
//! | `FinalizeFromSnapshot(s)` | (`New snapshot received with higher apparent version ...` if not printed yet), finalized when VERSION rises, `Reloaded SCM state with Term: T and Index: N` |
//! | `Register(s, d)` | `Registered datanode: <uuid>{ip: ..., host: dnN, ...}` |
//! | `FenceDatanode(s, d)` | s: ERROR `Datanode ... has apparent version ZDU (100) which is higher than SCM apparent version INITIAL_VERSION (0). ...`; d: ERROR `SCM rejected this datanode's registration ...` |
//! | `Stop(s)` | `RECEIVED SIGNAL 15: SIGTERM`, `Stopping SCM HA services.`, `SHUTDOWN_MSG` |
//! | `Restart(s)` | `STARTUP_MSG`, `Initializing version manager with apparent version V ...` (V = the VERSION file read), patched with the DB ahead: finalized, then `starting Raft server for scm:<scmId>`, `ScmDatanodeProtocol RPC server for DataNodes is listening at /0.0.0.0:9861` |
//! | `Propose`, `PurgeLog`, `ApplyEntry(s)` of a tx entry, `Crash(s)` | nothing (hidden) |

use super::mirror::{Action, Entry, ScmFinalization, State};
use crate::mirror::{Constants, Step};
use crate::refinement::scm::{self, HAM, STARTER};
use crate::refinement::{host_of, startup_banner, Logs, Render, Rng};
use crate::tla::value::TlaValue;

pub const MAX_LEN: usize = 50;

const CVM: &str = "org.apache.hadoop.ozone.upgrade.ComponentVersionManager";
const SSM: &str = "org.apache.hadoop.hdds.scm.ha.SCMStateMachine";
const NM: &str = "org.apache.hadoop.hdds.scm.node.SCMNodeManager";

/// The versions a finalization from `INITIAL_VERSION (0)` logs, in order (the HDDS layout features, then ZDU).
const LADDER: [&str; 11] = [
    "DATANODE_SCHEMA_V2 (1)",
    "SCM_HA (2)",
    "ERASURE_CODED_STORAGE_SUPPORT (3)",
    "DATANODE_SCHEMA_V3 (4)",
    "RATIS_DATASTREAM_PORT_IN_DATANODEDETAILS (5)",
    "WEBUI_PORTS_IN_DATANODEDETAILS (6)",
    "HADOOP_PRC_PORTS_IN_DATANODEDETAILS (7)",
    "HBASE_SUPPORT (8)",
    "WITNESSED_CONTAINER_DB_PROTO_VALUE (9)",
    "STORAGE_SPACE_DISTRIBUTION (10)",
    "ZDU (100)",
];

/// The last line of a finalization, the one that says the VERSION file reached ZDU (the DB's version).
const FINALIZED_ZDU: &str = "Version ZDU (100) has been finalized.";

/// One line per version of the [`LADDER`], as `finalizeUpgrade` logs them.
fn finalized(logs: &mut Logs, file: usize, thread: &str) {
    for v in LADDER {
        logs.record(
            file,
            thread,
            "INFO",
            CVM,
            &format!("Version {v} has been finalized."),
        );
    }
}
const GROUP: &str = "group-9F3A1C2B4D5E";

/// The number of a version as Ozone prints it: `ZDU (100)` → 100.
fn version_number(text: &str) -> Option<u32> {
    let (_, rest) = text.rsplit_once('(')?;
    rest.strip_suffix(')')?.parse().ok()
}

/// The datanode's version of a fencing line (`Datanode ... has apparent version X (n) which is higher than SCM
/// apparent version ...`).
fn fenced_version(line: &str) -> Option<u32> {
    let (_, rest) = line.split_once(" has apparent version ")?;
    let (dn_version, _) = rest.split_once(" which is higher than SCM apparent version")?;
    version_number(dn_version)
}

fn version(v: bool) -> &'static str {
    if v {
        "ZDU (100)"
    } else {
        "INITIAL_VERSION (0)"
    }
}

fn bit(set: u64, i: usize) -> bool {
    set & (1 << i) != 0
}

struct Node {
    value: String,
    host: String,
    ip: String,
    id: String,
    file: usize,
}

pub struct Renderer {
    scms: Vec<Node>,
    dns: Vec<Node>,
    patched: bool,
    term: u64,
    /// Ratis index of log entry 0 (entries are `base + 1 ..`).
    base: u64,
    /// Per SCM: `New snapshot received with higher apparent version` already printed in this install.
    announced: Vec<bool>,
}

fn nodes(
    constants: &Constants,
    name: &str,
    prefix: &str,
    ip0: usize,
    rng: &mut Rng,
    logs: &mut Logs,
    service: &str,
) -> Vec<Node> {
    crate::mirror::constants::model_values(constants, name)
        .expect("a set of model values")
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let host = host_of(&TlaValue::model(v.as_str()), prefix);
            Node {
                value: v.clone(),
                file: logs.file(&format!("ozone-hadoop-{service}-{host}.log")),
                host,
                ip: format!("172.18.0.{}", ip0 + i),
                id: rng.uuid(),
            }
        })
        .collect()
}

impl Renderer {
    fn idx(list: &[Node], v: &TlaValue) -> usize {
        let v = v.to_string();
        list.iter()
            .position(|n| n.value == v)
            .expect("a node of the constants")
    }

    fn dn_text(&self, d: usize) -> String {
        let n = &self.dns[d];
        format!("{}({}/{})", n.id, n.host, n.ip)
    }

    fn scm_start(&self, s: usize, apparent: bool, logs: &mut Logs) {
        let n = &self.scms[s];
        logs.record(
            n.file,
            "main",
            "INFO",
            STARTER,
            &startup_banner(
                "StorageContainerManager",
                &n.host,
                &n.ip,
                "ozone.scm.nodes.scmservice=scm1,scm2,scm3, ozone.scm.service.ids=scmservice",
            ),
        );
        logs.record(
            n.file,
            "main",
            "INFO",
            STARTER,
            "registered UNIX signal handlers for [SIGHUP, SIGINT, SIGTERM]",
        );
        logs.record(
            n.file,
            "main",
            "INFO",
            CVM,
            &format!("Initializing version manager with apparent version {} and software version ZDU (100)", version(apparent)),
        );
    }

    fn raft_started(&self, s: usize, logs: &mut Logs) {
        let n = &self.scms[s];
        logs.record(
            n.file,
            "main",
            "INFO",
            "org.apache.hadoop.hdds.scm.ha.SCMRatisServerImpl",
            &format!("starting Raft server for scm:{}", n.id),
        );
        logs.record(
            n.file,
            "main",
            "INFO",
            "org.apache.hadoop.hdds.scm.server.SCMDatanodeProtocolServer",
            "ScmDatanodeProtocol RPC server for DataNodes is listening at /0.0.0.0:9861",
        );
    }

    fn updater(&self, s: usize) -> String {
        format!("{}@{GROUP}-StateMachineUpdater", self.scms[s].id)
    }
}

impl Render<ScmFinalization> for Renderer {
    /// The SCM said to restart with its checkpoint's version unseen has, in its file, a DB replacement that
    /// neither `New snapshot received ...` nor `Reloaded SCM state` follows before its next start.
    fn reason_holds(reason: &str, logs: &Logs) -> bool {
        if reason.starts_with("no events for this model in these logs") {
            // Every line the monitor counts as evidence, in any SCM's file.
            return !logs.files.iter().any(|f| {
                f.name.starts_with("ozone-hadoop-scm-")
                    && f.text.lines().any(|l| {
                        [
                            "Replaced DB with checkpoint",
                            "New snapshot received with higher apparent version",
                            "has been finalized",
                            "Initializing version manager",
                            "which is higher than SCM apparent version",
                        ]
                        .iter()
                        .any(|n| l.contains(n))
                    })
            });
        }
        if reason.contains("no checkpoint install that raised the apparent version") {
            return !logs.files.iter().any(|f| {
                f.text
                    .contains("New snapshot received with higher apparent version")
                    || f.text.contains("which is higher than SCM apparent version")
            });
        }
        if reason.contains("logs end while its DB is ahead of its VERSION file") {
            return logs.files.iter().any(|f| {
                crate::refinement::unfinished(
                    &f.text,
                    "New snapshot received with higher apparent version",
                    &[FINALIZED_ZDU, "STARTUP_MSG: Starting"],
                    None,
                )
            });
        }
        let named = crate::refinement::named_after(reason, "SCM ");
        let file = |scm: &&str| logs.text_of(&format!("ozone-hadoop-scm-{scm}.log"));
        if let (Some(skew), [fencer, peer, ..]) = (
            reason
                .split_once(" ms clock skew tolerance: in the other order the fence violates")
                .and_then(|(head, _)| head.rsplit(' ').next()?.parse::<i64>().ok()),
            named.as_slice(),
        ) {
            // A peer (not the fencer) finalized, to the version the reason names and no lower than the fenced
            // datanode's, no later than the tolerance after a fence stamped before it.
            let Some(named_version) = reason
                .split_once(" finalized to ")
                .and_then(|(_, rest)| rest.split_once(") within the "))
                .map(|(v, _)| format!("{v})"))
            else {
                return false;
            };
            let Some(finalized_number) = version_number(&named_version) else {
                return false;
            };
            let fences: Vec<i64> = file(fencer)
                .lines()
                .filter(|l| {
                    fenced_version(l).is_some_and(|dn_version| dn_version <= finalized_number)
                })
                .filter_map(|l| Some(crate::layout::parse_iso8601(l.as_bytes())?.0.millis))
                .collect();
            let finalized = crate::refinement::stamped(
                file(peer),
                &format!("Version {named_version} has been finalized."),
            );
            return fencer != peer
                && fences
                    .iter()
                    .any(|f| finalized.iter().any(|v| *f <= *v && v - f <= skew));
        }
        if reason.contains(
            "and no peer SCM's `Version ... has been finalized.` at that version or above",
        ) {
            // Every fence is at ZDU (100): some fence of the fencer's has no peer's ZDU line stamped before it.
            let Some(fencer) = named.first() else {
                return false;
            };
            let peers_finalized: Vec<i64> = logs
                .files
                .iter()
                .filter(|f| {
                    f.name.starts_with("ozone-hadoop-scm-")
                        && f.name != format!("ozone-hadoop-scm-{fencer}.log")
                })
                .flat_map(|f| crate::refinement::stamped(&f.text, FINALIZED_ZDU))
                .collect();
            return crate::refinement::stamped(
                file(fencer),
                "which is higher than SCM apparent version",
            )
            .iter()
            .any(|fence| peers_finalized.iter().all(|v| v >= fence));
        }
        if reason.contains("with no `Replaced DB with checkpoint` after it")
            && named.iter().any(|scm| {
                crate::refinement::unfinished(
                    file(scm),
                    "Install checkpoint",
                    &["Replaced DB with checkpoint"],
                    Some("STARTUP_MSG: Starting"),
                )
            })
        {
            return true;
        }
        if reason.contains("its startup ended before `starting Raft server`")
            && named.iter().any(|scm| {
                crate::refinement::unfinished(
                    file(scm),
                    "Initializing version manager with apparent version",
                    &["starting Raft server", FINALIZED_ZDU],
                    Some("STARTUP_MSG: Starting"),
                )
            })
        {
            return true;
        }
        reason.contains("whose apparent version no line shows")
            && named.iter().any(|scm| {
                crate::refinement::unfinished(
                    logs.text_of(&format!("ozone-hadoop-scm-{scm}.log")),
                    "Replaced DB with checkpoint",
                    &[
                        "New snapshot received with higher apparent version",
                        "Reloaded SCM state",
                    ],
                    Some("STARTUP_MSG: Starting"),
                )
            })
    }
    /// A fence is blamed on a peer SCM other than the fencer whose file holds `Version X (n) has been
    /// finalized.` at the version the message names, no lower than the fenced datanode's.
    fn violation_holds(message: &str, logs: &Logs) -> bool {
        let Some((fence, blamed)) = message.split_once(" although peer SCM ") else {
            return true;
        };
        let (Some(fencer), Some(peer)) = (
            crate::refinement::named_after(fence, "SCM ")
                .first()
                .copied(),
            blamed.split_whitespace().next(),
        ) else {
            return false;
        };
        let dn_version = fence
            .rsplit_once(" at ")
            .and_then(|(_, v)| version_number(v));
        let Some(finalized) = blamed
            .split_once(" had finalized the cluster to ")
            .and_then(|(_, rest)| rest.split_once(';'))
            .map(|(v, _)| v)
        else {
            return false;
        };
        fencer != peer
            && dn_version.is_some_and(|dn| version_number(finalized).is_some_and(|n| n >= dn))
            && logs
                .text_of(&format!("ozone-hadoop-scm-{peer}.log"))
                .contains(&format!("Version {finalized} has been finalized."))
    }
    /// In one JVM the IPC handlers' fences name no SCM unless a line ties their port to one; every other line
    /// the monitor reads names its SCM, and version-manager lines (every process logs them) are not asked for.
    fn may_be_unattributed(line: &str) -> bool {
        // The excerpt is cut at 120 characters: `Datanode <uuid>(<host>/<ip>) has apparent version ...`.
        line.starts_with("Datanode ") && line.contains(" has apparent version ")
    }
    /// The finalize from a snapshot writes the VERSION file before it logs `Version ... has been finalized.`
    /// and `Reloaded SCM state ...`; a restart's effect is done once it has read (and, patched, raised) its
    /// VERSION file, before `starting Raft server` and `ScmDatanodeProtocol RPC server ... listening at`. A
    /// crash can take both lines.
    fn lines_after_effect(action: Action) -> usize {
        if matches!(action, Action::FinalizeFromSnapshot | Action::Restart) {
            2
        } else {
            1
        }
    }
    /// Proposing an entry, purging the log and applying a transaction that is not the finalize entry print
    /// nothing and change neither VERSION file nor DB version.
    fn silent_and_irrelevant(action: Action) -> bool {
        matches!(
            action,
            Action::Propose | Action::PurgeLog | Action::ApplyEntry
        )
    }
    fn monitor() -> Box<dyn crate::monitor::Model> {
        Box::new(super::monitor::ScmFinalization::default())
    }
    fn causal_rules() -> &'static [&'static crate::timeline::causal::CausalRule] {
        crate::bugs::causal_rules()
    }
    /// The bug needs a finalize entry (which a second `Propose` would shut out: the log holds two entries),
    /// a purge and an install, and a crash or stop before the finalize from the snapshot.
    fn weight(action: Action) -> u64 {
        match action {
            Action::Finalize
            | Action::PurgeLog
            | Action::NotifyInstall
            | Action::ReplaceDb
            | Action::FenceDatanode => 8,
            Action::Propose | Action::BecomeLeader => 1,
            // A follower that lags behind the purge must install; one that finalizes from its snapshot at
            // once leaves no window.
            Action::ApplyEntry
            | Action::FinalizeFromSnapshot
            | Action::Stop
            | Action::Crash
            | Action::Register => 2,
            _ => 4,
        }
    }

    fn start(
        _m: &ScmFinalization,
        constants: &Constants,
        _init: &State,
        rng: &mut Rng,
        logs: &mut Logs,
    ) -> Self {
        let scms = nodes(constants, "Scms", "scm", 4, rng, logs, "scm");
        let dns = nodes(constants, "Datanodes", "dn", 7, rng, logs, "datanode");
        let r = Renderer {
            announced: vec![false; scms.len()],
            scms,
            dns,
            patched: crate::mirror::constants::boolean(constants, "FinalizeFromDbOnStartup")
                .expect("FinalizeFromDbOnStartup"),
            term: 1,
            base: rng.range(10, 60) as u64,
        };
        // One behaviour in three: steps within 0.8 s of each other and each node's clock off by up to 0.48 s
        // (two nodes at most 0.96 s apart, within `check`'s 1 s skew tolerance), so that lines of different
        // nodes come in an order that only clocks within the tolerance tell.
        if rng.below(3) == 0 {
            logs.close_steps(rng.next_u64(), 800);
            for f in 0..logs.files.len() {
                logs.set_clock(f, rng.range(-480, 480));
            }
        }
        for s in 0..r.scms.len() {
            r.scm_start(s, false, logs);
            r.raft_started(s, logs);
        }
        for n in &r.dns {
            logs.record(
                n.file,
                "main",
                "INFO",
                "org.apache.hadoop.ozone.HddsDatanodeService",
                &startup_banner(
                    "HddsDatanodeService",
                    &n.host,
                    &n.ip,
                    "hdds.datanode.dir=/data/hdds",
                ),
            );
            logs.record(
                n.file,
                "main",
                "INFO",
                "org.apache.hadoop.ozone.HddsDatanodeService",
                &format!("HddsDatanodeService {}({}/{})", n.id, n.host, n.ip),
            );
            logs.record(n.file, "main", "INFO", CVM, "Initializing version manager with apparent version INITIAL_VERSION (0) and software version ZDU (100)");
        }
        r
    }

    fn step(
        &mut self,
        _m: &ScmFinalization,
        before: &State,
        step: &Step<State, Action>,
        rng: &mut Rng,
        logs: &mut Logs,
    ) {
        let after = &step.next;
        let leader = before.leader;
        match step.action {
            Action::BecomeLeader => {
                let s = Self::idx(&self.scms, &step.params[0]);
                self.term += 1;
                let n = &self.scms[s];
                logs.record(
                    n.file,
                    &format!("{}@{GROUP}-LeaderElection{}", n.id, self.term),
                    "INFO",
                    SSM,
                    &format!("current SCM {} becomes leader of term {}", n.id, self.term),
                );
            }
            Action::Finalize => {
                let l = leader.expect("Finalize needs a leader");
                logs.record(self.scms[l].file, "IPC Server handler 3 on default port 9860", "WARN", "org.apache.hadoop.hdds.scm.server.SCMClientProtocolServer", "Forcing upgrade finalization by skipping SCM peer and datanode software version checks");
            }
            Action::ApplyEntry => {
                let s = Self::idx(&self.scms, &step.params[0]);
                if before.log[before.db_index[s] as usize] == Entry::Finalize {
                    let t = self.updater(s);
                    if bit(before.version_file, s) {
                        logs.record(self.scms[s].file, &t, "INFO", CVM, "Finalize attempt on a version which has already been finalized. Software version: ZDU (100), apparent version: ZDU (100), provided version: ZDU (100). This can happen when Raft Log is replayed during service restart.");
                    } else {
                        finalized(logs, self.scms[s].file, &t);
                    }
                }
            }
            Action::FinalizeDatanode => {
                let d = Self::idx(&self.dns, &step.params[0]);
                let l = leader.expect("FinalizeDatanode needs a leader");
                logs.record(self.scms[l].file, "IPC Server handler 5 on default port 9861", "INFO", NM, &format!("Sending finalize command to datanode {} with apparent version INITIAL_VERSION (0) which is less than SCM's finalized apparent version ZDU (100)", self.dn_text(d)));
                let n = &self.dns[d];
                let t = format!("{}-CommandProcessorThread", n.id);
                logs.record(n.file, &t, "INFO", "org.apache.hadoop.ozone.container.common.statemachine.commandhandler.FinalizeVersionCommandHandler", "Processing FinalizeVersionCommandHandler command.");
                finalized(logs, n.file, &t);
            }
            Action::NotifyInstall => {
                let s = Self::idx(&self.scms, &step.params[0]);
                let l = leader.expect("NotifyInstall needs a leader");
                let idx = self.base + u64::from(after.ckpt_index[s]);
                let (n, ln) = (&self.scms[s], &self.scms[l]);
                let t = format!("{}-server-thread1", n.id);
                logs.record(
                    n.file,
                    &t,
                    "INFO",
                    "org.apache.ratis.server.impl.SnapshotInstallationHandler",
                    &format!(
                        "{}@{GROUP}: Received notification to install snapshot at index {idx}",
                        n.id
                    ),
                );
                logs.record(n.file, &t, "INFO", SSM, &format!("Received install snapshot notification from SCM leader: {}:9894 with term index: (t:{}, i:{idx})", ln.host, self.term));
                logs.record(n.file, &format!("{}-SCMInstallSnapshot-0", n.host), "INFO", HAM, &format!("Downloaded checkpoint from Leader {} to the location /data/metadata/snapshot/scm.db-{}-{}", ln.host, ln.host, 1_787_478_064_130u64 + rng.below(1_000_000)));
            }
            Action::ReplaceDb => {
                let s = Self::idx(&self.scms, &step.params[0]);
                let idx = self.base + u64::from(before.ckpt_index[s]);
                let t = self.updater(s);
                let n = &self.scms[s];
                scm::replace_db(logs, n.file, &t, &n.id, self.term, idx);
                self.announced[s] = false;
                if bit(after.db_version, s) && !bit(after.version_file, s) && rng.below(2) == 0 {
                    logs.record(n.file, &t, "INFO", "org.apache.hadoop.ozone.upgrade.RatisBasedVersionManager", "New snapshot received with higher apparent version ZDU (100). Attempting to finalize to that version.");
                    self.announced[s] = true;
                }
            }
            Action::FinalizeFromSnapshot => {
                let s = Self::idx(&self.scms, &step.params[0]);
                let t = self.updater(s);
                let n = &self.scms[s];
                if bit(before.db_version, s) && !bit(before.version_file, s) {
                    if !self.announced[s] {
                        logs.record(n.file, &t, "INFO", "org.apache.hadoop.ozone.upgrade.RatisBasedVersionManager", "New snapshot received with higher apparent version ZDU (100). Attempting to finalize to that version.");
                    }
                    finalized(logs, n.file, &t);
                }
                self.announced[s] = false;
                let idx = self.base + u64::from(before.db_index[s]);
                logs.record(
                    n.file,
                    &t,
                    "INFO",
                    HAM,
                    &format!(
                        "Reloaded SCM state with Term: {} and Index: {idx}",
                        self.term
                    ),
                );
            }
            Action::Register => {
                let s = Self::idx(&self.scms, &step.params[0]);
                let d = Self::idx(&self.dns, &step.params[1]);
                let dn = &self.dns[d];
                logs.record(self.scms[s].file, "IPC Server handler 0 on default port 9861", "INFO", NM, &format!("Registered datanode: {}{{ip: {}, host: {}, ports: [HTTP=9882, CLIENT_RPC=19864, REPLICATION=9886, RATIS=9858, RATIS_ADMIN=9857, RATIS_SERVER=9856, RATIS_DATASTREAM=9855, STANDALONE=9859], networkLocation: /default-rack, certSerialId: null, persistedOpState: IN_SERVICE, persistedOpStateExpiryEpochSec: 0}}", dn.id, dn.ip, dn.host));
            }
            Action::FenceDatanode => {
                let s = Self::idx(&self.scms, &step.params[0]);
                let d = Self::idx(&self.dns, &step.params[1]);
                let dv = version(bit(before.dn_version, d));
                let sv = version(bit(before.version_file, s));
                logs.record(self.scms[s].file, "IPC Server handler 0 on default port 9861", "ERROR", NM, &format!("Datanode {} has apparent version {dv} which is higher than SCM apparent version {sv}. SCM must finalize before datanodes.", self.dn_text(d)));
                let dn = &self.dns[d];
                logs.record(dn.file, &format!("{}-EndpointStateMachineTaskThread-{}:9861-0 ", dn.id, self.scms[s].host), "ERROR", "org.apache.hadoop.ozone.container.common.states.endpoint.RegisterEndpointTask", &format!("SCM rejected this datanode's registration with software version ZDU (100) and apparent version {dv}. This datanode will shut down. Check SCM logs for details and verify that the datanode software version is compatible with the cluster."));
            }
            Action::Stop => {
                let s = Self::idx(&self.scms, &step.params[0]);
                let n = &self.scms[s];
                scm::sigterm(logs, n.file);
                scm::shutdown(logs, n.file, &n.host, &n.ip);
            }
            Action::Restart => {
                let s = Self::idx(&self.scms, &step.params[0]);
                self.announced[s] = false;
                self.scm_start(s, bit(before.version_file, s), logs);
                if self.patched && bit(after.version_file, s) && !bit(before.version_file, s) {
                    finalized(logs, self.scms[s].file, "main");
                }
                self.raft_started(s, logs);
            }
            // Hidden: Propose, PurgeLog, ApplyEntry of a tx entry, Crash.
            // Hidden: these print nothing.
            Action::Propose | Action::PurgeLog | Action::Crash => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_off_the_lines_ozone_prints() {
        assert_eq!(version_number("ZDU (100)"), Some(100));
        assert_eq!(version_number("DATANODE_SCHEMA_V2 (1)"), Some(1));
        assert_eq!(version_number("ZDU"), None);
        let fence = "2026-08-23 11:00:01,003 [IPC Server handler 0 on default port 9861] ERROR org.apache.hadoop.hdds.scm.node.SCMNodeManager: Datanode 9c1e(dn1/10.0.0.11) has apparent version ZDU (100) which is higher than SCM apparent version INITIAL_VERSION (0). SCM must finalize before datanodes.";
        assert_eq!(fenced_version(fence), Some(100));
        assert_eq!(
            fenced_version("Version ZDU (100) has been finalized."),
            None
        );
    }
}
