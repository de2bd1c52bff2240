//! Congestion controls defined outside the core, named `cc = "py:…"` in a scenario: the Python
//! API installs a factory for the duration of a run and the scenario builder asks it for one
//! controller per flow. The core stays free of any binding; a run without a factory refuses
//! such a scenario with one line.

use super::CongestionControl;
use serde_json::Value;
use std::cell::RefCell;

/// The prefix that names an external algorithm.
pub const PREFIX: &str = "py:";

/// An external algorithm as the scenario names it.
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalCc {
    /// The name after the prefix (a registered name or `module.Class`).
    pub name: String,
    /// The group's `cc_params`, passed through untouched.
    pub params: Value,
}

/// Builds flow `flow`'s controller for an external algorithm, or says why it cannot.
pub type Factory = dyn Fn(&ExternalCc, u32) -> Result<Box<dyn CongestionControl + Send>, String>;

thread_local! {
    static FACTORY: RefCell<Option<Box<Factory>>> = const { RefCell::new(None) };
}

/// Runs `f` with `factory` answering for external algorithms on this thread.
pub fn with_factory<R>(factory: Box<Factory>, f: impl FnOnce() -> R) -> R {
    let previous = FACTORY.with(|slot| slot.replace(Some(factory)));
    let out = f();
    FACTORY.with(|slot| *slot.borrow_mut() = previous);
    out
}

pub(crate) fn build(
    cc: &ExternalCc,
    flow: u32,
) -> Result<Box<dyn CongestionControl + Send>, String> {
    FACTORY.with(|slot| match slot.borrow().as_ref() {
        Some(make) => make(cc, flow),
        None => Err(format!(
            "\"{PREFIX}{}\" is a congestion control written in Python: run the scenario with ccarena.run (Python) or the ccarena command",
            cc.name
        )),
    })
}
