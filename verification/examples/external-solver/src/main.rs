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

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use signorini_lcp::steps::{Step, StepResult, Steps};
use signorini_lcp::{Lcp, Registry, SolveContext};
use signorini_verification::study::{markdown, run_study_file, success_rates, write_study};

// The whole solver: its parameters declared once, the kit's declaration, and one sweep as a
// step of the driver's loop (which owns the limits, the test, divergence and the history).
signorini_lcp::solver_params! {
    /// Parameters of [`ProjectedJacobi`].
    pub struct JacobiParams for "pjacobi" {
        /// relaxation
        omega: f64 = 1.0, valid if |v| v > 0.0 && v <= 1.0 => "in (0, 1]";
    }
}

signorini_lcp::lcp_solver! {
    /// Projected Jacobi with relaxation ω.
    pub struct ProjectedJacobi(JacobiParams) {
        summary: "projected Jacobi (example solver from outside the workspace; diagonally dominant M)",
        tol: 1e-10,
        max_iter: |_params, _n| 10_000,
        steps: |s, lcp, ctx| Jacobi(s.params.omega, ctx.start_projected(lcp.n()), lcp.diag()),
    }
}

/// The running state: ω, the iterate z and the diagonal of M.
struct Jacobi(f64, Vec<f64>, Vec<f64>);

impl<'c> Steps<SolveContext<'c>> for Jacobi {
    fn z(&self) -> Cow<'_, [f64]> {
        Cow::Borrowed(&self.1)
    }
    /// z_i <- max(0, z_i - ω w_i / m_ii) for all i at once; the measure is the largest change.
    fn step(&mut self, lcp: &Lcp, ctx: &mut SolveContext<'c>, _: usize) -> StepResult {
        let Jacobi(omega, z, diag) = self;
        let w = ctx.w_of(lcp, z);
        let mut change = 0.0f64;
        for ((z, w), d) in z.iter_mut().zip(&w).zip(diag.iter()) {
            let new = (*z - *omega * w / d).max(0.0);
            change = change.max((new - *z).abs());
            *z = new;
        }
        Ok(Step::checked(change))
    }
}

/// Adds `pjacobi` to a registry.
pub fn register(registry: &mut Registry) {
    registry.add(ProjectedJacobi::entry());
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
    use signorini_lcp::{SolveOptions, Status};

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
