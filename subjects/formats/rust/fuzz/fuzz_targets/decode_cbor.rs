#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| formats_rust::fuzz::decode("cbor", data));
