//! Process lifecycle, shared by every model: starts, stops, and crashes inferred from banners.
//!
//! A process's STARTUP_MSG with no SHUTDOWN_MSG (and no logged exit) since its previous run means that run died
//! abruptly (kill -9, OOM kill, power loss): nothing else is logged for a crash. This holds for every input that
//! is one process's own log, in any layout, the test layout included (some suites run daemons with the test
//! log4j pattern); the timeline tells which inputs are ([`Timeline::is_test_output`] is false for them).
//! Single-JVM MiniOzoneCluster output has no such rule (components stop and start without banners, Recon prints
//! a banner per start and its SHUTDOWN_MSGs only at JVM exit), so there the in-JVM stop and start lines are the
//! lifecycle.
//!
//! [`Timeline::is_test_output`]: crate::timeline::Timeline::is_test_output

use crate::event::Event;
use crate::ranked::Ranked;
use crate::vocab::EventKind;

/// What an event means for its node's lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LifeStep {
    /// The node (re)started. `crashed` holds the index of the last event of the previous run when that run
    /// ended without a shutdown.
    Started { crashed: Option<usize> },
    /// The first line of this run that shows the node stopping (stop() lines, terminate, exit, SHUTDOWN_MSG).
    Stopping,
}

/// The lifecycle steps of a timeline's events, by event index: a few per node run, kept by rank
/// ([`Ranked`]: one `Option<LifeStep>` per event would cost 24 bytes for every line of a long log, and a map
/// from index to step missed the cache on every one of the replay's lookups, a sixth of the replay of a
/// 4.8 GB event-dense log).
#[derive(Debug, Default, Clone)]
pub struct LifeSteps {
    steps: Ranked<Option<LifeStep>>,
}

impl LifeSteps {
    /// Event `index` makes this step. Events are given in increasing order (the timeline's one pass).
    pub fn set(&mut self, index: usize, step: LifeStep) {
        let kept = self.steps.push(index, Some(step));
        debug_assert!(kept, "lifecycle steps are set in the order of their events");
    }

    /// How many events make a step.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The indices of the events that make a step, in order.
    pub fn indices(&self) -> Vec<usize> {
        self.steps.indices().collect()
    }
}

impl std::ops::Index<usize> for LifeSteps {
    type Output = Option<LifeStep>;

    /// The step event `index` makes, if any.
    fn index(&self, index: usize) -> &Option<LifeStep> {
        self.steps.get(index).unwrap_or(&None)
    }
}

#[derive(Default)]
struct NodeLife {
    /// Index of the last event seen from this run, if any.
    last: Option<usize>,
    stopping: bool,
    /// The run ended by itself: SHUTDOWN_MSG, or an exit line (`Terminating with exit status`, `Exiting with
    /// status`), after which the JVM exits through its shutdown hooks; the next start is no crash even when the
    /// SHUTDOWN_MSG is missing (the logging framework may stop before the banner hook runs).
    shut_down: bool,
    /// One JVM: this run's SCM has been built (`starting Raft server for scm:<id>`).
    built: bool,
}

#[derive(Default)]
pub struct Lifecycle {
    /// By `Event::node_key`.
    nodes: Vec<NodeLife>,
}

/// Lines that show a process going down.
pub fn is_stop_line(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::StateMachineReinitializeFailed
            | EventKind::TerminatingWithStatus
            | EventKind::ExitingWithStatus
            | EventKind::ComponentStopping
            | EventKind::ProcessShutdown
            | EventKind::ScmStartFailed
            | EventKind::DatanodeStartFailed
    )
}

/// Stop lines after which the process is gone by its own hand (not killed).
fn ends_the_run(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::ProcessShutdown
            | EventKind::TerminatingWithStatus
            | EventKind::ExitingWithStatus
    )
}

impl Lifecycle {
    /// Observes event `index`; returns the lifecycle step it makes, if any.
    pub fn observe(&mut self, index: usize, e: &Event, test_output: bool) -> Option<LifeStep> {
        let node = e.node.as_ref().map(|_| e.node_key);
        self.observe_step(index, e.kind, node, test_output)
    }

    /// [`Lifecycle::observe`] of an event of this kind on the node with this key (if any).
    pub fn observe_step(
        &mut self,
        index: usize,
        kind: EventKind,
        node_key: Option<u32>,
        test_output: bool,
    ) -> Option<LifeStep> {
        let key = node_key? as usize;
        if key >= self.nodes.len() {
            self.nodes.resize_with(key + 1, NodeLife::default);
        }
        let life = &mut self.nodes[key];
        let step = match kind {
            EventKind::ProcessStarted => {
                let crashed = if test_output || life.shut_down {
                    None
                } else {
                    life.last
                };
                *life = NodeLife::default();
                Some(LifeStep::Started { crashed })
            }
            EventKind::ComponentStarting => {
                let restarted = life.stopping;
                if restarted {
                    *life = NodeLife::default();
                }
                Some(LifeStep::Started { crashed: None })
            }
            // In one JVM an SCM's restart prints no banner: its construction lines start the new instance.
            // `Found matching SCM address` is printed by `scm --init` and bootstrap as well as by the
            // constructor, but only before the first instance is built (`starting Raft server for scm:<id>`,
            // once per instance). A construction line after a built instance with no stop between means that
            // instance ended unlogged: a crash, as far as the logs tell.
            EventKind::ScmNodeIdentified | EventKind::ScmRaftServerCreated if test_output => {
                let step = if life.stopping || life.last.is_none() {
                    Some(LifeStep::Started { crashed: None })
                } else if life.built {
                    Some(LifeStep::Started { crashed: life.last })
                } else {
                    None
                };
                if step.is_some() {
                    *life = NodeLife::default();
                }
                life.built |= kind == EventKind::ScmRaftServerCreated;
                step
            }
            // MiniOzoneHAClusterImpl's `Shutting down StorageContainerManager <scmId>`: the test stops this SCM.
            EventKind::HarnessScmShutdown if test_output => {
                if life.stopping {
                    None
                } else {
                    life.stopping = true;
                    Some(LifeStep::Stopping)
                }
            }
            k if is_stop_line(k) => {
                life.shut_down |= ends_the_run(k);
                if life.stopping {
                    None
                } else {
                    life.stopping = true;
                    Some(LifeStep::Stopping)
                }
            }
            _ => None,
        };
        life.last = Some(index);
        step
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::testkit::{daemon, ev, run, test_output, text};

    /// The steps `Lifecycle` gives a sequence of events of one node (key 0).
    fn steps(kinds: &[EventKind], test_output: bool) -> Vec<Option<LifeStep>> {
        let mut life = Lifecycle::default();
        kinds
            .iter()
            .enumerate()
            .map(|(i, &k)| {
                let mut e = ev(k, "scm1", i as i64, vec![]);
                e.node_key = 0;
                life.observe(i, &e, test_output)
            })
            .collect()
    }

    #[test]
    fn startup_without_shutdown_is_a_crash_of_the_previous_run() {
        let s = steps(
            &[
                EventKind::ProcessStarted,
                EventKind::CheckpointInstalled,
                EventKind::ProcessStarted,
            ],
            false,
        );
        assert_eq!(s[0], Some(LifeStep::Started { crashed: None }));
        assert_eq!(s[1], None);
        // The last event of the crashed run is index 1.
        assert_eq!(s[2], Some(LifeStep::Started { crashed: Some(1) }));
        // A banner right after a banner: the first run died at its own banner.
        let s = steps(
            &[EventKind::ProcessStarted, EventKind::ProcessStarted],
            false,
        );
        assert_eq!(s[1], Some(LifeStep::Started { crashed: Some(0) }));
    }

    #[test]
    fn startup_after_shutdown_is_no_crash() {
        let s = steps(
            &[
                EventKind::ProcessStarted,
                EventKind::CheckpointInstalled,
                EventKind::ProcessShutdown,
                EventKind::ProcessStarted,
            ],
            false,
        );
        assert_eq!(s[2], Some(LifeStep::Stopping));
        assert_eq!(s[3], Some(LifeStep::Started { crashed: None }));
        // SHUTDOWN_MSG after other stop lines still marks a clean shutdown.
        let s = steps(
            &[
                EventKind::ProcessStarted,
                EventKind::ComponentStopping,
                EventKind::ProcessShutdown,
                EventKind::ProcessStarted,
            ],
            false,
        );
        assert_eq!(s[3], Some(LifeStep::Started { crashed: None }));
        // Stop lines without SHUTDOWN_MSG do not make a clean shutdown.
        let s = steps(
            &[
                EventKind::ProcessStarted,
                EventKind::ComponentStopping,
                EventKind::ProcessStarted,
            ],
            false,
        );
        assert_eq!(s[2], Some(LifeStep::Started { crashed: Some(1) }));
    }

    #[test]
    fn test_output_never_infers_a_crash() {
        let s = steps(
            &[
                EventKind::ProcessStarted,
                EventKind::CheckpointInstalled,
                EventKind::ProcessStarted,
            ],
            true,
        );
        assert_eq!(s[0], Some(LifeStep::Started { crashed: None }));
        assert_eq!(s[2], Some(LifeStep::Started { crashed: None }));
    }

    #[test]
    fn test_output_through_the_timeline_never_infers_a_crash() {
        // Same events, once as a daemon file and once as test output: only the daemon file shows a crash.
        let events = || {
            vec![
                ev(
                    EventKind::ProcessStarted,
                    "recon1",
                    0,
                    vec![("service", text("ReconServer"))],
                ),
                ev(EventKind::CheckpointInstalled, "recon1", 10, vec![]),
                ev(
                    EventKind::ProcessStarted,
                    "recon1",
                    20,
                    vec![("service", text("ReconServer"))],
                ),
            ]
        };
        for (input, crashed) in [
            (daemon("recon", "recon1", events()), Some(1)),
            (test_output(events()), None),
        ] {
            let (tl, _) = run("recon-om-sync", vec![input]);
            let mut life = Lifecycle::default();
            let got: Vec<_> = tl
                .events
                .iter()
                .enumerate()
                .map(|(i, e)| life.observe(i, &e, tl.test_output[0]))
                .collect();
            assert_eq!(got[2], Some(LifeStep::Started { crashed }));
        }
    }

    #[test]
    fn only_the_first_stop_line_of_a_run_is_stopping() {
        let s = steps(
            &[
                EventKind::ProcessStarted,
                EventKind::ComponentStopping,
                EventKind::TerminatingWithStatus,
                EventKind::ExitingWithStatus,
                EventKind::ProcessShutdown,
                EventKind::ProcessStarted,
                EventKind::StateMachineReinitializeFailed,
                EventKind::ComponentStopping,
            ],
            false,
        );
        assert_eq!(
            s,
            vec![
                Some(LifeStep::Started { crashed: None }),
                Some(LifeStep::Stopping),
                None,
                None,
                None,
                Some(LifeStep::Started { crashed: None }),
                // A new run: its first stop line is Stopping again.
                Some(LifeStep::Stopping),
                None,
            ]
        );
    }

    #[test]
    fn an_scm_rebuilt_in_one_jvm_begins_a_new_run_so_its_next_failure_stops_it_again() {
        // MiniOzoneCluster: construction (`Found matching SCM address`, `starting Raft server`), a failed
        // reinitialize that terminates the SCM, the harness's `Shutting down StorageContainerManager`, the
        // rebuilt SCM's construction lines, and the same failure again: the second failure is a stop too.
        let run = [
            EventKind::ScmNodeIdentified,
            EventKind::ScmRaftServerCreated,
            EventKind::StateMachineReinitializeFailed,
            EventKind::TerminatingWithStatus,
            EventKind::HarnessScmShutdown,
        ];
        let kinds: Vec<EventKind> = run.iter().chain(run.iter()).copied().collect();
        let once = [
            Some(LifeStep::Started { crashed: None }),
            None,
            Some(LifeStep::Stopping),
            None,
            None,
        ];
        let want: Vec<Option<LifeStep>> = once.iter().chain(once.iter()).copied().collect();
        assert_eq!(steps(&kinds, true), want);
        // The harness stop alone (no failure before it) is the stop.
        assert_eq!(
            steps(
                &[
                    EventKind::ScmNodeIdentified,
                    EventKind::HarnessScmShutdown,
                    EventKind::ScmNodeIdentified
                ],
                true
            ),
            vec![
                Some(LifeStep::Started { crashed: None }),
                Some(LifeStep::Stopping),
                Some(LifeStep::Started { crashed: None }),
            ]
        );
        // `Found matching SCM address` is printed by init and bootstrap too: three of them make no restart; a
        // second Raft server with no stop between is an instance that ended unlogged (a crash, to the logs).
        assert_eq!(
            steps(
                &[
                    EventKind::ScmNodeIdentified,
                    EventKind::ScmNodeIdentified,
                    EventKind::ScmNodeIdentified,
                    EventKind::ScmRaftServerCreated,
                    EventKind::ScmNodeIdentified,
                    EventKind::ScmRaftServerCreated,
                ],
                true
            ),
            vec![
                Some(LifeStep::Started { crashed: None }),
                None,
                None,
                None,
                Some(LifeStep::Started { crashed: Some(3) }),
                None,
            ]
        );
        // In a daemon's log the construction lines follow the banner and are no step of their own.
        assert_eq!(
            steps(
                &[
                    EventKind::ProcessStarted,
                    EventKind::ScmNodeIdentified,
                    EventKind::ScmRaftServerCreated
                ],
                false
            ),
            vec![Some(LifeStep::Started { crashed: None }), None, None]
        );
    }

    #[test]
    fn in_jvm_start_after_a_stop_begins_a_new_run() {
        let s = steps(
            &[
                EventKind::ComponentStarting,
                EventKind::ComponentStopping,
                EventKind::ComponentStarting,
                EventKind::ComponentStopping,
            ],
            true,
        );
        assert_eq!(
            s,
            vec![
                Some(LifeStep::Started { crashed: None }),
                Some(LifeStep::Stopping),
                Some(LifeStep::Started { crashed: None }),
                Some(LifeStep::Stopping),
            ]
        );
    }

    #[test]
    fn nodeless_events_make_no_step_and_nodes_are_separate() {
        let mut life = Lifecycle::default();
        let mut anon = ev(EventKind::ProcessStarted, "", 0, vec![]);
        anon.node_key = u32::MAX;
        assert_eq!(life.observe(0, &anon, false), None);
        let mut a = ev(EventKind::ProcessStarted, "scm1", 1, vec![]);
        a.node_key = 0;
        let mut b = ev(EventKind::ProcessShutdown, "scm2", 2, vec![]);
        b.node_key = 1;
        assert_eq!(
            life.observe(1, &a, false),
            Some(LifeStep::Started { crashed: None })
        );
        assert_eq!(life.observe(2, &b, false), Some(LifeStep::Stopping));
        // scm2's shutdown does not make scm1's next start clean.
        assert_eq!(
            life.observe(3, &a, false),
            Some(LifeStep::Started { crashed: Some(1) })
        );
    }

    /// (line, step) of every lifecycle step in these files, as `check` and `export` see them.
    fn life_of_files(files: &[(&str, String)]) -> Vec<(String, u64, LifeStep)> {
        let dir = tempfile::tempdir().unwrap();
        let sources: Vec<crate::input::Source> = files
            .iter()
            .map(|(name, text)| {
                let p = dir.path().join(name);
                std::fs::write(&p, text).unwrap();
                crate::input::Source::File(p)
            })
            .collect();
        let grammar = crate::grammar::Grammar::embedded().unwrap();
        let tl = crate::timeline::build(
            &sources,
            &grammar,
            &crate::scan::ScanOptions::default(),
            crate::bugs::merge_rules(crate::timeline::DEFAULT_MAX_SKEW_MS),
            &|_, _| {},
        );
        let mut life = Lifecycle::default();
        tl.events
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                let step = life.observe(i, &e, tl.is_test_output(e.span.input))?;
                Some((e.node.as_deref()?.to_string(), e.span.line, step))
            })
            .collect()
    }

    fn fixture(rel: &str) -> String {
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures")
                .join(rel),
        )
        .unwrap()
    }

    #[test]
    fn a_daemon_in_the_test_layout_that_is_killed_crashed() {
        // The file name names no node: the banner's `host = scm3/...` does, for every line after it.
        let got = life_of_files(&[("scm.log", fixture("lifecycle/test-layout-kill9/scm.log"))]);
        assert_eq!(
            got,
            vec![
                ("scm3".into(), 1, LifeStep::Started { crashed: None }),
                // `StorageContainerLocationProtocol RPC server is listening at`: the same run, started.
                ("scm3".into(), 23, LifeStep::Started { crashed: None }),
                // The last line of the killed run is `Current key updated` (line 50).
                (
                    "scm3".into(),
                    51,
                    LifeStep::Started {
                        crashed: Some(got_index_of_line(50))
                    }
                ),
                ("scm3".into(), 74, LifeStep::Started { crashed: None }),
            ]
        );
    }

    /// The event index of the kill9 fixture's line `line` (events before it: one per record with an event).
    fn got_index_of_line(line: u64) -> usize {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("scm.log");
        std::fs::write(&p, fixture("lifecycle/test-layout-kill9/scm.log")).unwrap();
        let grammar = crate::grammar::Grammar::embedded().unwrap();
        let tl = crate::timeline::build(
            &[crate::input::Source::File(p)],
            &grammar,
            &crate::scan::ScanOptions::default(),
            crate::bugs::merge_rules(crate::timeline::DEFAULT_MAX_SKEW_MS),
            &|_, _| {},
        );
        let at = tl.events.heads().position(|e| e.span.line == line);
        at.expect("an event on that line")
    }

    #[test]
    fn an_scm_dying_through_the_state_machine_updater_stops_and_restarts_without_a_crash() {
        let text = fixture("lifecycle/test-layout-updater-throwable/scm.log");
        let got = life_of_files(&[("scm.log", text.clone())]);
        assert_eq!(
            got,
            vec![
                ("scm3".into(), 1, LifeStep::Started { crashed: None }),
                ("scm3".into(), 23, LifeStep::Started { crashed: None }),
                // `caught a Throwable.` (line 51) is not yet the stop: stop() logs `Stopping the Datanode
                // Admin Monitor.` first on the same thread, then `Terminating with exit status 0` (93).
                ("scm3".into(), 75, LifeStep::Stopping),
                ("scm3".into(), 99, LifeStep::Started { crashed: None }),
                ("scm3".into(), 122, LifeStep::Started { crashed: None }),
            ]
        );
        // Without the SHUTDOWN_MSG (the logging stopped before the hook ran), the logged exit still ends the
        // run: the restart is no crash.
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[94].contains("SHUTDOWN_MSG: "), "{}", lines[94]);
        let cut: String = lines[..94]
            .iter()
            .chain(&lines[98..])
            .map(|l| format!("{l}\n"))
            .collect();
        let got = life_of_files(&[("scm.log", cut)]);
        assert!(
            got.contains(&("scm3".into(), 95, LifeStep::Started { crashed: None })),
            "{got:?}"
        );
    }

    /// A Recon banner in the test layout, as `ReconServer.call()` prints it.
    fn recon_banner(ts: &str, second_in_jvm: bool) -> String {
        let signals = if second_in_jvm {
            format!("{ts} [main] WARN  recon.ReconServer (HddsServerUtil.java:startupShutdownMessage(802)) - failed to register any UNIX signal loggers: \njava.lang.IllegalStateException: Can't re-install the signal handlers.\n\tat org.apache.hadoop.hdds.utils.SignalLogger.register(SignalLogger.java:82)\n")
        } else {
            format!("{ts} [main] INFO  recon.ReconServer (SignalLogger.java:register(99)) - registered UNIX signal handlers for [SIGHUP, SIGINT, SIGTERM]\n")
        };
        format!("{ts} [main] INFO  recon.ReconServer (HddsServerUtil.java:startupShutdownMessage(794)) - STARTUP_MSG: \n/************************************************************\nSTARTUP_MSG: Starting ReconServer\nSTARTUP_MSG:        host = recon1/172.18.0.10\nSTARTUP_MSG:     version = 2.2.0-SNAPSHOT\n************************************************************/\n{signals}{ts} [main] INFO  recon.ReconServer (ReconServer.java:start(303)) - Starting Recon server\n")
    }

    #[test]
    fn a_second_banner_in_one_jvm_is_an_in_jvm_restart_not_a_crash() {
        // A Recon daemon run with the test pattern, killed and started again: two JVMs, two registrations.
        let daemon = recon_banner("2026-08-23 17:05:14,330", false)
            + &recon_banner("2026-08-23 17:09:02,118", false);
        let got = life_of_files(&[("recon.log", daemon)]);
        let starts: Vec<_> = got
            .iter()
            .filter(|(_, line, _)| *line == 1 || *line == 9)
            .map(|(n, _, s)| (n.as_str(), *s))
            .collect();
        assert_eq!(starts.len(), 2, "{got:?}");
        assert!(
            matches!(
                starts[1],
                ("recon1", LifeStep::Started { crashed: Some(_) })
            ),
            "{got:?}"
        );
        // The same two banners where the second cannot register the signal handlers: one JVM (MiniOzoneCluster),
        // whose SHUTDOWN_MSGs only come at JVM exit. No crash, and the banner's host names no node.
        let in_jvm = recon_banner("2026-08-23 17:05:14,330", false)
            + &recon_banner("2026-08-23 17:09:02,118", true);
        let got = life_of_files(&[("TestRecon-output.txt", in_jvm)]);
        assert!(
            got.iter()
                .all(|(n, _, s)| n != "recon1"
                    && !matches!(s, LifeStep::Started { crashed: Some(_) })),
            "{got:?}"
        );
    }

    #[test]
    fn banners_in_a_file_with_other_components_are_not_that_files_process() {
        // Two Recon banners, both registering signal handlers, but SCM lines in the same file: one JVM hosting
        // several components (MiniOzoneCluster), so the banners neither name the node nor imply a crash.
        let scm = "2026-08-23 17:05:10,001 [main] INFO  server.StorageContainerManager (StorageContainerManager.java:start(1570)) - StorageContainerLocationProtocol RPC server is listening at /127.0.0.1:15001\n";
        let text = scm.to_string()
            + &recon_banner("2026-08-23 17:05:14,330", false)
            + &recon_banner("2026-08-23 17:09:02,118", false);
        let got = life_of_files(&[("TestRecon-output.txt", text)]);
        assert!(
            got.iter()
                .all(|(n, _, s)| n != "recon1"
                    && !matches!(s, LifeStep::Started { crashed: Some(_) })),
            "{got:?}"
        );
        // Without the SCM line the same file is a Recon daemon's: its second banner follows no shutdown.
        let text = recon_banner("2026-08-23 17:05:14,330", false)
            + &recon_banner("2026-08-23 17:09:02,118", false);
        let got = life_of_files(&[("TestRecon-output.txt", text)]);
        assert!(
            got.iter()
                .any(|(n, _, s)| n == "recon1"
                    && matches!(s, LifeStep::Started { crashed: Some(_) })),
            "{got:?}"
        );
    }

    #[test]
    fn minicluster_output_never_infers_a_crash_and_names_no_node_by_its_banners() {
        for case in ["violating", "healthy", "midflight"] {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/scenarios/recon-om-sync")
                .join(case)
                .join("merged");
            for f in std::fs::read_dir(dir).unwrap() {
                let p = f.unwrap().path();
                let got =
                    life_of_files(&[("merged-output.txt", std::fs::read_to_string(&p).unwrap())]);
                assert!(
                    got.iter().all(|(n, _, s)| n != "ci-runner-7"
                        && !matches!(s, LifeStep::Started { crashed: Some(_) })),
                    "{}: {got:?}",
                    p.display()
                );
            }
        }
    }

    #[test]
    fn start_failures_stop_the_run() {
        for failed in [EventKind::ScmStartFailed, EventKind::DatanodeStartFailed] {
            let s = steps(
                &[
                    EventKind::ProcessStarted,
                    failed,
                    EventKind::ExitingWithStatus,
                    EventKind::ProcessStarted,
                ],
                false,
            );
            assert_eq!(s[1], Some(LifeStep::Stopping));
            // `Exiting with status 1` ended the run: the next start is no crash.
            assert_eq!(s[3], Some(LifeStep::Started { crashed: None }));
        }
        // A logged exit ends a run like a SHUTDOWN_MSG; other stop lines do not.
        let s = steps(
            &[
                EventKind::ProcessStarted,
                EventKind::TerminatingWithStatus,
                EventKind::ProcessStarted,
            ],
            false,
        );
        assert_eq!(s[2], Some(LifeStep::Started { crashed: None }));
        let s = steps(
            &[
                EventKind::ProcessStarted,
                EventKind::StateMachineReinitializeFailed,
                EventKind::ProcessStarted,
            ],
            false,
        );
        assert_eq!(s[2], Some(LifeStep::Started { crashed: Some(1) }));
    }
}
