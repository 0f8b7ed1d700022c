//! Renderers: strace-style text and JSON Lines from the same values.

pub mod text;
