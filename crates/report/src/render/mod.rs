//! The outputs: each renders the report's sections in its own syntax and knows no lab.

pub mod csv;
pub mod html;
pub mod markdown;
