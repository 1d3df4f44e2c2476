//! `lcp`: the polyhedral route. The Coulomb cone of each contact is replaced by the cone spanned
//! by k directions (Stewart, Trinkle 1996, "An implicit time-stepping scheme for rigid body
//! dynamics with inelastic collisions and Coulomb friction", IJNME 39; Anitescu, Potra 1997),
//! which makes the problem an LCP, solved by any signorini-lcp solver chosen by name; the
//! answer is graded with the true cone error.
//!
//! Per contact the unknowns are (r_N, beta_1..beta_k, lambda) with r_T = sum_j beta_j t_j,
//! t_j = (cos 2 pi j / k, sin 2 pi j / k) (in 2D the two directions +1, -1 whatever k says):
//!
//! u_N >= 0 ⊥ r_N >= 0,  t_j . u_T + lambda >= 0 ⊥ beta_j >= 0,  mu r_N - sum_j beta_j >= 0 ⊥
//! lambda >= 0,
//!
//! with u = W r + q. The polyhedral cone lies inside K (|r_T| <= sum beta_j <= mu r_N), so r is
//! always admissible; in 2D the route is exact, in 3D a sliding contact whose velocity is not
//! along one of the t_j keeps an error of the order of the facet angle.

use signorini_lcp::{Lcp, Registry, SolveError, SolveOptions, Status};

use crate::merit::error;
use crate::solver::{FcContext, FcOutcome, FcSolver};
use crate::FcProblem;

signorini_lcp::solver_params! {
    /// Parameters of `lcp`.
    pub struct LcpRouteParams for "lcp" {
        /// friction directions per contact in 3D (2D uses 2)
        k: usize = 8, valid if |v| (3..=64).contains(&v) => "in 3..=64";
        /// signorini-lcp solver name for the polyhedral LCP
        solver: String = "lemke".to_string(),
            valid if |v| Registry::builtin().names().contains(&v.as_str()) => "a signorini-lcp solver name";
    }
}

crate::fc_solver! {
    /// The `lcp` solver.
    pub struct LcpRoute(LcpRouteParams) {
        summary: "polyhedral cone with k directions as an LCP, solved by a signorini-lcp solver, graded by the true cone error (Stewart, Trinkle 1996)",
        // Passed on to the LCP solver only when the caller sets it.
        max_iter: usize::MAX,
        run: LcpRoute::solve_loop,
    }
}

/// The tangential directions of one contact.
fn directions(d: usize, k: usize) -> Vec<[f64; 2]> {
    if d == 2 {
        return vec![[1.0, 0.0], [-1.0, 0.0]];
    }
    (0..k)
        .map(|j| {
            let a = 2.0 * std::f64::consts::PI * j as f64 / k as f64;
            [a.cos(), a.sin()]
        })
        .collect()
}

/// Column (within a contact's unknowns) and weight of component `comp` of r: r = E x.
fn e_entries(comp: usize, dirs: &[[f64; 2]]) -> Vec<(usize, f64)> {
    if comp == 0 {
        vec![(0, 1.0)]
    } else {
        dirs.iter().enumerate().map(|(j, t)| (1 + j, t[comp - 1])).filter(|e| e.1 != 0.0).collect()
    }
}

impl LcpRoute {
    fn solve_loop(
        &self,
        problem: &FcProblem,
        ctx: &mut FcContext<'_>,
    ) -> Result<FcOutcome, SolveError> {
        let d = problem.dimension();
        let nc = problem.n_contacts();
        let dirs = directions(d, self.params.k);
        let k = dirs.len();
        let m = k + 2;
        let size = nc * m;
        let rows = super::rows(problem);
        let (mut ri, mut ci, mut vi) = (Vec::new(), Vec::new(), Vec::new());
        let e: Vec<Vec<(usize, f64)>> = (0..d).map(|c| e_entries(c, &dirs)).collect();
        for a in 0..problem.n() {
            let (ca, ka) = (a / d, a % d);
            rows.for_each(a, |b, w| {
                let (cb, kb) = (b / d, b % d);
                for &(xa, ea) in &e[ka] {
                    for &(xb, eb) in &e[kb] {
                        ri.push(ca * m + xa);
                        ci.push(cb * m + xb);
                        vi.push(ea * w * eb);
                    }
                }
            });
        }
        let mut q = vec![0.0; size];
        for (c, &mu) in problem.mu().iter().enumerate() {
            let lam = c * m + k + 1;
            for j in 0..k {
                // beta rows: + lambda; lambda row: - beta.
                ri.push(c * m + 1 + j);
                ci.push(lam);
                vi.push(1.0);
                ri.push(lam);
                ci.push(c * m + 1 + j);
                vi.push(-1.0);
            }
            ri.push(lam);
            ci.push(c * m);
            vi.push(mu);
            for (comp, entries) in e.iter().enumerate() {
                for &(x, ew) in entries {
                    q[c * m + x] += ew * problem.q()[c * d + comp];
                }
            }
        }
        let lcp = Lcp::from_coo(size, &ri, &ci, &vi, q)
            .map_err(|e| SolveError::Unsupported { solver: self.name(), reason: e.to_string() })?;
        let solver = Registry::builtin()
            .build(&self.params.solver)
            .map_err(|e| SolveError::InvalidOption(e.to_string()))?;
        let options = SolveOptions {
            tol: Some(1e-12),
            max_iter: (ctx.max_iter != usize::MAX).then_some(ctx.max_iter),
            time_limit: ctx.remaining_time(),
            history_every: None,
            ..SolveOptions::default()
        };
        let sol = solver.solve(&lcp, &options, None)?;
        let mut r = vec![0.0; problem.n()];
        for c in 0..nc {
            for (comp, entries) in e.iter().enumerate() {
                r[c * d + comp] = entries.iter().map(|&(x, ew)| ew * sol.z[c * m + x]).sum();
            }
        }
        let iterations = sol.pivots.unwrap_or(sol.iterations);
        let true_error = error(problem, &r);
        let mut out = if sol.status != Status::Solved {
            let mut o = FcOutcome::new(r, sol.status, iterations);
            o.note =
                Some(format!("the polyhedral LCP ended {} ({})", sol.status, self.params.solver));
            o
        } else if true_error <= ctx.tol {
            FcOutcome::new(r, Status::Solved, iterations)
        } else {
            let mut o = FcOutcome::new(r, Status::NumericalFailure, iterations);
            o.note = Some(format!(
                "the polyhedral LCP (k = {k}) is solved to {:.1e}, but the facets leave a Coulomb \
                 error of {true_error:.2e}",
                sol.residual()
            ));
            o
        };
        if out.iterations == usize::MAX {
            out.iterations = 0;
        }
        Ok(out)
    }
}
