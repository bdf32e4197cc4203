//! `recon-om-sync`: the inverse of [`super::witness`], printing each step of
//! `ReconOmSync` as the lines of one Recon (`ozone-hadoop-recon-recon1.log`).
//!
//! Sequence numbers: the spec's `n` is `n * k` for a per-behaviour `k`, which keeps the order within a
//! lineage and puts a restored lineage below every cursor (the witness table's abstraction, inverted).
//!
//! | action | lines |
//! |---|---|
//! | `SyncDelta` | `Last known sequence number before sync`, `Seq number of Recon's OM DB`, `From Sequence Number:...`, `Delta updates received`, `Sequence number after sync: N` |
//! | `FullSnapshot` | `Last known sequence number before sync`, (new lineage: WARN `Unable to get and apply delta updates ... falling back to full snapshot`), `Obtaining full snapshot`, `Attempting to update Recon OM DB`, `Successfully updated Recon OM DB with new snapshot.`, the queueing lines, `Sequence number after sync: N` |
//! | `ReprocessTask(t)` | `Task t started execution on thread ReconTaskThread-i`, `Task t completed execution` |
//! | `ReinitDone` | `Re-initialization of tasks completed successfully.`, `Completed async task reinitialization` |
//! | `Stop` | `RECEIVED SIGNAL 15: SIGTERM`, `Stopping Recon server`, `Stopping Ozone Manager Service Provider.`, `SHUTDOWN_MSG` |
//! | `Restart` | `STARTUP_MSG` banner, `Starting Recon server`, `Starting Ozone Manager Service Provider.` |
//! | `Reconcile` | (a task lagging: the mismatch header, `OmDeltaRequest -> D`, `t -> S` per lagging task, `Re-initializing all tasks again ...`, `Queueing async reinitialization events during startup.`), `Ozone Manager Service Provider is started.` |
//! | `OmWrite`, `OmRestore(n)`, `Crash` | nothing (hidden) |
//!
//! The initial start (every node up in `Init`) prints the banner, `Registered Task: X` per TASK_STATUS row (left
//! out in one behaviour of four) and `Skipping startup task reinitialization because the local OM DB store is
//! not initialized yet ...`: Recon at sequence number 0 of a fresh OM.

use super::mirror::{Action, ReconOmSync, State};
use crate::mirror::{Constants, Step};
use crate::refinement::{shutdown_banner, startup_banner, Logs, Render, Rng};

pub const MAX_LEN: usize = 30;

const OMSP: &str = "org.apache.hadoop.ozone.recon.spi.impl.OzoneManagerServiceProviderImpl";
const RTC: &str = "org.apache.hadoop.ozone.recon.tasks.ReconTaskControllerImpl";
const RS: &str = "org.apache.hadoop.ozone.recon.ReconServer";
const HOST: &str = "recon1";
const IP: &str = "172.18.0.10";

pub struct Renderer {
    file: usize,
    tasks: Vec<String>,
    /// `ReprocessOnCursorMismatch`.
    patched: bool,
    /// Concrete sequence number of the spec's 1.
    k: i64,
    /// Snapshot directories are named by the clock.
    snapshot: u64,
}

impl Renderer {
    fn seq(&self, n: u32) -> i64 {
        i64::from(n) * self.k
    }

    fn info(&self, logs: &mut Logs, thread: &str, logger: &str, msg: &str) {
        logs.record(self.file, thread, "INFO", logger, msg);
    }

    fn starting(&self, logs: &mut Logs) {
        logs.record(
            self.file,
            "main",
            "INFO",
            RS,
            &startup_banner(
                "ReconServer",
                HOST,
                IP,
                "ozone.recon.address=recon1:9891, ozone.recon.db.dir=/data/metadata/recon",
            ),
        );
        self.info(
            logs,
            "main",
            RS,
            "registered UNIX signal handlers for [SIGHUP, SIGINT, SIGTERM]",
        );
        self.info(logs, "main", RS, "Initializing Recon server...");
        self.info(logs, "main", RS, "Starting Recon server");
        self.info(
            logs,
            "main",
            OMSP,
            "Starting Ozone Manager Service Provider.",
        );
        self.info(logs, "main", RTC, "Starting Recon Task Controller.");
    }
}

impl Render<ReconOmSync> for Renderer {
    /// Recon's file lacks what the reason says it lacks: the rebuild's end after a new snapshot, or the
    /// `Registered Task:` lines.
    fn reason_holds(reason: &str, logs: &Logs) -> bool {
        let text = logs.text_of(&format!("ozone-hadoop-recon-{HOST}.log"));
        if reason.contains("no full snapshot with an earlier sequence number in view") {
            // No snapshot line with a `Sequence number after sync` both before and after it.
            let lines: Vec<&str> = text.lines().collect();
            let seq = |l: &&str| l.contains("Sequence number after sync");
            return !lines.iter().enumerate().any(|(i, l)| {
                l.contains("Successfully updated Recon OM DB with new snapshot.")
                    && lines[..i].iter().any(seq)
                    && lines[i + 1..].iter().any(seq)
            });
        }
        (reason.contains("logs end before the derived tasks were rebuilt")
            && crate::refinement::unfinished(
                text,
                "Successfully updated Recon OM DB with new snapshot.",
                &["Re-initialization of tasks completed successfully."],
                None,
            ))
            || (reason.contains("no `Registered Task:` lines")
                && !text.contains("Registered Task:"))
    }
    /// OM's writes and restores are read off the sequence numbers a sync prints.
    fn shows(witnessed: Action, took: Action) -> bool {
        witnessed == took
            || (matches!(witnessed, Action::OmWrite | Action::OmRestore)
                && matches!(took, Action::FullSnapshot | Action::SyncDelta))
    }
    /// OM's own writes and restores print nothing in Recon's log; Recon sees them in the sequence numbers of
    /// its next sync.
    fn silent_and_irrelevant(action: Action) -> bool {
        matches!(action, Action::OmWrite | Action::OmRestore)
    }
    fn monitor() -> Box<dyn crate::monitor::Model> {
        Box::new(super::monitor::ReconOmSync::default())
    }
    fn causal_rules() -> &'static [&'static crate::timeline::causal::CausalRule] {
        crate::bugs::causal_rules()
    }

    fn start(
        _m: &ReconOmSync,
        constants: &Constants,
        _init: &State,
        rng: &mut Rng,
        logs: &mut Logs,
    ) -> Self {
        let tasks = crate::mirror::constants::model_values(constants, "Tasks").expect("Tasks");
        let r = Renderer {
            file: logs.file(&format!("ozone-hadoop-recon-{HOST}.log")),
            tasks,
            patched: crate::mirror::constants::boolean(constants, "ReprocessOnCursorMismatch")
                .expect("ReprocessOnCursorMismatch"),
            k: rng.range(37, 400),
            snapshot: 1_787_486_400_000 + rng.below(100_000),
        };
        r.starting(logs);
        // First start: TASK_STATUS rows are inserted, each logged once. One behaviour in four leaves them
        // out (as a log that lost its first lines would), so the monitor meets an unknown task set too.
        if rng.below(4) != 0 {
            for t in r
                .tasks
                .iter()
                .map(String::as_str)
                .chain(["OmDeltaRequest", "OmSnapshotRequest"])
            {
                r.info(
                    logs,
                    "main",
                    "org.apache.hadoop.ozone.recon.tasks.updater.ReconTaskStatusUpdater",
                    &format!("Registered Task: {t}"),
                );
            }
        }
        r.info(
            logs,
            "main",
            OMSP,
            "Skipping startup task reinitialization because the local OM DB store is not initialized yet (no OM snapshot present). The scheduled full snapshot sync will download the OM DB and initialize tasks.",
        );
        r.info(
            logs,
            "main",
            OMSP,
            "Ozone Manager Service Provider is started.",
        );
        r.info(logs, "main", RS, "Recon server initialized successfully!");
        r
    }

    fn step(
        &mut self,
        _m: &ReconOmSync,
        before: &State,
        step: &Step<State, Action>,
        _rng: &mut Rng,
        logs: &mut Logs,
    ) {
        let after = &step.next;
        let sync = "Recon-SyncOM-0";
        match step.action {
            Action::SyncDelta => {
                let (d, n) = (self.seq(before.delta_seq), self.seq(after.delta_seq));
                self.info(
                    logs,
                    sync,
                    OMSP,
                    &format!("Last known sequence number before sync: {d}"),
                );
                self.info(
                    logs,
                    sync,
                    OMSP,
                    &format!("Seq number of Recon's OM DB : {d}"),
                );
                self.info(
                    logs,
                    sync,
                    OMSP,
                    &format!(
                        "From Sequence Number:{d}, Recon DB Sequence Number: {n}, Number of updates received from OM : {}, SequenceNumber diff: {}, SequenceNumber Lag from OM 0, isDBUpdateSuccess: true",
                        n - d,
                        n - d
                    ),
                );
                self.info(
                    logs,
                    sync,
                    OMSP,
                    &format!(
                        "Delta updates received from OM : 1 loops, {} records",
                        n - d
                    ),
                );
                self.info(
                    logs,
                    sync,
                    OMSP,
                    &format!("Sequence number after sync: {n}"),
                );
            }
            Action::FullSnapshot => {
                let (d, n) = (self.seq(before.delta_seq), self.seq(after.delta_seq));
                self.info(
                    logs,
                    sync,
                    OMSP,
                    &format!("Last known sequence number before sync: {d}"),
                );
                if before.recon_db_lineage != before.om_lineage {
                    self.info(
                        logs,
                        sync,
                        OMSP,
                        &format!("Seq number of Recon's OM DB : {d}"),
                    );
                    logs.record(
                        self.file,
                        sync,
                        "WARN",
                        OMSP,
                        &format!("Unable to get and apply delta updates from OM: Invalid transaction log iterator when getting updates since sequence number {d}, falling back to full snapshot"),
                    );
                }
                self.info(
                    logs,
                    sync,
                    OMSP,
                    "Obtaining full snapshot from Ozone Manager",
                );
                self.snapshot += 600_000;
                let path = format!("/data/metadata/recon/om.snapshot.db_{}", self.snapshot);
                self.info(
                    logs,
                    sync,
                    OMSP,
                    &format!(
                        "Attempting to update Recon OM DB with new snapshot located at: {path}"
                    ),
                );
                self.info(
                    logs,
                    sync,
                    OMSP,
                    "Successfully updated Recon OM DB with new snapshot.",
                );
                self.info(
                    logs,
                    sync,
                    OMSP,
                    "Queueing async reinitialization event instead of blocking call",
                );
                self.info(
                    logs,
                    sync,
                    RTC,
                    "Queueing task reinitialization event due to: MANUAL_TRIGGER (retry attempt count: 0)",
                );
                self.info(
                    logs,
                    sync,
                    RTC,
                    "Successfully queued reinitialization event after 0 retries",
                );
                self.info(
                    logs,
                    sync,
                    OMSP,
                    &format!("Sequence number after sync: {n}"),
                );
            }
            Action::ReprocessTask => {
                let t = step.params[0].to_string();
                let i = self.tasks.iter().position(|x| *x == t).unwrap_or(0);
                let thread = format!("ReconTaskThread-{i}");
                self.info(
                    logs,
                    &thread,
                    RTC,
                    &format!("Task {t} started execution on thread {thread}"),
                );
                self.info(logs, &thread, RTC, &format!("Task {t} completed execution"));
            }
            Action::ReinitDone => {
                let t = "ReconEventProcessor-0";
                self.info(
                    logs,
                    t,
                    RTC,
                    "Re-initialization of tasks completed successfully.",
                );
                self.info(logs, t, RTC, "Completed async task reinitialization");
            }
            Action::Stop => {
                logs.record(
                    self.file,
                    "SIGTERM handler",
                    "ERROR",
                    RS,
                    "RECEIVED SIGNAL 15: SIGTERM",
                );
                self.info(logs, "shutdown-hook-0", RS, "Stopping Recon server");
                self.info(
                    logs,
                    "shutdown-hook-0",
                    OMSP,
                    "Stopping Ozone Manager Service Provider.",
                );
                self.info(
                    logs,
                    "shutdown-hook-0",
                    RTC,
                    "Stopping Recon Task Controller.",
                );
                self.info(
                    logs,
                    "shutdown-hook-0",
                    RS,
                    &shutdown_banner("ReconServer", HOST, IP),
                );
            }
            Action::Restart => self.starting(logs),
            Action::Reconcile => {
                // Lagging(t), as the mirror decides it: the tasks the startup check prints.
                let lagging: Vec<usize> = (0..self.tasks.len())
                    .filter(|&t| {
                        if self.patched {
                            before.task_seq[t] != before.delta_seq
                        } else {
                            before.task_seq[t] < before.delta_seq
                        }
                    })
                    .collect();
                if !lagging.is_empty() {
                    self.info(logs, "main", OMSP, "Task name and last updated sequence number of tasks, that are not matching with the last updated sequence number of OmDeltaRequest task:");
                    self.info(
                        logs,
                        "main",
                        OMSP,
                        &format!("OmDeltaRequest -> {}", self.seq(before.delta_seq)),
                    );
                    for t in lagging {
                        self.info(
                            logs,
                            "main",
                            OMSP,
                            &format!("{} -> {}", self.tasks[t], self.seq(before.task_seq[t])),
                        );
                    }
                    self.info(logs, "main", OMSP, "Re-initializing all tasks again (not just above failed delta tasks) based on updated OM DB snapshot and last updated sequence number because fresh staging DB needs to be created for all tasks.");
                    self.info(
                        logs,
                        "main",
                        OMSP,
                        "Queueing async reinitialization events during startup.",
                    );
                }
                self.info(
                    logs,
                    "main",
                    OMSP,
                    "Ozone Manager Service Provider is started.",
                );
                self.info(logs, "main", RS, "Recon server initialized successfully!");
            }
            // Hidden: OmWrite, OmRestore(n), Crash.
            // Hidden: these print nothing.
            Action::OmWrite | Action::OmRestore | Action::Crash => {}
        }
    }
}
