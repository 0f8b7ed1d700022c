//! Where rendered text goes: the line latch that keeps a syscall's line whole
//! across threads, the normaliser for comparing runs, and the paced writer
//! that flushes a live trace at a steady rate. Rendering itself is in `value`.

pub mod latch;
pub mod normalize;
pub mod paced;
pub mod roff;
