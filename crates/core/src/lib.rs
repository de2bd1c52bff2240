//! ccarena-core: a deterministic, packet-level network simulator for congestion control.
//!
//! Data flows one way: a [`scenario::Scenario`] is parsed and validated, built into an
//! [`engine::World`], run on one thread (its event loop in `engine`, the packets' hops in
//! `net::forward`, what they measure kept by a [`record::recorder::Recorder`]), and the
//! recorder assembles a [`record::result::RunResult`] ([`sim::run`] does all three).
//!
//! `unsafe` is kept to the per-packet path, in two kinds: the prefetch hint (`net::prefetch`),
//! which never faults, and indexing without a bounds check where the structure's own
//! invariant, kept within its module, rules the failure out: a ring's slots (`net::ring`), the
//! event queue's pool (`engine::queue`), a fed link's inbound queues (`net::inbound`). Each
//! block says why it is sound in a `SAFETY` comment, and each unchecked index is checked by a
//! `debug_assert!` whenever the tests run.

pub mod app;
pub mod cc;
pub mod dccp;
pub mod engine;
pub mod net;
pub mod plan;
pub mod record;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod time;
pub mod transport;
pub mod udp;
pub mod wire;
