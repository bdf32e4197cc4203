//! HDDS-16923: secret keys an SCM installs with a Raft snapshot.
//! Its description (invariants, codes, advice, spec citation) is [`ABOUT`], which the monitor and the
//! witness both read; the spec is `traces/scm-secret-keys/ScmSecretKeys.tla`.
//!
//! **One reading, two kinds of state.** The monitor (`monitor.rs`) and the witness table (`witness.rs`) read
//! the same lines in one pass (the monitor feeds the table through `Model::witness`), through the same
//! predicates ([`ABOUT`]'s role, whose test for a node of unknown service is `witness::is_key_line`, and the
//! lifecycle), and both keep a node's install in the mirror's own [`mirror::Phase`]. Beyond that their state differs because their jobs do: the monitor
//! decides with partial knowledge (the cluster's keys with their expiries and each node's UTC offset, the
//! event indices behind each install step, for spans and causal chains) and says *inconclusive* where a line
//! it needs is missing; the witness table reconstructs the mirror's actions for `export` (a failed install
//! ending in `FailSave`, a startup with no shutdown before it as `Crash` then `Restart`) and decides nothing:
//! the mirror does.

pub mod events;
#[cfg(any(test, feature = "testing"))]
pub mod logs;
pub mod mirror;
pub mod monitor;
pub mod witness;

use super::Bug;
use crate::monitor::{About, Invariant, Role, Spec};
use crate::timeline::causal::{CausalRule, Fact};
use crate::value::Value;
use crate::vocab::{Component, EventKind};

const INVARIANTS: &[Invariant] = &[
    Invariant {
        name: "KeyFileCoversDb",
        code: "OZ-SCM-KEYS-001",
        summary: "an SCM stopped after replacing scm.db with the leader's checkpoint but before saving the leader's secret keys",
        advice: "Do not let this SCM become leader until a key rotation has reached it (or run `ozone admin scm transfer` to another SCM); check that its secret_keys.json holds every unexpired key of the leader. The fix saves the keys before the DB swap.",
        signature: &["SecretKeysSaved: `Saved [...] to file .../secret_keys.json` after `Replaced DB with checkpoint` and before the SCM stops: without it the key file never caught up with the installed DB"],
    },
    Invariant {
        name: "NoUnexpiredKeyDropped",
        code: "OZ-SCM-KEYS-002",
        summary: "an SCM applied a secret key set that drops keys that have not expired",
        advice: "Tokens signed with the dropped keys now fail (`Can't find the signing secret key`). Run `ozone admin om fetch-key` so OM signs with the new key, and expect clients with old tokens to fail until they renew.",
        signature: &[],
    },
];

pub(crate) const ABOUT: About = About {
    name: "scm-secret-keys",
    spec: Spec {
            module: "ScmSecretKeys",
            path: "traces/scm-secret-keys/ScmSecretKeys.tla",
            issue: "HDDS-16923",
        },
    invariants: INVARIANTS,
    role: Role {
        service: Component::Scm,
        unknown_service_if: witness::is_key_line,
    },
    nothing_checked: "no snapshot install with secret keys (`Got secret keys from leaders [...]` then `Replaced DB with checkpoint`) and no unexpired key history in view; security may be off, or the logs start after those steps",
    grammars: &["scm-secret-keys.rules", "identity.rules", "common.rules"],
};

/// A secret key is generated on one SCM before any other SCM can know it: the first line that generates or
/// rotates in a key id comes before every other SCM's line that names that id.
pub const KEY_ORIGIN: CausalRule = CausalRule {
    name: "secret-key-origin",
    carries: |kind| {
        kind.fields()
            .iter()
            .any(|f| f.name == "keys" || f.name == "key")
    },
    facts: |kind, fields, out| {
        let ids: Vec<&str> = match fields
            .iter()
            .find(|(n, _)| *n == "keys" || *n == "key")
            .map(|(_, v)| v)
        {
            Some(Value::SecretKeys(ks)) => ks.iter().map(|k| k.id.as_str()).collect(),
            Some(Value::SecretKey(k)) => vec![k.id.as_str()],
            _ => Vec::new(),
        };
        let makes = matches!(
            kind,
            EventKind::SecretKeyGenerated | EventKind::SecretKeyRotated
        );
        for id in ids {
            if makes {
                out.push(Fact::Makes(format!("key:{id}")));
            }
            out.push(Fact::Uses(format!("key:{id}")));
        }
    },
};

pub const BUG: Bug = Bug {
    about: &ABOUT,
    causal: &[&KEY_ORIGIN, &super::scm_raft::LEADER_TERM],
    monitor: || Box::new(monitor::ScmSecretKeys::default()),
    mirror: &crate::mirror::Mirrored::<mirror::ScmSecretKeys>::new(),
    #[cfg(any(test, feature = "testing"))]
    refinement: crate::refinement::Refinement::of::<mirror::ScmSecretKeys, logs::Renderer>(
        logs::MAX_LEN,
    ),
};

observer_test!(super::mirror::ScmSecretKeys);
