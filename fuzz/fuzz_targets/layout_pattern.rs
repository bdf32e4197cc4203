//! A `--layout` pattern (first line) and a log in it (the rest).
//! The contract it asserts is `ozone_conform::contract::layout_pattern`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ozone_conform::contract::layout_pattern(data));
