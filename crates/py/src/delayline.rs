//! The testbed's delay line inside the extension module, so that an installed wheel carries it:
//! `python -m ccarena.testbed.delayline ARGS` runs the same code as the `ccarena-delayline`
//! program (crates/delayline).

use pyo3::prelude::*;

/// Runs the delay line with `argv` until SIGTERM or SIGINT and returns its exit status. The
/// GIL is released: the line's threads never call Python, and it replaces the process's
/// SIGTERM/SIGINT handlers with its own stop flag, so this belongs in a process of its own.
#[pyfunction]
pub fn delayline(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(|| ccarena_delayline::line::main_with(&argv))
}
