#![warn(missing_docs, unreachable_pub)]
#![deny(unsafe_op_in_unsafe_fn)]
//! mgensim: an interconnection-network simulator whose workloads are Lua scripts.
//!
//! Every rank of a job runs the same Lua script as its own coroutine, calling an MPI-like API
//! with RDMA (`MGEN_rdma_put`, `MGEN_rdma_poll`, `MGEN_acp_complete`, `MGEN_Comp`, …). The
//! engine runs those coroutines against a deterministic discrete-event core and a packet-level
//! model of routers and links, and predicts how long the pattern takes.
//!
//! Modules follow the data: `script` (ranks and the API) → `part` (a partition's operations) → `rdma` and
//! `mpi` → `nic` (DMA and packets) → `net` (routers, links, routing) → `sim` (events) →
//! back to the ranks through the `engine`. `config` reads scenarios, [`units`] holds the
//! unit newtypes and `report` the summary; `probe` records time series, buffer histories
//! and timelines when asked. How the modules depend on each other: `docs/architecture.md`.
//!
//! The public surface (the face) is what the command line (`main.rs`, `cli/`), the Python
//! module (`python/`), the integration tests and the benchmarks use, and nothing else: the
//! front end's own modules ([`run`], what a front end does around the engine to make a run;
//! [`sweep`]; [`curve`]; [`output`]; [`units`]), and below, the few items of the model's
//! modules a front end names. Every other module is `pub(crate)`, and so is every item no
//! front end needs; `tests/layout.rs` counts what is `pub` and holds it to a bound.

// The front end's modules: their `pub` items are part of the face.
pub mod curve;
pub mod output;
pub mod run;
pub mod sweep;
pub mod units;

// The model: internal, but for the items re-exported below.
pub(crate) mod api;
pub(crate) mod calls;
pub(crate) mod config;
pub(crate) mod cut;
pub(crate) mod engine;
pub(crate) mod event;
pub(crate) mod fabric;
pub(crate) mod files;
pub(crate) mod host;
pub(crate) mod limits;
pub(crate) mod lualib;
pub(crate) mod mpi;
pub(crate) mod net;
pub(crate) mod nic;
pub(crate) mod node;
pub(crate) mod openloop;
pub(crate) mod packed;
pub(crate) mod part;
pub(crate) mod partition;
pub(crate) mod perf;
pub(crate) mod plot;
pub(crate) mod probe;
pub(crate) mod random;
pub(crate) mod rank;
pub(crate) mod rdma;
pub(crate) mod replay;
pub(crate) mod report;
pub(crate) mod script;
pub(crate) mod sim;
pub(crate) mod tags;
pub(crate) mod topology;
pub(crate) mod traffic;
pub(crate) mod words;

pub use config::{replay::scenario as replay_scenario, scenario_keys, Scenario};
pub use engine::{SimError, Simulation, Stop};
pub use files::{library_dir, read_source};
pub use limits::Limit;
pub use perf::hugepages::{map_large_blocks, HugePages};
pub use plot::timeline_svg;
pub use probe::Probes;
pub use replay::trace::is_trace;
pub use report::{html::page as html_page, text::escaped, Report};
/// The event queue, for its benchmark (`benches/queue.rs`).
pub use sim::queue::EventQueue;

/// `mgensim check`'s look at the scripts' names (see `script/names.rs`).
pub(crate) use script::names::unknown_in as unknown_api_names;
