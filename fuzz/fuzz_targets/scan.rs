//! Log record scanning with every built-in layout (byte 0 picks it, byte 1 the block size).
//! The contract it asserts is `ozone_conform::contract::scan`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ozone_conform::contract::scan(data));
