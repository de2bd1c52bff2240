//! `ccarena._core`: the thin binding between Python and the simulator core.
//!
//! A scenario crosses once as JSON text; the run happens with the GIL released; results come
//! back as columns (dicts of NumPy arrays and lists, `tables`). No per-packet or per-event call
//! ever crosses the boundary. Every error becomes a Python exception of `ccarena.errors`
//! (`ScenarioError`, also a `ValueError`, for bad scenarios; `SimulationError` for a panic, which
//! is a bug; `KeyboardInterrupt` when Ctrl-C stops a run); no Rust panic reaches Python
//! unconverted.

use ccarena_core::cc::{external, tcp_algorithms};
use ccarena_core::dccp::dccp_algorithms;
use ccarena_core::record::pcap::PcapOptions;
use ccarena_core::scenario::{Scenario, ScenarioError};
use ccarena_core::sim::{self, RunError};

#[cfg(target_os = "linux")]
mod delayline;
mod pycc;
mod quantities;
mod tables;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyType};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// An exception of `ccarena.errors` (defined in Python so that every error the package raises
/// shares one base class, `ccarena.errors.Error`).
fn ccarena_error<A: pyo3::PyErrArguments + Send + Sync + 'static>(
    py: Python<'_>,
    class: &str,
    args: A,
) -> PyErr {
    let ty = py
        .import("ccarena.errors")
        .and_then(|m| m.getattr(class))
        .and_then(|t| Ok(t.cast_into::<PyType>()?));
    match ty {
        Ok(ty) => PyErr::from_type(ty, args),
        Err(e) => e,
    }
}

/// A one-line `ScenarioError` (a bad quantity).
fn scenario_error(message: impl std::fmt::Display) -> PyErr {
    scenario_error_lines(vec![message.to_string()])
}

/// A `ScenarioError` with every error the scenario had (`ScenarioError.errors` in Python), its
/// message their lines.
fn scenario_errors(e: ScenarioError) -> PyErr {
    scenario_error_lines(e.lines())
}

fn scenario_error_lines(lines: Vec<String>) -> PyErr {
    Python::attach(|py| ccarena_error(py, "ScenarioError", (lines.join("\n"), lines)))
}

/// A panic inside the core is a bug: report it as `SimulationError` instead of aborting Python.
fn internal_error(p: Box<dyn std::any::Any + Send>) -> PyErr {
    let msg = format!(
        "internal error in the simulator (please report it with the scenario): {}",
        panic_message(p)
    );
    Python::attach(|py| ccarena_error(py, "SimulationError", msg))
}

/// `build()`'s outcome, its scenario error or panic raised as the matching ccarena error.
fn built<T>(build: impl FnOnce() -> Result<T, ScenarioError>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(build)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(scenario_errors(e)),
        Err(p) => Err(internal_error(p)),
    }
}

pub(crate) fn json_to_py<'py>(
    py: Python<'py>,
    v: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    let json = py.import("json")?;
    json.call_method1("loads", (v.to_string(),))
}

fn parse(scenario_json: &str) -> PyResult<Scenario> {
    Scenario::from_json(scenario_json).map_err(scenario_errors)
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

#[pyfunction]
#[pyo3(signature = (scenario_json, cc_factory=None))]
fn validate<'py>(
    py: Python<'py>,
    scenario_json: &str,
    cc_factory: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let s = parse(scenario_json)?;
    // Building catches what only wiring reveals (unreachable nodes, impossible RTTs); with
    // `cc_factory`, the flows' Python congestion controls are made too (their parameters checked).
    let cc_errors: pycc::ErrorSlot = Default::default();
    let built = match cc_factory {
        Some(make) => external::with_factory(pycc::factory(make, cc_errors.clone()), || s.build()),
        None => s.build(),
    };
    if let Some(e) = cc_errors.lock().ok().and_then(|mut e| e.take()) {
        return Err(e); // the user's constructor raised: its own exception
    }
    built.map_err(scenario_errors)?;
    json_to_py(py, &s.normalised())
}

#[pyfunction]
#[pyo3(signature = (scenario_json, progress=None, series=true, pcap_dir=None, pcap_links=None, pcap_snaplen=None, cc_factory=None, progress_every_s=0.5))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    scenario_json: &str,
    progress: Option<Py<PyAny>>,
    series: bool,
    pcap_dir: Option<std::path::PathBuf>,
    pcap_links: Option<Vec<String>>,
    pcap_snaplen: Option<u32>,
    cc_factory: Option<Py<PyAny>>,
    progress_every_s: f64,
) -> PyResult<Bound<'py, PyDict>> {
    if !(progress_every_s.is_finite() && progress_every_s >= 0.0) {
        return Err(ccarena_error(
            py,
            "ArgumentError",
            format!("progress_every_s: {progress_every_s} is not a number of seconds >= 0"),
        ));
    }
    let progress_every = Duration::from_secs_f64(progress_every_s);
    let scenario = parse(scenario_json)?;
    let pcap = pcap_dir.map(|dir| PcapOptions { dir, links: pcap_links, snaplen: pcap_snaplen });
    let cc_errors: pycc::ErrorSlot = Default::default();
    let duration_s = scenario.duration.0.as_secs_f64();
    let outcome = py.detach(|| {
        let mut last = Instant::now();
        let mut callback_error: Option<PyErr> = None;
        let cc_errors_seen = cc_errors.clone();
        let mut report = |frac: f64| -> bool {
            // A Python congestion control raised: stop now, `run` re-raises its exception.
            if cc_errors_seen.lock().map(|e| e.is_some()).unwrap_or(true) {
                return false;
            }
            // Wall-clock time only paces the callbacks; it never touches simulated results.
            if last.elapsed() < progress_every {
                return true;
            }
            last = Instant::now();
            Python::attach(|py| {
                if let Err(e) = py.check_signals() {
                    callback_error = Some(e);
                    return false;
                }
                if let Some(cb) = &progress {
                    if let Err(e) = cb.call1(py, (frac, frac * duration_s)) {
                        callback_error = Some(e);
                        return false;
                    }
                }
                true
            })
        };
        let mut simulate = || {
            catch_unwind(AssertUnwindSafe(|| sim::run_with(&scenario, pcap.as_ref(), &mut report)))
        };
        let r = match cc_factory {
            Some(make) => external::with_factory(pycc::factory(make, cc_errors.clone()), simulate),
            None => simulate(),
        };
        (r, callback_error)
    });
    if let Some(e) = cc_errors.lock().ok().and_then(|mut e| e.take()) {
        return Err(e); // the user's exception, with its traceback
    }
    match outcome {
        (Ok(Ok(result)), _) => {
            if let Some(cb) = &progress {
                cb.call1(py, (1.0, duration_s))?;
            }
            tables::result_to_py(py, result, series)
        }
        (Ok(Err(RunError::Scenario(e))), _) => Err(scenario_errors(e)),
        (Ok(Err(RunError::Interrupted)), Some(e)) => Err(e),
        (Ok(Err(RunError::Interrupted)), None) => {
            Err(PyKeyboardInterrupt::new_err("run interrupted"))
        }
        (Ok(Err(RunError::Stalled(why))), _) => {
            Err(Python::attach(|py| ccarena_error(py, "SimulationError", why)))
        }
        (Ok(Err(RunError::Option(why))), _) => {
            Err(Python::attach(|py| ccarena_error(py, "ArgumentError", why)))
        }
        (Ok(Err(RunError::Output(why))), _) => {
            Err(Python::attach(|py| ccarena_error(py, "OutputError", why)))
        }
        (Err(p), _) => Err(internal_error(p)),
    }
}

/// The network a scenario builds (nodes, link directions, flows), for drawings.
#[pyfunction]
fn topology<'py>(py: Python<'py>, scenario_json: &str) -> PyResult<Bound<'py, PyAny>> {
    let s = parse(scenario_json)?;
    json_to_py(py, &built(|| ccarena_core::scenario::topology::describe(&s))?)
}

/// How a scenario expands (`ccarena_core::plan`), without running it.
#[pyfunction]
fn plan<'py>(py: Python<'py>, scenario_json: &str) -> PyResult<Bound<'py, PyDict>> {
    let s = parse(scenario_json)?;
    tables::plan_to_py(py, built(|| ccarena_core::plan::plan(&s))?)
}

#[pyfunction]
fn algorithms<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let rows = PyList::empty(py);
    let tcp = tcp_algorithms().into_iter().map(|a| ("tcp", a));
    let dccp = dccp_algorithms().into_iter().map(|a| ("dccp", a));
    for (protocol, a) in tcp.chain(dccp) {
        let d = PyDict::new(py);
        d.set_item("protocol", protocol)?;
        d.set_item("name", a.name)?;
        d.set_item("description", a.description)?;
        d.set_item("params", json_to_py(py, &a.params)?)?;
        d.set_item("presets", a.presets)?;
        rows.append(d)?;
    }
    Ok(rows)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(topology, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    #[cfg(target_os = "linux")]
    m.add_function(wrap_pyfunction!(delayline::delayline, m)?)?;
    m.add_function(wrap_pyfunction!(quantities::duration_s, m)?)?;
    m.add_function(wrap_pyfunction!(quantities::rate_bps, m)?)?;
    m.add_function(wrap_pyfunction!(quantities::size_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(quantities::queue_limit, m)?)?;
    m.add_class::<pycc::PyCcState>()?;
    Ok(())
}
