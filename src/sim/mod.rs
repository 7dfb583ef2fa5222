//! The discrete-event core: typed events and the deterministic queue that orders them.

pub mod event;
pub mod heap;
pub mod hugepages;
pub mod pool;
pub mod prefetch;
pub mod queue;
pub mod valgrind;

pub use event::Event;
pub use queue::EventQueue;
