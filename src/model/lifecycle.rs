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

#[derive(Default)]
struct NodeLife {
    /// Index of the last event seen from this run, if any.
    last: Option<usize>,
    stopping: bool,
    /// The run ended by itself: SHUTDOWN_MSG, or an exit line (`Terminating with exit status`, `Exiting with
    /// status`), after which the JVM exits through its shutdown hooks; the next start is no crash even when the
    /// SHUTDOWN_MSG is missing (the logging framework may stop before the banner hook runs).
    shut_down: bool,
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
        EventKind::ProcessShutdown | EventKind::TerminatingWithStatus | EventKind::ExitingWithStatus
    )
}

impl Lifecycle {
    /// Observes event `index`; returns the lifecycle step it makes, if any.
    pub fn observe(&mut self, index: usize, e: &Event, test_output: bool) -> Option<LifeStep> {
        e.node.as_ref()?;
        let key = e.node_key as usize;
        if key >= self.nodes.len() {
            self.nodes.resize_with(key + 1, NodeLife::default);
        }
        let life = &mut self.nodes[key];
        let step = match e.kind {
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
    use crate::model::testkit::{daemon, ev, run, test_output, text};
    use EventKind::*;

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
            &[ProcessStarted, CheckpointInstalled, ProcessStarted],
            false,
        );
        assert_eq!(s[0], Some(LifeStep::Started { crashed: None }));
        assert_eq!(s[1], None);
        // The last event of the crashed run is index 1.
        assert_eq!(s[2], Some(LifeStep::Started { crashed: Some(1) }));
        // A banner right after a banner: the first run died at its own banner.
        let s = steps(&[ProcessStarted, ProcessStarted], false);
        assert_eq!(s[1], Some(LifeStep::Started { crashed: Some(0) }));
    }

    #[test]
    fn startup_after_shutdown_is_no_crash() {
        let s = steps(
            &[
                ProcessStarted,
                CheckpointInstalled,
                ProcessShutdown,
                ProcessStarted,
            ],
            false,
        );
        assert_eq!(s[2], Some(LifeStep::Stopping));
        assert_eq!(s[3], Some(LifeStep::Started { crashed: None }));
        // SHUTDOWN_MSG after other stop lines still marks a clean shutdown.
        let s = steps(
            &[
                ProcessStarted,
                ComponentStopping,
                ProcessShutdown,
                ProcessStarted,
            ],
            false,
        );
        assert_eq!(s[3], Some(LifeStep::Started { crashed: None }));
        // Stop lines without SHUTDOWN_MSG do not make a clean shutdown.
        let s = steps(&[ProcessStarted, ComponentStopping, ProcessStarted], false);
        assert_eq!(s[2], Some(LifeStep::Started { crashed: Some(1) }));
    }

    #[test]
    fn test_output_never_infers_a_crash() {
        let s = steps(&[ProcessStarted, CheckpointInstalled, ProcessStarted], true);
        assert_eq!(s[0], Some(LifeStep::Started { crashed: None }));
        assert_eq!(s[2], Some(LifeStep::Started { crashed: None }));
    }

    #[test]
    fn test_output_through_the_timeline_never_infers_a_crash() {
        // Same events, once as a daemon file and once as test output: only the daemon file shows a crash.
        let events = || {
            vec![
                ev(
                    ProcessStarted,
                    "recon1",
                    0,
                    vec![("service", text("ReconServer"))],
                ),
                ev(CheckpointInstalled, "recon1", 10, vec![]),
                ev(
                    ProcessStarted,
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
                .map(|(i, e)| life.observe(i, e, tl.test_output[0]))
                .collect();
            assert_eq!(got[2], Some(LifeStep::Started { crashed }));
        }
    }

    #[test]
    fn only_the_first_stop_line_of_a_run_is_stopping() {
        let s = steps(
            &[
                ProcessStarted,
                ComponentStopping,
                TerminatingWithStatus,
                ExitingWithStatus,
                ProcessShutdown,
                ProcessStarted,
                StateMachineReinitializeFailed,
                ComponentStopping,
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
    fn in_jvm_start_after_a_stop_begins_a_new_run() {
        let s = steps(
            &[
                ComponentStarting,
                ComponentStopping,
                ComponentStarting,
                ComponentStopping,
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
        let mut anon = ev(ProcessStarted, "", 0, vec![]);
        anon.node_key = u32::MAX;
        assert_eq!(life.observe(0, &anon, false), None);
        let mut a = ev(ProcessStarted, "scm1", 1, vec![]);
        a.node_key = 0;
        let mut b = ev(ProcessShutdown, "scm2", 2, vec![]);
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
}
