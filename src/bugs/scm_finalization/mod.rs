//! HDDS-17089: SCM upgrade finalization across a snapshot install.
//! Its description (invariants, codes, advice, spec citation) is [`ABOUT`], which the monitor and the
//! witness both read; the spec is `traces/scm-finalization/ScmFinalization.tla`.
//!
//! **One reading, two kinds of state.** The monitor (`monitor.rs`) and the witness table (`witness.rs`) read
//! the same lines in one pass (the monitor feeds the table through `Model::witness`), through the same
//! predicates ([`ABOUT`]'s role, the lifecycle, `witness::datanode_of`) and the mirror's typed actions. Their
//! state differs because their jobs do: the monitor decides with partial knowledge (each SCM's database
//! version ahead of its VERSION file, the fences within the clock skew of a peer's finalize, pruned as time
//! passes) and says *inconclusive* where a line it needs is missing; the witness table reconstructs the
//! mirror's actions for `export` (each SCM's run, stop and install steps, how nodes are named as model
//! values) and decides nothing: the mirror does.

pub mod events;
#[cfg(any(test, feature = "testing"))]
pub mod logs;
pub mod mirror;
pub mod monitor;
pub mod witness;

use super::Bug;
use crate::monitor::{About, Invariant, Role, Spec};
use crate::vocab::Component;

const INVARIANTS: &[Invariant] = &[
    Invariant {
        name: "VersionFileCoversDb",
        code: "OZ-SCM-FIN-001",
        summary: "an SCM restarted pre-finalized on top of a DB that a checkpoint had finalized",
        advice: "This SCM will fence every finalized datanode. Run `ozone admin scm finalizeupgrade` again (this SCM applies it), or reinstall its DB from the leader; then restart the datanodes it shut down.",
        signature: &[],
    },
    Invariant {
        name: "NoFinalizedDatanodeFenced",
        code: "OZ-SCM-FIN-002",
        summary: "an SCM fenced a datanode although the cluster is finalized to the datanode's version",
        advice: "The fencing SCM runs behind its peers' finalization and shuts down every finalized datanode that registers with it. Finalize it (`ozone admin scm finalizeupgrade`), then restart the stopped datanodes.",
        signature: &[],
    },
];

pub(crate) const ABOUT: About = About {
    name: "scm-finalization",
    spec: Spec {
            module: "ScmFinalization",
            path: "traces/scm-finalization/ScmFinalization.tla",
            issue: "HDDS-17089",
        },
    invariants: INVARIANTS,
    role: Role::known(Component::Scm),
    nothing_checked: "no checkpoint install that raised the apparent version (`New snapshot received with higher apparent version`) and no datanode fencing in view",
    grammars: &["scm-finalization.rules", "scm-secret-keys.rules", "identity.rules"],
};

pub const BUG: Bug = Bug {
    about: &ABOUT,
    causal: &[&super::scm_raft::LEADER_TERM],
    monitor: || Box::new(monitor::ScmFinalization::default()),
    mirror: &crate::mirror::Mirrored::<mirror::ScmFinalization>::new(),
    #[cfg(any(test, feature = "testing"))]
    refinement: crate::refinement::Refinement::of::<mirror::ScmFinalization, logs::Renderer>(
        logs::MAX_LEN,
    ),
};

observer_test!(super::mirror::ScmFinalization);
