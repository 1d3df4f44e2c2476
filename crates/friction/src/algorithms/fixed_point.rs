//! `fixed-point`: the Tresca / Panagiotopoulos fixed point on the friction threshold
//! (Panagiotopoulos 1975, "A nonlinear programming approach to the unilateral contact- and
//! friction-boundary value problem in the theory of elasticity", Ing.-Arch. 44; Haslinger,
//! Hlaváček, Nečas 1996, *Numerical methods for unilateral problems in solid mechanics*, §9;
//! Acary, Cadoux, Lemaréchal, Malick 2011, §2; Siconos `fc3d_TrescaFixedPoint`).
//!
//! Outer iteration k: the thresholds s_i = mu_i r_N,i^k are frozen, and the Tresca problem —
//! r_N >= 0 complementary to u_N, |r_T| <= s_i with maximal dissipation — is solved
//! approximately by `inner_sweeps` Gauss–Seidel sweeps over the contacts. Each contact's local
//! Tresca problem is the convex QP min ½ r'W_ii r + b'r over {r_N >= 0, |r_T| <= s_i} (b: q_i and
//! the other contacts' reactions), solved by `local_iter` projected-gradient steps of length
//! 1/L_i (L_i the largest absolute row sum of W_ii, which bounds its largest eigenvalue). At a
//! fixed point s_i = mu_i r_N,i, so the Tresca solution is a Coulomb solution; the iteration
//! converges for small mu (a contraction argument), with no guarantee otherwise. The driver
//! judges every result by the true Coulomb error, computed here after each outer iteration on
//! the iterate projected onto the Coulomb cones (which is what is returned).
//! Warm start: the given r, projected onto the cones; it also gives the first thresholds.

use std::borrow::Cow;

use super::FcStep;
use signorini_lcp::steps::{run_steps, Policy, Start, Step, Steps};
use signorini_lcp::{SolveError, Status};

use super::Rows;
use crate::cone::tangential_norm;
use crate::local::M3;
use crate::solver::{projected, FcContext, FcOutcome};
use crate::FcProblem;

signorini_lcp::solver_params! {
    /// Parameters of `fixed-point`.
    pub struct FixedPointParams for "fixed-point" {
        /// Gauss-Seidel sweeps of the inner Tresca solver per outer iteration
        inner_sweeps: usize = 20, valid if |v| v >= 1 => ">= 1";
        /// projected-gradient steps of each contact's local Tresca problem per sweep
        local_iter: usize = 10, valid if |v| v >= 1 => ">= 1";
    }
}

crate::fc_solver! {
    /// The `fixed-point` solver.
    pub struct FixedPoint(FixedPointParams) {
        summary: "Tresca/Panagiotopoulos fixed point on the friction threshold, Gauss-Seidel inner solver (Haslinger et al. 1996; Siconos TrescaFixedPoint)",
        max_iter: 200,
        run: FixedPoint::solve_loop,
    }
}

/// Projects one block onto the Tresca set {r_N >= 0, |r_T| <= s}.
fn project_tresca(r: &mut [f64], s: f64) {
    r[0] = r[0].max(0.0);
    let nt = tangential_norm(r);
    if nt > s {
        let scale = if nt > 0.0 { s / nt } else { 0.0 };
        r[1..].iter_mut().for_each(|v| *v *= scale);
    }
}

/// One Gauss–Seidel sweep of the Tresca problem with thresholds `s`.
fn tresca_sweep(
    problem: &FcProblem,
    rows: &Rows<'_>,
    blocks: &[M3],
    s: &[f64],
    local_iter: usize,
    r: &mut [f64],
) {
    let d = problem.dimension();
    let q = problem.q();
    for (i, wii) in blocks.iter().enumerate() {
        let mut x = [0.0; 3];
        x[..d].copy_from_slice(&r[d * i..d * (i + 1)]);
        let mut b = [0.0; 3];
        for k in 0..d {
            let row = d * i + k;
            let own: f64 = (0..d).map(|l| wii[k][l] * x[l]).sum();
            b[k] = q[row] + rows.dot(row, r) - own;
        }
        let lip = (0..d).map(|k| (0..d).map(|l| wii[k][l].abs()).sum::<f64>()).fold(0.0, f64::max);
        if !(lip > 0.0 && lip.is_finite()) {
            continue;
        }
        for _ in 0..local_iter {
            let mut g = [0.0; 3];
            for k in 0..d {
                g[k] = b[k] + (0..d).map(|l| wii[k][l] * x[l]).sum::<f64>();
            }
            for k in 0..d {
                x[k] -= g[k] / lip;
            }
            project_tresca(&mut x[..d], s[i]);
        }
        r[d * i..d * (i + 1)].copy_from_slice(&x[..d]);
    }
}

impl FixedPoint {
    fn solve_loop(
        &self,
        problem: &FcProblem,
        ctx: &mut FcContext<'_>,
    ) -> Result<FcOutcome, SolveError> {
        run_steps(problem, ctx, |_, ctx| {
            let nc = problem.n_contacts();
            Ok(Start::Run(FixedPointState {
                problem,
                params: &self.params,
                rows: super::rows(problem),
                blocks: super::diagonal_blocks(problem),
                r: projected(problem, &ctx.initial_r(problem.n())),
                s: vec![0.0; nc],
            }))
        })
    }
}

/// The running state of `fixed-point`: r and the thresholds s_i = mu_i r_N,i it froze.
struct FixedPointState<'a> {
    problem: &'a FcProblem,
    params: &'a FixedPointParams,
    rows: Rows<'a>,
    blocks: Vec<M3>,
    r: Vec<f64>,
    s: Vec<f64>,
}

impl<'c> Steps<FcContext<'c>> for FixedPointState<'_> {
    fn policy(&self) -> Policy {
        Policy::named("outer iteration")
    }

    /// The Tresca iterate satisfies |r_T| <= mu r_N of the previous thresholds, not always of
    /// its own r_N: it is judged, and returned, projected onto the cones.
    fn z(&self) -> Cow<'_, [f64]> {
        Cow::Owned(projected(self.problem, &self.r))
    }

    /// One outer iteration: freeze the thresholds at the current r, then `inner_sweeps`
    /// Gauss–Seidel sweeps of the Tresca problem.
    fn step(&mut self, problem: &FcProblem, _: &mut FcContext<'c>, it: usize) -> FcStep {
        let p = self.params;
        let d = problem.dimension();
        for (i, si) in self.s.iter_mut().enumerate() {
            *si = problem.mu()[i] * self.r[d * i].max(0.0);
        }
        let before = self.r.clone();
        for _ in 0..p.inner_sweeps {
            tresca_sweep(problem, &self.rows, &self.blocks, &self.s, p.local_iter, &mut self.r);
        }
        if self.r.iter().any(|v| !v.is_finite()) {
            self.r = before;
            return Ok(Step::unchecked(f64::NAN));
        }
        let r = &self.r;
        let change = r.iter().zip(&before).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        let size = r.iter().fold(0.0f64, |m, a| m.max(a.abs()));
        if change == 0.0 {
            return Ok(Step::End {
                status: Status::Stalled,
                note: Some(format!(
                    "outer iteration {it}: the thresholds no longer change the reactions but the \
                     Coulomb error exceeds the tolerance"
                )),
            });
        }
        Ok(Step::checked(if size > 0.0 { change / size } else { change }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::fc_solver_from_spec;
    use signorini_lcp::SolveOptions;

    #[test]
    fn tresca_projection_clips_the_tangential_part_and_the_normal_sign() {
        let mut r = [1.0, 3.0, 4.0];
        project_tresca(&mut r, 2.5);
        assert!((r[1] - 1.5).abs() < 1e-15 && (r[2] - 2.0).abs() < 1e-15 && r[0] == 1.0);
        let mut r = [-1.0, 0.1];
        project_tresca(&mut r, 0.0);
        assert_eq!(r, [0.0, 0.0]);
    }

    #[test]
    fn solves_a_sticking_and_a_sliding_contact() {
        // One 3D contact, W = I: pushed down (q_N = -1) with a tangential load q_T.
        // |q_T| < mu: sticking, r = (1, -q_T); |q_T| > mu: sliding, r_T = -mu q_T / |q_T|.
        for (qt, mu) in [(0.2, 0.5), (2.0, 0.5)] {
            let p = FcProblem::from_dense_rows(
                3,
                &[vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0], vec![0.0, 0.0, 1.0]],
                vec![-1.0, qt, 0.0],
                vec![mu],
            )
            .expect("valid");
            let s = fc_solver_from_spec("fixed-point").expect("registered");
            let sol = s.solve(&p, &SolveOptions::default(), None).expect("runs");
            assert_eq!(sol.status, Status::Solved, "q_T = {qt}: {:?}", sol.note);
            let rt = if qt < mu { -qt } else { -mu };
            assert!((sol.r[0] - 1.0).abs() < 1e-6 && (sol.r[1] - rt).abs() < 1e-6, "{:?}", sol.r);
        }
    }

    #[test]
    fn parameters_are_checked() {
        assert!(fc_solver_from_spec("fixed-point:inner_sweeps=0").is_err());
        let s = fc_solver_from_spec("fixed-point:local_iter=3,tol=1e-9").expect("ok");
        assert_eq!(s.name(), "fixed-point:local_iter=3,tol=1e-9");
    }
}
