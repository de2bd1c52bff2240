//! The parts of the delay line that do not touch the network: lateness statistics and the
//! command-line arguments. `main.rs` owns the sockets and threads.

pub mod lateness;
pub mod args;
