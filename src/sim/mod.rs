//! The discrete-event core: the deterministic queue that orders events of any type by their
//! time in picoseconds. It knows nothing of the model: the model's events are `event.rs`'s.

pub(crate) mod heap;
pub(crate) mod queue;

pub(crate) use queue::EventQueue;

/// The moment a handler acts at, as the dispatch (`part/dispatch.rs`) hands it to a layer: the
/// time (ps) and the partition's event queue.
pub(crate) struct Ctx<'a, E> {
    pub(crate) now: crate::units::Time,
    pub(crate) q: &'a mut EventQueue<E>,
}
