//! Congestion controls written in Python: a `ccarena.CongestionControl` instance driven through
//! the core's `CongestionControl` trait. The run itself holds no GIL; each callback takes it for
//! the call only. The first exception a callback raises (or a bad value it leaves) is kept, the
//! run stops at the next progress report, and `run` re-raises that exception with its traceback.

use ccarena_core::cc::external::ExternalCc;
use ccarena_core::cc::{
    AckFeedback, AckSample, CcState, CongestionControl, CongestionEvent, CongestionKind,
};
use ccarena_core::time::{Rate, SimDuration, SimTime};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Arc, Mutex};

/// The first error raised by Python code during a run.
pub type ErrorSlot = Arc<Mutex<Option<PyErr>>>;

/// The window state a Python callback sees and may change (`cwnd`, `ssthresh`).
#[pyclass(name = "CcState", module = "ccarena._core")]
pub struct PyCcState {
    /// Congestion window, segments.
    #[pyo3(get, set)]
    cwnd: f64,
    /// Slow-start threshold, segments (``inf`` before the first congestion event).
    #[pyo3(get, set)]
    ssthresh: f64,
    /// Smoothed RTT, seconds, or ``None`` before the first sample.
    #[pyo3(get)]
    srtt: Option<f64>,
    /// Smallest RTT seen, seconds.
    #[pyo3(get)]
    min_rtt: Option<f64>,
    /// Segments in flight (RFC 6675 pipe).
    #[pyo3(get)]
    in_flight: u64,
    /// Payload bytes per segment.
    #[pyo3(get)]
    mss: u32,
    /// SND.UNA and SND.NXT, in segments.
    #[pyo3(get)]
    snd_una: u64,
    #[pyo3(get)]
    snd_nxt: u64,
    /// Segments delivered so far.
    #[pyo3(get)]
    delivered: u64,
}

#[pymethods]
impl PyCcState {
    /// True while cwnd is below ssthresh.
    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    fn __repr__(&self) -> String {
        format!(
            "CcState(cwnd={}, ssthresh={}, in_flight={}, srtt={:?})",
            self.cwnd, self.ssthresh, self.in_flight, self.srtt
        )
    }
}

fn secs(d: Option<SimDuration>) -> Option<f64> {
    d.map(|d| d.as_secs_f64())
}

impl PyCcState {
    fn of(st: &CcState) -> Self {
        PyCcState {
            cwnd: st.cwnd,
            ssthresh: st.ssthresh,
            srtt: secs(st.srtt),
            min_rtt: secs(st.min_rtt),
            in_flight: st.in_flight,
            mss: st.mss,
            snd_una: st.snd_una,
            snd_nxt: st.snd_nxt,
            delivered: st.delivered,
        }
    }
}

/// Which optional hooks the class overrides (the others are never called: no GIL per packet).
#[derive(Clone, Copy, Debug, Default)]
pub struct Hooks {
    pub on_sent: bool,
    pub on_rtt_sample: bool,
    pub on_ack_feedback: bool,
    pub on_recovery_exit: bool,
    pub pacing_rate: bool,
}

pub struct PyCc {
    obj: Py<PyAny>,
    hooks: Hooks,
    /// "flows[3] (py:MyReno)", to say whose callback failed.
    label: String,
    errors: ErrorSlot,
}

impl PyCc {
    pub fn new(obj: Py<PyAny>, hooks: Hooks, label: String, errors: ErrorSlot) -> Self {
        PyCc { obj, hooks, label, errors }
    }

    fn failed(&self) -> bool {
        self.errors.lock().map(|e| e.is_some()).unwrap_or(true)
    }

    fn keep(&self, e: PyErr) {
        if let Ok(mut slot) = self.errors.lock() {
            slot.get_or_insert(e);
        }
    }

    /// Calls `method(state, *args)` and copies the window back, checking it.
    fn call(
        &self,
        st: &mut CcState,
        method: &str,
        args: impl FnOnce(Python<'_>, Py<PyCcState>) -> PyResult<Bound<'_, pyo3::types::PyTuple>>,
    ) {
        if self.failed() {
            return;
        }
        let outcome = Python::attach(|py| -> PyResult<()> {
            let state = Py::new(py, PyCcState::of(st))?;
            self.obj.call_method1(py, method, args(py, state.clone_ref(py))?)?;
            let s = state.borrow(py);
            for (name, v) in [("cwnd", s.cwnd), ("ssthresh", s.ssthresh)] {
                let ok =
                    if name == "cwnd" { v.is_finite() && v > 0.0 } else { v > 0.0 && !v.is_nan() };
                if !ok {
                    return Err(PyValueError::new_err(format!(
                        "{}: {method} set state.{name} to {v}: expected a positive number of segments{}",
                        self.label,
                        if name == "ssthresh" { " (inf for none)" } else { "" }
                    )));
                }
            }
            st.cwnd = s.cwnd;
            st.ssthresh = s.ssthresh;
            Ok(())
        });
        if let Err(e) = outcome {
            self.keep(e);
        }
    }
}

fn kind_name(k: CongestionKind) -> &'static str {
    match k {
        CongestionKind::Loss => "loss",
        CongestionKind::Timeout => "timeout",
        CongestionKind::Ecn => "ecn",
        CongestionKind::SourceQuench => "source_quench",
    }
}

impl CongestionControl for PyCc {
    fn name(&self) -> &'static str {
        "python"
    }

    fn on_ack(&mut self, st: &mut CcState, ack: &AckSample) {
        let (acked, rtt, now) = (ack.acked, secs(ack.rtt), ack.now.as_secs_f64());
        self.call(st, "on_ack", |py, s| (s, acked, rtt, now).into_pyobject(py));
    }

    fn on_congestion(&mut self, st: &mut CcState, ev: &CongestionEvent) {
        let (kind, flight, now) = (kind_name(ev.kind), ev.flight_size, ev.now.as_secs_f64());
        self.call(st, "on_congestion", |py, s| (s, kind, flight, now).into_pyobject(py));
    }

    fn on_rtt_sample(&mut self, st: &mut CcState, now: SimTime, rtt: SimDuration) {
        if self.hooks.on_rtt_sample {
            self.call(st, "on_rtt_sample", |py, s| {
                (s, rtt.as_secs_f64(), now.as_secs_f64()).into_pyobject(py)
            });
        }
    }

    fn wants_ack_feedback(&self) -> bool {
        self.hooks.on_ack_feedback
    }

    fn on_ack_feedback(&mut self, st: &mut CcState, fb: &AckFeedback) {
        if self.hooks.on_ack_feedback {
            let (acked, ece, now) = (fb.acked, fb.ece, fb.now.as_secs_f64());
            let owd = fb.ts.map(|ts| f64::from(ts.one_way_delay_ms()) / 1e3);
            self.call(st, "on_ack_feedback", |py, s| (s, acked, ece, owd, now).into_pyobject(py));
        }
    }

    fn on_recovery_exit(&mut self, st: &mut CcState, now: SimTime) {
        if self.hooks.on_recovery_exit {
            self.call(st, "on_recovery_exit", |py, s| (s, now.as_secs_f64()).into_pyobject(py));
        }
    }

    fn on_sent(&mut self, st: &mut CcState, now: SimTime) {
        if self.hooks.on_sent {
            self.call(st, "on_sent", |py, s| (s, now.as_secs_f64()).into_pyobject(py));
        }
    }

    fn pacing_rate(&self, st: &CcState) -> Option<Rate> {
        if !self.hooks.pacing_rate || self.failed() {
            return None;
        }
        let outcome = Python::attach(|py| -> PyResult<Option<f64>> {
            let state = Py::new(py, PyCcState::of(st))?;
            let v = self.obj.call_method1(py, "pacing_rate", (state,))?;
            let rate: Option<f64> = v.extract(py)?;
            match rate {
                Some(r) if !(r.is_finite() && r > 0.0) => Err(PyValueError::new_err(format!(
                    "{}: pacing_rate returned {r}: expected bits per second > 0, or None",
                    self.label
                ))),
                r => Ok(r),
            }
        });
        match outcome {
            Ok(r) => r.map(|bps| Rate::bps(bps.round().max(1.0) as u64)),
            Err(e) => {
                self.keep(e);
                None
            }
        }
    }
}

/// The factory the core calls for `cc = "py:…"`: `make(name, params, flow)` (Python, in
/// `ccarena.cc`) returns the instance and the names of the optional hooks it overrides.
pub fn factory(make: Py<PyAny>, errors: ErrorSlot) -> Box<ccarena_core::cc::external::Factory> {
    Box::new(move |cc: &ExternalCc, flow: u32| {
        Python::attach(|py| -> Result<Box<dyn CongestionControl + Send>, String> {
            let params = crate::json_to_py(py, &cc.params).map_err(|e| e.to_string())?;
            let made = make.call1(py, (cc.name.as_str(), params, flow)).and_then(|r| {
                let (obj, hooks): (Py<PyAny>, Bound<'_, PyDict>) = r.extract(py)?;
                let has = |k: &str| -> PyResult<bool> {
                    Ok(hooks.get_item(k)?.is_some_and(|v| v.is_truthy().unwrap_or(false)))
                };
                let hooks = Hooks {
                    on_sent: has("on_sent")?,
                    on_rtt_sample: has("on_rtt_sample")?,
                    on_ack_feedback: has("on_ack_feedback")?,
                    on_recovery_exit: has("on_recovery_exit")?,
                    pacing_rate: has("pacing_rate")?,
                };
                Ok((obj, hooks))
            });
            match made {
                Ok((obj, hooks)) => Ok(Box::new(PyCc::new(
                    obj,
                    hooks,
                    format!("flow {flow} (py:{})", cc.name),
                    errors.clone(),
                ))),
                Err(e) => {
                    let msg = e.to_string();
                    if let Ok(mut slot) = errors.lock() {
                        slot.get_or_insert(e);
                    }
                    Err(msg)
                }
            }
        })
    })
}
