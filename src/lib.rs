//! mgensim: an interconnection-network simulator whose workloads are Lua scripts.
//!
//! Every rank of a job runs the same Lua script as its own coroutine, calling an MPI-like API
//! with RDMA (`MGEN_rdma_put`, `MGEN_rdma_poll`, `MGEN_acp_complete`, `MGEN_Comp`, …). The
//! engine runs those coroutines against a deterministic discrete-event core and a packet-level
//! model of routers and links, and predicts how long the pattern takes.
//!
//! Modules follow the data: [`script`] (ranks and the API) → [`rdma`] and [`mpi`]
//! (operations) → [`nic`]
//! (DMA and packets) → [`net`] (routers, links, routing) → [`sim`] (events) → back to the ranks
//! through the [`engine`]. [`node`] places ranks on nodes and picks their NICs; [`config`]
//! reads scenarios, [`units`] holds the unit newtypes and
//! [`report`] the summary; [`probe`] records time series, buffer histories and timelines
//! when asked.

pub mod calls;
pub mod config;
pub mod engine;
pub mod event;
pub mod files;
pub mod limits;
pub mod mpi;
pub mod net;
pub mod nic;
pub mod node;
pub mod output;
pub mod perf;
pub mod plot;
pub mod probe;
pub mod random;
pub mod rank;
pub mod rdma;
pub mod report;
pub mod script;
pub mod sim;
pub mod sweep;
pub mod units;
pub mod world;

pub use config::Scenario;
pub use engine::{SimError, Simulation};
pub use report::Report;
