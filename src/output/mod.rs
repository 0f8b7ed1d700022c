//! Renderers: strace-style text and JSON Lines from the same values.

pub mod json;
pub mod json_shape;
pub mod latch;
pub mod normalize;
pub mod text;
