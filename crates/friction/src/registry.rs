//! Frictional-contact solvers by name, with the spec strings of signorini-lcp
//! (`name:key=value,...`, e.g. `nsgs:local=proj,omega=1.2`) and its typed parameters
//! ([`SolverParams`], [`ParamDoc`]) reused, not copied.

use signorini_lcp::registry::parse_spec;
use signorini_lcp::{ParamDoc, SolverParams, SpecError};

use crate::solver::{FcPreset, FcSolver};

/// Builds a boxed solver from parsed `key=value` pairs.
pub type FcBuilder = fn(&[(String, String)]) -> Result<Box<dyn FcSolver>, SpecError>;

/// One registry entry.
#[derive(Clone)]
pub struct FcEntry {
    /// Name in spec strings.
    pub name: String,
    /// One line: the algorithm and its source.
    pub summary: String,
    /// Parameters with defaults.
    pub keys: Vec<ParamDoc>,
    builder: FcBuilder,
}

impl std::fmt::Debug for FcEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FcEntry").field("name", &self.name).finish()
    }
}

/// Maps names to builders.
#[derive(Debug, Clone, Default)]
pub struct FcRegistry {
    entries: Vec<FcEntry>,
}

impl FcRegistry {
    /// An empty registry.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Every solver of this crate.
    pub fn builtin() -> Self {
        let mut r = Self::empty();
        crate::algorithms::register_all(&mut r);
        r
    }

    /// Adds (or replaces) a solver whose parameters implement [`SolverParams`].
    pub fn register_params<P: SolverParams>(&mut self, summary: &str, builder: FcBuilder) {
        self.register(P::SOLVER, summary, P::keys(), builder);
    }

    /// Adds (or replaces) a solver under `name`.
    pub fn register(&mut self, name: &str, summary: &str, keys: Vec<ParamDoc>, builder: FcBuilder) {
        self.entries.retain(|e| e.name != name);
        self.entries.push(FcEntry { name: name.into(), summary: summary.into(), keys, builder });
    }

    /// Registered names, in registration order.
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.name.as_str()).collect()
    }

    /// All entries.
    pub fn entries(&self) -> &[FcEntry] {
        &self.entries
    }

    /// Builds the solver a spec string names.
    pub fn build(&self, spec: &str) -> Result<Box<dyn FcSolver>, SpecError> {
        let (name, pairs) = parse_spec(spec)?;
        let Some(e) = self.entries.iter().find(|e| e.name == name) else {
            return Err(SpecError::UnknownSolver { name, valid: self.names().join(", ") });
        };
        let (options, rest) = signorini_lcp::SolveOptions::split_spec(&name, &pairs, &e.keys)?;
        let solver = (e.builder)(&rest)?;
        if options == signorini_lcp::SolveOptions::default() {
            Ok(solver)
        } else {
            Ok(Box::new(FcPreset { solver, options }))
        }
    }
}

/// Builds a solver from the built-in registry.
pub fn fc_solver_from_spec(spec: &str) -> Result<Box<dyn FcSolver>, SpecError> {
    FcRegistry::builtin().build(spec)
}
