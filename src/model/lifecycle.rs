//! Process lifecycle, shared by every model: starts, stops, and crashes inferred from banners.
//!
//! A daemon's STARTUP_MSG with no SHUTDOWN_MSG since its previous run means that run died abruptly (kill -9,
//! OOM kill, power loss): nothing else is logged for a crash. Single-JVM integration-test output has no such
//! rule (components stop and start without banners, Recon prints a banner per start and its SHUTDOWN_MSGs only
//! at JVM exit), so there the in-JVM stop and start lines are the lifecycle.

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
                life.shut_down |= k == EventKind::ProcessShutdown;
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
