//! A `--grammar` rules file, parsed and built over the embedded rules.
//! The contract it asserts is `ozone_conform::contract::grammar_file`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ozone_conform::contract::grammar_file(data));
