//! A TLC `-simulate file=` dump.
//! The contract it asserts is `ozone_conform::contract::simulate`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ozone_conform::contract::simulate(data));
