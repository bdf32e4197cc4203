//! HDDS-16828: a datanode persisting a PutBlock after the block was finalized. The description (invariants, codes, advice, spec citation) is
//! [`monitor::ABOUT`]; the spec is `traces/dn-finalize-block/DnFinalizeBlock.tla`.

pub mod logs;
pub mod mirror;
pub mod monitor;
pub mod witness;

use super::Bug;

pub const BUG: Bug = Bug {
    about: &monitor::ABOUT,
    monitor: || Box::new(monitor::DnFinalizeBlock::default()),
    mirror: &crate::spec::Mirrored::<mirror::DnFinalizeBlock>::new(),
    refinement: crate::refinement::Refinement::of::<mirror::DnFinalizeBlock, logs::Renderer>(
        logs::MAX_LEN,
    ),
};

observer_test!(super::mirror::DnFinalizeBlock);
