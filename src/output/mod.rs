//! Renderers: strace-style text and JSON Lines from the same values.

pub mod json;
pub mod latch;
pub mod normalize;
pub mod paced;
pub mod text;
