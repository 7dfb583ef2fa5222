//! The discrete-event core: the deterministic queue that orders events of any type by their
//! time in picoseconds. It knows nothing of the model: the model's events are `event.rs`'s.

pub(crate) mod heap;
pub(crate) mod queue;

pub(crate) use queue::EventQueue;
