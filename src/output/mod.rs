//! Renderers: strace-style text and JSON Lines from the same values.

pub mod latch;
pub mod normalize;
