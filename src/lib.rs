#![warn(missing_docs, unreachable_pub)]
#![deny(unsafe_op_in_unsafe_fn)]
//! mgensim: an interconnection-network simulator whose workloads are Lua scripts.
//!
//! Every rank of a job runs the same Lua script as its own coroutine, calling an MPI-like API
//! with RDMA (`MGEN_rdma_put`, `MGEN_rdma_poll`, `MGEN_acp_complete`, `MGEN_Comp`, …). The
//! engine runs those coroutines against a deterministic discrete-event core and a packet-level
//! model of routers and links, and predicts how long the pattern takes.
//!
//! Modules follow the data: `script` (ranks and the API) → `world` (operations) → `rdma` and
//! `mpi` → `nic` (DMA and packets) → [`net`] (routers, links, routing) → [`sim`] (events) →
//! back to the ranks through the [`engine`]. [`config`] reads scenarios, [`units`] holds the
//! unit newtypes and [`report`] the summary; [`probe`] records time series, buffer histories
//! and timelines when asked. The public surface is what the command line, the tests and the
//! benchmarks use; the model's internals are `pub(crate)`. [`run`] is what a front end (the
//! command line, the Python module) does around the engine to make a run. How the modules
//! depend on each other: `docs/architecture.md`.

pub(crate) mod api;
pub(crate) mod calls;
pub mod config;
pub mod curve;
pub(crate) mod cut;
pub mod engine;
pub mod event;
pub mod files;
pub mod host;
pub mod limits;
pub(crate) mod lualib;
pub(crate) mod mpi;
pub mod net;
pub(crate) mod nic;
pub(crate) mod node;
pub mod openloop;
pub mod output;
pub(crate) mod part;
pub mod partition;
pub mod perf;
pub mod plot;
pub mod probe;
pub(crate) mod random;
pub(crate) mod rank;
pub(crate) mod rdma;
pub mod replay;
pub mod report;
pub mod run;
pub(crate) mod script;
pub mod sim;
pub mod sweep;
pub(crate) mod tags;
pub mod topology;
pub mod traffic;
pub mod units;
pub mod words;

pub use config::Scenario;
pub use engine::{SimError, Simulation};
pub use report::Report;

/// `mgensim check`'s look at the scripts' names (see `script/names.rs`).
pub use script::names::unknown_in as unknown_api_names;
