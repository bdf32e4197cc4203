//! Which log events witness which spec actions, per model: the bridge from a merged timeline to a behaviour
//! of the spec (see [`crate::spec::export`]).

pub mod dn_finalize_block;
pub mod recon_om_sync;
pub mod scm_finalization;
pub mod scm_secret_keys;

use crate::spec::export::Witnessed;
use crate::timeline::Timeline;

/// The witnessed actions of `model` along the timeline.
pub fn witnesses(model: &str, timeline: &Timeline) -> Witnessed {
    match model {
        "scm-secret-keys" => scm_secret_keys::witnesses(timeline),
        "scm-finalization" => scm_finalization::witnesses(timeline),
        "dn-finalize-block" => dn_finalize_block::witnesses(timeline),
        "recon-om-sync" => recon_om_sync::witnesses(timeline),
        _ => Witnessed::default(),
    }
}
