//! Every lab's section, one module each, registered in `LABS`. A row belongs to the lab its
//! `lab` names (the runner stamps it from the suite); adding a lab is one module here and one line
//! in `LABS`.

mod formats;
mod parse;
mod protocols;
mod realtime;
mod restcache;
mod wasm;

use crate::section::Lab;

/// The labs in the order their sections appear.
pub static LABS: &[&dyn Lab] = &[
    &protocols::ProtocolsLab,
    &restcache::RestCacheLab,
    &formats::FormatsLab,
    &parse::ParseLab,
    &realtime::RealtimeLab,
    &wasm::WasmLab,
];
