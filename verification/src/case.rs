//! The case interface every family (`lcp/...`, later `contact/...`, `impact/...`,
//! `integrators/...`) implements, the context cases run in, and case selection.

use signorini_lcp::{LcpSolver, Registry};

use crate::check::Check;
use crate::plot::LogLogPlot;

/// What cases run in: the solvers they may call by name and the run's settings.
#[derive(Debug, Clone)]
pub struct Context {
    /// Solvers by name; cases never construct solvers directly, so a solver written elsewhere
    /// is checked by registering it here.
    pub registry: Registry,
    /// Worker threads the run may use (recorded in the report; results depend on it only
    /// through solvers that parallelise).
    pub threads: usize,
}

impl Context {
    /// A context over `registry` with the thread count taken from `RAYON_NUM_THREADS` or the
    /// machine.
    pub fn new(registry: Registry) -> Self {
        Self { registry, threads: default_threads() }
    }

    /// The built-in solvers of `signorini-lcp`.
    pub fn builtin() -> Self {
        Self::new(Registry::builtin())
    }

    /// The solver registered under `spec`, or `None` when no solver has that name (a check
    /// that needs it then fails with "solver not registered").
    pub fn solver(&self, spec: &str) -> Option<Box<dyn LcpSolver>> {
        self.registry.build(spec).ok()
    }
}

/// Threads from `RAYON_NUM_THREADS` when set to a positive integer, else the machine's
/// available parallelism.
pub fn default_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&t| t >= 1)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A named reference case: provenance, data, expected answer and the solvers or schemes that
/// apply. Families implement it in their own module and list their cases in [`crate::all_cases`].
pub trait Case: Send + Sync {
    /// Stable id, `family/group/name`, e.g. `lcp/seed/a1_two_variable`.
    fn id(&self) -> &str;
    /// The family-level kind, e.g. `lcp`.
    fn kind(&self) -> &str;
    /// Provenance of the data and of the expected answer.
    fn source(&self) -> &str;
    /// True when the case belongs to the quick set that CI runs.
    fn quick(&self) -> bool;
    /// Seeds of generated data (recorded in the report), empty for fixed data.
    fn seeds(&self) -> Vec<u64> {
        Vec::new()
    }
    /// Runs the case and returns its checks (before the expected-failure table is applied).
    fn run(&self, ctx: &Context) -> Vec<Check>;
    /// Runs the case and also returns the plots it draws (file name without extension, plot);
    /// the default draws none. Studies override this and implement [`Case::run`] through it.
    fn run_with_plots(&self, ctx: &Context) -> (Vec<Check>, Vec<(String, LogLogPlot)>) {
        (self.run(ctx), Vec::new())
    }
}

/// Which cases a run takes.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Only the quick set.
    pub quick: bool,
    /// Only ids containing this text (plain substring; `*` matches any run of characters).
    pub filter: Option<String>,
}

impl Selection {
    /// True when `case` is selected.
    pub fn takes(&self, case: &dyn Case) -> bool {
        (!self.quick || case.quick())
            && self.filter.as_deref().is_none_or(|f| matches_pattern(case.id(), f))
    }
}

/// Substring match where `*` stands for any run of characters.
pub fn matches_pattern(id: &str, pattern: &str) -> bool {
    let mut rest = id;
    // Unanchored: every literal part must occur, in order, anywhere after the previous one.
    for part in pattern.split('*').filter(|p| !p.is_empty()) {
        match rest.find(part) {
            Some(pos) => rest = &rest[pos + part.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_unanchored_with_star_wildcards() {
        assert!(matches_pattern("lcp/seed/a1_two_variable", "seed"));
        assert!(matches_pattern("lcp/seed/a1_two_variable", "lcp/*a1"));
        assert!(!matches_pattern("lcp/seed/a1_two_variable", "a1*seed"));
        assert!(matches_pattern("anything", ""));
    }
}
