//! Executable mirrors of the TLA+ specs in `traces/<model>/`: the same variables, actions (crash and restart
//! among them) and invariants, under the same names, stepping the full spec state.
//!
//! The log monitors in [`crate::monitor`] judge logs with three-valued knowledge; these mirrors are exact: `init`
//! and `next` enumerate what the spec's `Init` and `Next` allow, so a breadth-first search over a mirror finds
//! the very state counts TLC reports, a TLC trace replays through it step by step, and a behaviour built from
//! logs is a behaviour of the spec.

pub mod constants;
pub mod export;
pub mod replay;

mod dynamic;
pub use dynamic::{Exported, Mirrored, SpecMirror, Walk};

use crate::tla::value::TlaValue;

pub use crate::tla::cfg::Constants;

/// One successor of a state: the action that leads there, its parameters in the order the spec declares
/// them (`BecomeLeader(s)` has `[s]`), and the new state.
#[derive(Debug, Clone)]
pub struct Step<S, A> {
    pub action: A,
    pub params: Vec<TlaValue>,
    pub next: S,
}

/// A spec's actions, typed (as stateright's `Model::Action`): one enum per mirror, one variant per action
/// `Next` is the disjunction of, named as the module names it, so an action's name is spelled once, in the
/// mirror's [`spec_actions!`](crate::spec_actions). The witness emits these, the refinement renderers match
/// on them (exhaustively: a new action fails to compile where it is not handled); the text form is for what
/// comes in as text (TLC and ITF traces) and what goes out as text (exports, reports).
pub trait Action:
    Copy + Eq + std::hash::Hash + std::fmt::Debug + std::fmt::Display + Send + Sync + 'static
{
    /// Every action, in the order of the module's `Next`.
    const ALL: &'static [Self];
    /// Their names, in the same order.
    const NAMES: &'static [&'static str];
    /// The action's name in the module, e.g. `BecomeLeader`.
    fn name(self) -> &'static str;
    /// The action the module names `name`.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|a| a.name() == name)
    }
    /// Which of the node lifecycle actions every spec has (named alike in each module) this is, if any.
    fn lifecycle(self) -> Option<Lifecycle> {
        match self.name() {
            "Crash" => Some(Lifecycle::Crash),
            "Restart" => Some(Lifecycle::Restart),
            "Stop" => Some(Lifecycle::Stop),
            _ => None,
        }
    }
}

/// The node lifecycle actions every spec has, under these names: a node crashes (no line says so), restarts
/// (its banner), or stops cleanly (its shutdown lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifecycle {
    Crash,
    Restart,
    Stop,
}

/// `enum $name` with one variant per spec action (each variant's name is the action's TLA+ name), and its
/// [`Action`], `Display` (the name) and `FromStr` (from the name).
#[macro_export]
macro_rules! spec_actions {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }

        #[allow(dead_code)]
        impl $name {
            /// Every action, in the order of the module's `Next`.
            pub const ALL: &'static [Self] = &[$($name::$variant),+];
            /// Their names, in the same order.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($variant)),+];
            /// The action's name in the module.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$variant => stringify!($variant)),+
                }
            }
        }

        impl $crate::mirror::Action for $name {
            const ALL: &'static [Self] = $name::ALL;
            const NAMES: &'static [&'static str] = $name::NAMES;
            fn name(self) -> &'static str {
                $name::name(self)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str($crate::mirror::Action::name(*self))
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                <Self as $crate::mirror::Action>::from_name(s)
                    .ok_or_else(|| format!("`{s}` is not an action of this module"))
            }
        }
    };
}

/// A TLA+ spec, mirrored in Rust.
pub trait Mirror: Sized + Sync {
    /// The spec's state: every variable of the module's `vars` tuple.
    type State: Clone + Eq + std::hash::Hash + std::fmt::Debug + Send + Sync;
    /// The actions `Next` is the disjunction of, as the module names them ([`spec_actions!`](crate::spec_actions)).
    type Action: Action;

    /// The model's name as `--model` takes it, e.g. `scm-secret-keys`.
    const MODEL: &'static str;
    /// The TLA+ module, e.g. `ScmSecretKeys`.
    const MODULE: &'static str;
    /// The variables in the order of the module's `vars` tuple.
    const VARIABLES: &'static [&'static str];
    /// The invariants the shipped configs check, `TypeOK` first.
    const INVARIANTS: &'static [&'static str];
    /// The boolean constant that models the seed's patch (`FALSE` in the bug config, `TRUE` in the fixed one).
    const PATCH_CONSTANT: &'static str;
    /// The spec's text and its shipped configs ([`shipped_spec!`](crate::shipped_spec)).
    const SPEC: ShippedSpec;

    /// The mirror under these constants; an error names a missing or ill-typed constant.
    fn new(constants: &Constants) -> Result<Self, String>;
    /// Every initial state `Init` allows.
    fn init(&self) -> Vec<Self::State>;
    /// Every successor `Next` allows, one per action instance (actions that are not enabled give none).
    fn next(&self, state: &Self::State) -> Vec<Step<Self::State, Self::Action>>;
    /// The successors the export's search for the step `action(params)` tries first: those of `next`, in
    /// its order, without the instances of a *wide* action (one instance per value of a range that grows
    /// with the log, like `OmRestore(n)` for every sequence number below Recon's cursor) other than
    /// `action(params)` itself. The search falls back to `next` when these do not reach the step, so a
    /// mirror may leave out only instances that never make the run to a step it reaches shorter. `None`
    /// (the default): the spec has no wide action, and the search is over `next` alone.
    fn next_toward(
        &self,
        _state: &Self::State,
        _action: Self::Action,
        _params: &[TlaValue],
    ) -> Option<Vec<Step<Self::State, Self::Action>>> {
        None
    }
    /// Does the invariant (one of [`Mirror::INVARIANTS`]) hold in this state?
    fn holds(&self, invariant: &str, state: &Self::State) -> bool;
    /// The state as TLA+ values, one per variable, in [`Mirror::VARIABLES`] order.
    fn to_tla(&self, state: &Self::State) -> Vec<TlaValue>;
    /// The state these TLA+ values describe (variables in [`Mirror::VARIABLES`] order); an error names the
    /// first variable whose value is outside the spec's types.
    #[allow(clippy::wrong_self_convention)]
    fn from_tla(&self, values: &[TlaValue]) -> Result<Self::State, String>;

    /// The first invariant of [`Mirror::INVARIANTS`] this state violates.
    fn first_violated(&self, state: &Self::State) -> Option<&'static str> {
        Self::INVARIANTS
            .iter()
            .copied()
            .find(|inv| !self.holds(inv, state))
    }
}

/// A spec as shipped in `traces/<model>/`: its text and its two TLC configs, embedded so that `trace` and
/// `export` work from any directory.
#[derive(Debug, Clone, Copy)]
pub struct ShippedSpec {
    pub model: &'static str,
    pub module: &'static str,
    pub dir: &'static str,
    pub tla: &'static str,
    /// `(file name, text)`: the bug config, then the fixed one.
    pub configs: [(&'static str, &'static str); 2],
}

/// The [`ShippedSpec`] of `traces/<model>/<module>.tla` with its `<module>.cfg` (bug) and `<module>Fixed.cfg`.
#[macro_export]
macro_rules! shipped_spec {
    ($model:literal, $module:literal) => {
        $crate::mirror::ShippedSpec {
            model: $model,
            module: $module,
            dir: concat!("traces/", $model),
            tla: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/traces/",
                $model,
                "/",
                $module,
                ".tla"
            )),
            configs: [
                (
                    concat!($module, ".cfg"),
                    include_str!(concat!(
                        env!("CARGO_MANIFEST_DIR"),
                        "/traces/",
                        $model,
                        "/",
                        $module,
                        ".cfg"
                    )),
                ),
                (
                    concat!($module, "Fixed.cfg"),
                    include_str!(concat!(
                        env!("CARGO_MANIFEST_DIR"),
                        "/traces/",
                        $model,
                        "/",
                        $module,
                        "Fixed.cfg"
                    )),
                ),
            ],
        }
    };
}
