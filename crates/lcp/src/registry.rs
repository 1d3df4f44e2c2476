//! Solvers by name: `name` or `name:key=value,key=value`, e.g. `lemke`, `pgs:omega=1.3,max_iter=500`.
//!
//! The built-in registry lists every algorithm of this crate ([`crate::algorithms::entries`])
//! and `auto`, which composes them; [`Registry::register`] adds solvers written elsewhere (any
//! type implementing [`LcpSolver`], described by an [`Entry`]) so studies, time steppers and
//! the CLI select them by the same strings. The keys every solver shares
//! ([`COMMON_KEYS`]: `tol`, `max_iter`, `time_limit`) are taken out
//! here and become the built solver's preset ([`Preset`]); the rest go to the solver's own
//! parameters. Precedence is documented on [`SolveOptions`].
//!
//! This module is the top of the crate's layering: it imports the algorithms and `auto`;
//! nothing below imports it.

pub use crate::params::{
    canonical_name, parse_spec, ParamDoc, ParamValue, SolverParams, SpecError, COMMON_KEYS,
};
pub use crate::solver::{BuildFn, Builder, Entry, Preset};

use crate::solver::{LcpSolver, SolveOptions};

/// Maps solver names to builders.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    entries: Vec<Entry>,
}

impl Registry {
    /// An empty registry.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Every solver of this crate, `auto` last.
    pub fn builtin() -> Self {
        let mut r = Self::empty();
        for e in crate::algorithms::entries() {
            r.add(e);
        }
        r.add(crate::auto::Auto::entry());
        r
    }

    /// Adds (or replaces) a solver described by its entry.
    pub fn add(&mut self, entry: Entry) {
        self.entries.retain(|e| e.name != entry.name);
        self.entries.push(entry);
    }

    /// Adds (or replaces) a solver under `name` from its parts.
    pub fn register(
        &mut self,
        name: &str,
        summary: &str,
        keys: Vec<ParamDoc>,
        builder: impl BuildFn,
    ) {
        self.add(Entry::new(name, summary, keys, builder));
    }

    /// Registered names, in registration order.
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.name.as_str()).collect()
    }

    /// All entries.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Builds the solver a spec string names; the common keys become its preset.
    pub fn build(&self, spec: &str) -> Result<Box<dyn LcpSolver>, SpecError> {
        let (name, pairs) = parse_spec(spec)?;
        let Some(e) = self.entries.iter().find(|e| e.name == name) else {
            return Err(SpecError::UnknownSolver { name, valid: self.names().join(", ") });
        };
        let (options, rest) = SolveOptions::split_spec(&name, &pairs, &e.keys)?;
        let solver = (e.builder)(&rest)?;
        if options == SolveOptions::default() {
            Ok(solver)
        } else {
            Ok(Box::new(Preset { solver, options }))
        }
    }
}

/// Builds a solver from the built-in registry.
pub fn solver_from_spec(spec: &str) -> Result<Box<dyn LcpSolver>, SpecError> {
    Registry::builtin().build(spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Lcp;

    #[test]
    fn common_keys_are_a_preset_that_wins_over_the_callers_options() {
        let r = Registry::builtin();
        let s = r.build("pgs:omega=1.3,tol=1e-10,max_iter=7,time_limit=2").expect("builds");
        assert_eq!(s.name(), "pgs:omega=1.3,tol=1e-10,max_iter=7,time_limit=2");
        assert_eq!(r.build(&s.name()).expect("round trip").name(), s.name());
        let lcp = Lcp::from_dense_rows(&[vec![4.0, 1.0], vec![1.0, 4.0]], vec![-1.0, -1.0])
            .expect("valid");
        let caller = SolveOptions { tol: Some(1e-3), max_iter: Some(1000), ..Default::default() };
        let sol = s.solve(&lcp, &caller, None).expect("runs");
        assert_eq!(sol.tol, 1e-10, "the spec string's tol wins");
        assert!(sol.iterations <= 7, "the spec string's max_iter wins: {}", sol.iterations);
        // Without a spec value the caller's options apply, then the solver's default.
        let plain = r.build("pgs").expect("builds");
        assert_eq!(plain.solve(&lcp, &caller, None).expect("runs").tol, 1e-3);
        assert_eq!(plain.solve(&lcp, &SolveOptions::default(), None).expect("runs").tol, 1e-8);
    }

    #[test]
    fn bad_common_keys_and_unknown_keys_are_typed_errors() {
        let r = Registry::builtin();
        for spec in ["pgs:tol=1", "pgs:tol=0", "pgs:max_iter=0", "pgs:time_limit=-1", "pgs:tol=x"] {
            assert!(matches!(r.build(spec), Err(SpecError::BadValue { .. })), "{spec}");
        }
        let err = r.build("pgs:nope=1").err().expect("unknown key");
        assert!(err.to_string().contains("omega, check_every, tol, max_iter, time_limit"), "{err}");
        assert!(matches!(r.build("nope"), Err(SpecError::UnknownSolver { .. })));
    }

    #[test]
    fn every_builtin_entry_documents_its_keys_and_builds_with_defaults() {
        let r = Registry::builtin();
        assert!(r.names().len() >= 15, "{:?}", r.names());
        for e in r.entries() {
            let s = r.build(&e.name).expect("defaults build");
            assert_eq!(s.name(), e.name, "the default spec is the bare name");
            for k in &e.keys {
                assert!(!k.doc.is_empty() && !k.kind.is_empty(), "{}: {k:?}", e.name);
                let spec = format!("{}:{}={}", e.name, k.key, k.default);
                assert_eq!(r.build(&spec).expect("default value parses").name(), e.name, "{spec}");
            }
        }
    }
}
