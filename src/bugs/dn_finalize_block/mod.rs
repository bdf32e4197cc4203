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

#[cfg(test)]
mod tests {
    #[test]
    fn the_monitor_hands_the_violating_scenario_to_its_witness_and_back() {
        crate::bugs::testkit::assert_observer_witnesses_the_violating_scenario::<
            super::mirror::DnFinalizeBlock,
        >(&super::BUG);
    }
}
