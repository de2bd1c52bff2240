//! The parts of the delay line that do not touch the network: lateness statistics, the
//! serialiser's arithmetic and the command-line arguments. `main.rs` owns the sockets and
//! threads.

pub mod args;
pub mod lateness;
pub mod serialiser;
