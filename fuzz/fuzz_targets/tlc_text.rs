//! TLC's console and `-tool` output.
//! The contract it asserts is `ozone_conform::contract::tlc_text`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ozone_conform::contract::tlc_text(data));
