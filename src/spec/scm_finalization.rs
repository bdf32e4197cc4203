//! PLACEHOLDER: the mirror is being written on another branch.
use super::{Constants, Mirror, Step};
use crate::tla::value::TlaValue;
pub struct ScmFinalization;
impl Mirror for ScmFinalization {
    type State = ();
    const MODEL: &'static str = "scm-finalization";
    const MODULE: &'static str = "ScmFinalization";
    const VARIABLES: &'static [&'static str] = &[];
    const ACTIONS: &'static [&'static str] = &[];
    const INVARIANTS: &'static [&'static str] = &[];
    const PATCH_CONSTANT: &'static str = "";
    fn new(_: &Constants) -> Result<Self, String> {
        Err("placeholder".into())
    }
    fn init(&self) -> Vec<()> {
        vec![]
    }
    fn next(&self, _: &()) -> Vec<Step<()>> {
        vec![]
    }
    fn holds(&self, _: &str, _: &()) -> bool {
        true
    }
    fn to_tla(&self, _: &()) -> Vec<TlaValue> {
        vec![]
    }
    fn from_tla(&self, _: &[TlaValue]) -> Result<(), String> {
        Ok(())
    }
}
