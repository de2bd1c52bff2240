//! A congestion control's name, parsed once from the scenario's string: the registry algorithm it
//! selects, the alias it was written as (`newreno`), the preset after `@` (`cubic@linux-6`), or
//! an algorithm written in Python (`py:module.Class`). What depends on the name (the algorithm's
//! parameters, `newreno`'s recovery, a stack's default preset, the results' `cc_algorithm`)
//! reads this type, never the string.

use super::external::PREFIX;
use serde::{Serialize, Serializer};
use std::fmt;

/// Another name of a built-in algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alias {
    /// Reno's window rule; the name also selects RFC 6582 recovery by default.
    NewReno,
}

impl Alias {
    /// Every alias, in the order error messages list them.
    pub const ALL: [Alias; 1] = [Alias::NewReno];

    /// The alias as a scenario writes it.
    pub fn name(self) -> &'static str {
        match self {
            Alias::NewReno => "newreno",
        }
    }

    /// The registry algorithm it selects.
    pub fn algorithm(self) -> &'static str {
        match self {
            Alias::NewReno => "reno",
        }
    }
}

/// The algorithm a name selects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// One of a registry's names (TCP's `algorithms!`, DCCP's CCIDs).
    Builtin(&'static str),
    /// Written in Python: the name after `py:` (registered with `ccarena.run`, or `module.Class`).
    External(String),
}

impl fmt::Display for Algorithm {
    /// The registry name, or `py:` and the external name: the results' `cc_algorithm`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Algorithm::Builtin(name) => f.write_str(name),
            Algorithm::External(name) => write!(f, "{PREFIX}{name}"),
        }
    }
}

/// A congestion control as a scenario names it. `Display` gives the name back as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CcName {
    algorithm: Algorithm,
    alias: Option<Alias>,
    preset: Option<String>,
}

impl CcName {
    /// `name` if it is `py:…`: the external algorithm, or the one-line error of an empty one;
    /// `None` for any other name.
    pub(crate) fn external(name: &str) -> Option<Result<CcName, String>> {
        let ext = name.strip_prefix(PREFIX)?;
        if ext.is_empty() {
            return Some(Err(format!("{name:?} names no algorithm: expected \"py:Name\" (registered with ccarena.run(..., algorithms=...)) or \"py:module.Class\"")));
        }
        Some(Ok(CcName {
            algorithm: Algorithm::External(ext.to_string()),
            alias: None,
            preset: None,
        }))
    }

    /// `name` (`"algorithm"` or `"algorithm@preset"`) when its algorithm is one of `registry` or
    /// of `aliases`; `None` otherwise. The preset is checked when the parameters are resolved.
    pub(crate) fn builtin(
        name: &str,
        registry: &[&'static str],
        aliases: &[Alias],
    ) -> Option<CcName> {
        let (base, preset) = match name.split_once('@') {
            Some((b, p)) => (b, Some(p.to_string())),
            None => (name, None),
        };
        let alias = aliases.iter().copied().find(|a| a.name() == base);
        let target = match alias {
            Some(a) => a.algorithm(),
            None => base,
        };
        let algorithm = registry.iter().copied().find(|n| *n == target)?;
        Some(CcName { algorithm: Algorithm::Builtin(algorithm), alias, preset })
    }

    pub fn algorithm(&self) -> &Algorithm {
        &self.algorithm
    }

    /// The registry name of a built-in algorithm (aliases resolved), `None` for an external one.
    pub fn builtin_algorithm(&self) -> Option<&'static str> {
        match self.algorithm {
            Algorithm::Builtin(name) => Some(name),
            Algorithm::External(_) => None,
        }
    }

    /// The alias the name was written as, if any.
    pub fn alias(&self) -> Option<Alias> {
        self.alias
    }

    pub fn preset(&self) -> Option<&str> {
        self.preset.as_deref()
    }

    /// The same algorithm (and alias) under `preset`.
    pub fn with_preset(&self, preset: &str) -> CcName {
        CcName { preset: Some(preset.to_string()), ..self.clone() }
    }
}

impl fmt::Display for CcName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.algorithm, self.alias) {
            (_, Some(alias)) => f.write_str(alias.name())?,
            (algorithm, None) => write!(f, "{algorithm}")?,
        }
        match &self.preset {
            Some(preset) => write!(f, "@{preset}"),
            None => Ok(()),
        }
    }
}

/// As written: the normalised scenario records the name the scenario gave.
impl Serialize for CcName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Why a named congestion control cannot be configured: the name (algorithm or preset) is
/// wrong, or the parameters are. A scenario reports the first at `cc`, the second at
/// `cc_params`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CcError {
    Name(String),
    Params(String),
}

impl CcError {
    /// The one-line message.
    pub fn into_message(self) -> String {
        match self {
            CcError::Name(m) | CcError::Params(m) => m,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REGISTRY: &[&str] = &["reno", "cubic"];

    fn parse(name: &str) -> CcName {
        CcName::external(name)
            .map(Result::unwrap)
            .or_else(|| CcName::builtin(name, REGISTRY, &Alias::ALL))
            .unwrap()
    }

    #[test]
    fn a_name_reads_back_as_written_with_its_algorithm_resolved() {
        for (name, algorithm) in [
            ("reno", "reno"),
            ("newreno", "reno"),
            ("cubic@linux-6", "cubic"),
            ("py:mod.Class", "py:mod.Class"),
        ] {
            let cc = parse(name);
            assert_eq!(cc.to_string(), name);
            assert_eq!(cc.algorithm().to_string(), algorithm);
            assert_eq!(serde_json::to_value(&cc).unwrap(), name);
        }
        let nr = parse("newreno");
        assert_eq!((nr.alias(), nr.builtin_algorithm()), (Some(Alias::NewReno), Some("reno")));
        assert_eq!(parse("cubic").with_preset("linux-6"), parse("cubic@linux-6"));
        assert_eq!(parse("py:x").builtin_algorithm(), None);
    }

    #[test]
    fn names_outside_the_registry_are_not_builtin() {
        assert_eq!(CcName::builtin("cubicc", REGISTRY, &Alias::ALL), None);
        assert_eq!(CcName::builtin("newreno", REGISTRY, &[]), None);
        assert_eq!(CcName::external("reno"), None);
        assert!(CcName::external("py:").unwrap().unwrap_err().contains("names no algorithm"));
    }
}
