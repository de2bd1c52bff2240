//! The parts of the delay line that do not touch the network: arrival times from the kernel's
//! stamps, lateness statistics, the serialiser's arithmetic and the command-line arguments.
//! `main.rs` owns the sockets and threads.

pub mod args;
pub mod arrival;
pub mod lateness;
pub mod serialiser;
