//! HDDS-16828: a datanode persisting a PutBlock after the block was finalized.
//! Its description (invariants, codes, advice, spec citation) is [`ABOUT`], which the monitor and the
//! witness both read; the spec is `traces/dn-finalize-block/DnFinalizeBlock.tla`.
//!
//! **One reading, two kinds of state.** The monitor (`monitor.rs`) and the witness table (`witness.rs`) read
//! the same lines in one pass (the monitor feeds the table through `Model::witness`), through the same
//! predicates: [`ABOUT`]'s role, the timeline's lifecycle, `witness::block_of` and the mirror's typed actions.
//! Their state differs because their jobs do: the monitor judges every block on every datanode with partial
//! knowledge (every finalized block, kept for good, and whether BlockManagerImpl's DEBUG lines are in view, so
//! that a log without them says *inconclusive* and why); the witness table follows the one block the spec
//! has and keeps what placing the mirror's actions for `export` needs (each datanode up or down, its last
//! bcsId, the witness index of its run's stop), and decides nothing: the mirror does.

pub mod events;
#[cfg(any(test, feature = "testing"))]
pub mod logs;
pub mod mirror;
pub mod monitor;
pub mod witness;

use super::Bug;
use crate::monitor::{About, Invariant, Role, Spec};
use crate::vocab::Component;

const INVARIANTS: &[Invariant] = &[Invariant {
    name: "NoPutBlockAfterFinalize",
    code: "OZ-DN-BLOCK-001",
    summary: "a datanode persisted a PutBlock for a block after it had finalized that block",
    advice: "The writer's hsync was acknowledged for bytes beyond the length lease recovery closed the file at: those bytes are not in the file. Check the key's length in OM against the block's committed length on the datanodes.",
    signature: &[],
}];

pub(crate) const ABOUT: About = About {
    name: "dn-finalize-block",
    spec: Spec {
            module: "DnFinalizeBlock",
            path: "traces/dn-finalize-block/DnFinalizeBlock.tla",
            issue: "HDDS-16828",
        },
    invariants: INVARIANTS,
    role: Role {
        service: Component::Datanode,
        unknown_service_if: witness::is_block_line,
    },
    nothing_checked: "no block was finalized in view (`Block has been finalized`); PutBlocks are only visible with `log4j.logger.org.apache.hadoop.ozone.container.keyvalue.impl.BlockManagerImpl=DEBUG`",
    grammars: &["dn-finalize-block.rules", "lifecycle.rules", "common.rules"],
};

pub const BUG: Bug = Bug {
    about: &ABOUT,
    causal: &[],
    monitor: || Box::new(monitor::DnFinalizeBlock::default()),
    mirror: &crate::mirror::Mirrored::<mirror::DnFinalizeBlock>::new(),
    #[cfg(any(test, feature = "testing"))]
    refinement: crate::refinement::Refinement::of::<mirror::DnFinalizeBlock, logs::Renderer>(
        logs::MAX_LEN,
    ),
};

observer_test!(super::mirror::DnFinalizeBlock);
