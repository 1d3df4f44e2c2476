//! A solver defined outside the signorini workspace, registered beside the built-in solvers and
//! run in a solver study, without changing any file of the workspace's crates.
//!
//! The solver is the projected Jacobi iteration (Cottle, Pang, Stone 1992, *The Linear
//! Complementarity Problem*, §5.2, the Jacobi variant of Algorithm 5.2.1 with relaxation ω):
//! every sweep computes w = Mz + q from the previous z and updates all coordinates at once,
//! z_i <- max(0, z_i - ω w_i / m_ii). It converges for strictly diagonally dominant M with
//! 0 < ω <= 1.
//!
//! Usage: `cargo run --manifest-path verification/examples/external-solver/Cargo.toml
//! [-- STUDY.toml [OUT_DIR]]`; without arguments it runs `study.toml` beside this crate and
//! writes the study report under the workspace's `target/study/`. It prints the success rates
//! and the study's results table, and exits 1 when the study cannot run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use signorini_lcp::{
    registry::canonical_name, Lcp, LcpSolver, Outcome, ParamDoc, Registry, SolveContext,
    SolveError, SolverParams, SpecError, Status,
};
use signorini_verification::study::{markdown, run_study_file, success_rates, write_study};

/// Parameters of [`ProjectedJacobi`].
#[derive(Debug, Clone, PartialEq)]
pub struct JacobiParams {
    /// Merit tolerance; default 1e-10.
    pub tol: f64,
    /// Sweep limit; default 10 000.
    pub max_iter: usize,
    /// Relaxation ω in (0, 1]; default 1.
    pub omega: f64,
}

impl Default for JacobiParams {
    fn default() -> Self {
        Self { tol: 1e-10, max_iter: 10_000, omega: 1.0 }
    }
}

impl SolverParams for JacobiParams {
    const SOLVER: &'static str = "pjacobi";
    const KEYS: &'static [ParamDoc] = &[
        ParamDoc { key: "tol", default: "1e-10", doc: "merit tolerance" },
        ParamDoc { key: "max_iter", default: "10000", doc: "sweep limit" },
        ParamDoc { key: "omega", default: "1", doc: "relaxation in (0, 1]" },
    ];

    fn set(&mut self, key: &str, value: &str) -> Result<(), SpecError> {
        match key {
            "tol" => self.tol = Self::parse_positive(key, value)?,
            "max_iter" => self.max_iter = Self::parse_count(key, value)?,
            "omega" => self.omega = Self::parse_positive(key, value)?,
            _ => return Err(Self::bad(key, value, "unknown key")),
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), SpecError> {
        if self.omega > 1.0 {
            return Err(Self::bad("omega", &self.omega.to_string(), "expected omega in (0, 1]"));
        }
        Ok(())
    }
}

/// Projected Jacobi with relaxation ω.
#[derive(Debug, Clone, Default)]
pub struct ProjectedJacobi {
    /// Its parameters.
    pub params: JacobiParams,
}

impl LcpSolver for ProjectedJacobi {
    fn name(&self) -> String {
        let d = JacobiParams::default();
        let mut pairs = Vec::new();
        if self.params.omega.to_bits() != d.omega.to_bits() {
            pairs.push(("omega", self.params.omega.to_string()));
        }
        canonical_name(JacobiParams::SOLVER, &pairs)
    }

    fn default_tol(&self) -> f64 {
        self.params.tol
    }

    fn default_max_iter(&self, _n: usize) -> usize {
        self.params.max_iter
    }

    fn run(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let n = lcp.n();
        let diag = lcp.diag();
        if let Some(i) = diag.iter().position(|d| d.is_nan() || *d <= 0.0) {
            return Err(SolveError::Unsupported {
                solver: self.name(),
                reason: format!("M[{i}][{i}] = {} is not positive", diag[i]),
            });
        }
        let mut z: Vec<f64> = match ctx.warm_start {
            Some(z0) => z0.iter().map(|v| v.max(0.0)).collect(),
            None => vec![0.0; n],
        };
        let mut w = vec![0.0; n];
        for sweep in 1..=ctx.max_iter {
            if ctx.time_exceeded() {
                return Ok(Outcome::new(z, Status::TimeLimit, sweep - 1));
            }
            ctx.mul_vec(lcp, &z, &mut w);
            let mut residual_sq = 0.0;
            for i in 0..n {
                let wi = w[i] + lcp.q()[i];
                let m = z[i].min(wi);
                residual_sq += m * m;
                z[i] = (z[i] - self.params.omega * wi / diag[i]).max(0.0);
            }
            if z.iter().any(|v| !v.is_finite()) {
                return Ok(Outcome::new(z, Status::NumericalFailure, sweep));
            }
            // The residual of the z before this sweep, in the merit's scaling: the driver
            // recomputes the exact merit of the returned z and decides.
            let qn = lcp.q().iter().map(|v| v * v).sum::<f64>().sqrt().max(f64::EPSILON);
            let measure = residual_sq.sqrt() / qn;
            ctx.record(lcp, sweep, measure, &z);
            if measure <= 0.1 * ctx.tol {
                return Ok(Outcome::new(z, Status::Solved, sweep));
            }
        }
        Ok(Outcome::new(z, Status::MaxIterations, ctx.max_iter))
    }
}

/// Adds `pjacobi` to a registry.
pub fn register(registry: &mut Registry) {
    registry.register_params::<JacobiParams>(
        "projected Jacobi (example solver from outside the workspace; diagonally dominant M)",
        |pairs| {
            let params = JacobiParams::from_pairs(pairs)?;
            Ok(Box::new(ProjectedJacobi { params }) as Box<dyn LcpSolver>)
        },
    );
}

fn main() -> ExitCode {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    // verification/examples/external-solver -> the workspace root.
    let root = here.ancestors().nth(3).unwrap_or(here).to_path_buf();
    let mut args = std::env::args().skip(1);
    let study = args.next().map_or_else(|| here.join("study.toml"), PathBuf::from);
    let out = args.next().map(PathBuf::from);

    let mut registry = Registry::builtin();
    register(&mut registry);

    let result = match run_study_file(&study, &root, &registry) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("external-solver example: {e}");
            return ExitCode::from(1);
        }
    };
    let dir = match out {
        Some(dir) => dir,
        None => {
            let parent = root.join("target").join("study");
            if let Err(e) = std::fs::create_dir_all(&parent) {
                eprintln!("external-solver example: {}: {e}", parent.display());
                return ExitCode::from(1);
            }
            parent.join(&result.spec.name)
        }
    };
    match write_study(&dir, &result) {
        Ok(md) => println!("report: {}", md.display()),
        Err(e) => {
            eprintln!("external-solver example: {e}");
            return ExitCode::from(1);
        }
    }
    println!("{:<28} {:>7} {:>7}", "solver", "solved", "cases");
    for (s, solved, all) in success_rates(&result) {
        println!("{s:<28} {solved:>7} {all:>7}");
    }
    println!();
    print!("{}", markdown(&result));
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;
    use signorini_lcp::SolveOptions;

    #[test]
    fn solves_a_diagonally_dominant_problem_through_the_registry() {
        let mut registry = Registry::builtin();
        register(&mut registry);
        let solver = registry.build("pjacobi:omega=0.9").expect("registered");
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0])
            .expect("valid data");
        let sol = solver.solve(&lcp, &SolveOptions::default(), None).expect("runs");
        assert_eq!(sol.status, Status::Solved);
        assert!(sol.z.iter().all(|z| (z - 1.0).abs() < 1e-8), "{:?}", sol.z);
        assert!(registry.build("pjacobi:omega=1.5").is_err());
    }
}
