//! ccarena-core: a deterministic, packet-level network simulator for congestion control.
//!
//! Data flows one way: a [`scenario::Scenario`] is parsed and validated, built into an
//! [`engine::World`], run on one thread, and collected into a [`record::result::RunResult`]
//! ([`sim::run`] does all three).

pub mod app;
pub mod cc;
pub mod dccp;
pub mod engine;
pub mod net;
pub mod record;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod transport;
pub mod udp;
pub mod wire;
