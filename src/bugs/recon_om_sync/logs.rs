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
//!
//! A crash (of Recon, the model's only node) may take the last line of the step before it (none of a
//! `ReprocessTask`, whose effect lands only with the reinitialization's swap), and after a `FullSnapshot` up to
//! its last four (the snapshot stays installed, its `Sequence number after sync` lost).
//! One behaviour in three begins mid-life, as a log4j rollover leaves Recon's current file: at a step after
//! which Recon serves with no reprocess owed ([`Render::may_begin_after`]).

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
        let lines: Vec<&str> = text.lines().collect();
        if reason.contains("no full snapshot with an earlier sequence number in view") {
            // No snapshot line with a `Sequence number after sync` both before and after it.
            let seq = |l: &&str| l.contains(SEQUENCE_AFTER_SYNC);
            return !lines.iter().enumerate().any(|(i, l)| {
                l.contains(SNAPSHOT_INSTALLED)
                    && lines[..i].iter().any(seq)
                    && lines[i + 1..].iter().any(seq)
            });
        }
        if reason.contains("whose sequence number is not in view") {
            // A snapshot install whose `Sequence number after sync` a restart came before.
            return lost_snapshot_sequences(&lines).next().is_some();
        }
        if reason.contains("with no earlier sequence number in view") {
            return snapshot_without_earlier_sequence(&lines);
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
    /// Everything after the install of a full snapshot is printed after its effect: a crash may take the
    /// queueing lines and `Sequence number after sync` with it, and the snapshot stays installed. A task's
    /// reprocess writes a staging DB that only the end of the reinitialization swaps in, so a crash before
    /// `Task X completed execution` is a crash before the step: none of its lines is lost.
    fn lines_after_effect(action: Action) -> usize {
        match action {
            Action::FullSnapshot => 4,
            Action::ReprocessTask => 0,
            _ => 1,
        }
    }
    /// Recon's log may begin (rotated) wherever it serves with no reprocess owed: every derived task built
    /// from the lineage of its OM DB, none queued.
    fn may_begin_after(state: &State) -> bool {
        state.phase == super::mirror::Phase::Running
            && !state.reinit_queued
            && state
                .task_lineage
                .iter()
                .all(|&l| l == state.recon_db_lineage)
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

const SNAPSHOT_INSTALLED: &str = "Successfully updated Recon OM DB with new snapshot.";
const SEQUENCE_AFTER_SYNC: &str = "Sequence number after sync: ";

/// The lines (indices) of each restart banner that comes after a snapshot install with no `Sequence number
/// after sync` between them: the snapshot's number is lost.
fn lost_snapshot_sequences<'a>(lines: &'a [&'a str]) -> impl Iterator<Item = usize> + 'a {
    let mut pending = false;
    lines.iter().enumerate().filter_map(move |(i, l)| {
        if l.contains(SNAPSHOT_INSTALLED) {
            pending = true;
        } else if l.contains(SEQUENCE_AFTER_SYNC) {
            pending = false;
        } else if l.contains("STARTUP_MSG") && std::mem::take(&mut pending) {
            return Some(i);
        }
        None
    })
}

/// A sequence number above 0 that `line` prints (a sync's numbers, a task cursor at startup).
fn prints_a_sequence_number(line: &str) -> bool {
    let number_after = |marker: &str| {
        line.split_once(marker).is_some_and(|(_, rest)| {
            let rest = rest.trim_start();
            let end = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            rest[..end].parse::<i64>().is_ok_and(|n| n > 0)
        })
    };
    [
        SEQUENCE_AFTER_SYNC,
        "Last known sequence number before sync: ",
        "Seq number of Recon's OM DB : ",
        " -> ",
    ]
    .iter()
    .any(|m| number_after(m))
}

/// Is some snapshot installed with no earlier sequence number in view: since the log's first line or the
/// last restart after a lost snapshot number, no line printed a number above 0 and Recon was not seen
/// starting fresh (`Skipping startup task reinitialization`, or a log that begins with Recon's start and a
/// sync from 0)?
fn snapshot_without_earlier_sequence(lines: &[&str]) -> bool {
    let mut lost = lost_snapshot_sequences(lines).peekable();
    let begins_with_a_start = lines.first().is_some_and(|l| l.contains("STARTUP_MSG"));
    let mut known = false;
    for (i, l) in lines.iter().enumerate() {
        if lost.next_if_eq(&i).is_some() {
            known = false;
        }
        if l.contains(SNAPSHOT_INSTALLED) && !known {
            return true;
        }
        known |= l.contains("Skipping startup task reinitialization")
            || prints_a_sequence_number(l)
            || (begins_with_a_start && l.contains("Last known sequence number before sync: 0"));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const BANNER: &str = "2026-08-23 11:00:00,003 [main] INFO ReconServer: STARTUP_MSG: ";
    const SHUTDOWN: &str = "2026-08-23 11:00:00,003 [main] INFO ReconServer: SHUTDOWN_MSG: ";
    const INSTALLED: &str = "... Successfully updated Recon OM DB with new snapshot.";

    #[test]
    fn a_restart_between_an_install_and_its_number_loses_the_number() {
        let lost = [INSTALLED, "... Queueing async reinitialization", BANNER];
        assert_eq!(lost_snapshot_sequences(&lost).collect::<Vec<_>>(), [2]);
        let numbered = [INSTALLED, "... Sequence number after sync: 40", BANNER];
        assert_eq!(lost_snapshot_sequences(&numbered).count(), 0);
        // A stop's SHUTDOWN_MSG is no restart: the banner after it is.
        let stopped = [INSTALLED, SHUTDOWN, BANNER];
        assert_eq!(lost_snapshot_sequences(&stopped).collect::<Vec<_>>(), [2]);
    }

    #[test]
    fn a_snapshot_has_an_earlier_number_in_view_only_after_one_above_zero_or_a_fresh_start() {
        // A log that begins mid-life with the install: nothing earlier.
        assert!(snapshot_without_earlier_sequence(&[
            "... Last known sequence number before sync: 0",
            INSTALLED,
        ]));
        // A number above 0 before it, in a sync's lines or a startup cursor.
        for earlier in [
            "... Last known sequence number before sync: 120",
            "... Sequence number after sync: 120",
            "... Seq number of Recon's OM DB : 7",
            "... OmDeltaRequest -> 120",
        ] {
            assert!(
                !snapshot_without_earlier_sequence(&[earlier, INSTALLED]),
                "{earlier}"
            );
        }
        // A fresh start: the log begins with Recon's start, and its first sync is from 0.
        assert!(!snapshot_without_earlier_sequence(&[
            BANNER,
            "... Last known sequence number before sync: 0",
            INSTALLED,
        ]));
        assert!(!snapshot_without_earlier_sequence(&[
            "... Skipping startup task reinitialization because the local OM DB store is not initialized yet",
            INSTALLED,
        ]));
        // A restart that lost the previous snapshot's number makes what came before no longer comparable.
        assert!(snapshot_without_earlier_sequence(&[
            "... Sequence number after sync: 120",
            INSTALLED,
            BANNER,
            "... Last known sequence number before sync: 0",
            INSTALLED,
        ]));
    }
}
