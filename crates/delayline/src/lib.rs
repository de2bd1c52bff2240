//! The testbed's delay line. `line.rs` owns the sockets and threads (Linux only: AF_PACKET); the
//! other modules hold what does not touch the network: arrival times from the kernel's stamps,
//! lateness statistics, the serialiser's arithmetic and the command-line arguments. The line
//! runs inside the Python extension (`ccarena._core.delayline`, started as
//! `python -m ccarena.testbed.delayline`), so an installed wheel carries it.

pub mod args;
pub mod arrival;
pub mod lateness;
#[cfg(target_os = "linux")]
pub mod line;
pub mod serialiser;
