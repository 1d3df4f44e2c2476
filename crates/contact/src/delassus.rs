//! The Delassus operator W = J M^-1 J^T, matrix-free (apply J, apply M^-1 J^T) for iterative
//! solvers that never form W; the assembled form is [`MassMatrix::delassus`]. The choice
//! between the two for a contact LCP ([`DelassusForm`]) and the counts it rests on
//! ([`delassus_nnz`], [`jacobian_nnz`]) are here too.

use crate::jacobian::Jacobian;
use crate::mass::MassMatrix;

/// Matrix-free W = J M^-1 J^T over a Jacobian and a mass matrix.
pub struct DelassusOperator<'a, M: MassMatrix + ?Sized> {
    /// The contact Jacobian J.
    pub jacobian: &'a Jacobian,
    /// The mass matrix M.
    pub mass: &'a M,
}

impl<'a, M: MassMatrix + ?Sized> DelassusOperator<'a, M> {
    /// Wraps J and M.
    pub fn new(jacobian: &'a Jacobian, mass: &'a M) -> Self {
        Self { jacobian, mass }
    }

    /// Number of rows of W.
    pub fn n(&self) -> usize {
        self.jacobian.n_rows()
    }

    /// J v (contact-space velocity of a generalised velocity).
    pub fn apply_jacobian(&self, v: &[f64]) -> Vec<f64> {
        self.jacobian.apply(v)
    }

    /// M^-1 J^T λ (generalised velocity change of contact impulses λ).
    pub fn apply_inverse_mass_jacobian_transpose(&self, lambda: &[f64]) -> Vec<f64> {
        let jt = self.jacobian.apply_transpose(lambda);
        let mut out = vec![0.0; self.mass.n_dofs()];
        self.mass.apply_inverse(&jt, &mut out);
        out
    }

    /// W λ = J (M^-1 J^T λ).
    pub fn apply(&self, lambda: &[f64]) -> Vec<f64> {
        self.apply_jacobian(&self.apply_inverse_mass_jacobian_transpose(lambda))
    }

    /// The diagonal W_ii = J_i M^-1 J_i^T (for Gauss–Seidel sweeps).
    pub fn diagonal(&self) -> Vec<f64> {
        self.mass.delassus_diagonal(self.jacobian)
    }
}

/// How [`crate::contact_problem_with`] hands W to the solver: assembled (sparse entries of
/// W = J M⁻¹ J'), matrix-free (the Gram form W = G G' with G = J L, M⁻¹ = L L' blockwise,
/// [`signorini_lcp::Lcp::from_gram`]), or chosen from the ratio nnz(W) / nnz(J)
/// ([`DelassusForm::choose`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DelassusForm {
    /// W assembled in compressed rows (the default of [`crate::contact_problem`]).
    #[default]
    Assembled,
    /// W = G G' held as G: products and sweeps without forming W.
    MatrixFree,
    /// Matrix-free when nnz(W) / nnz(J) >= [`MATRIX_FREE_MIN_RATIO`] (and the LCP has no
    /// friction rows), assembled otherwise.
    Auto,
}

impl DelassusForm {
    /// `assembled`, `matrix-free` or `auto`.
    pub fn as_str(self) -> &'static str {
        match self {
            DelassusForm::Assembled => "assembled",
            DelassusForm::MatrixFree => "matrix-free",
            DelassusForm::Auto => "auto",
        }
    }

    /// The form `Auto` resolves to for Jacobian `j` (the others are themselves):
    /// matrix-free when nnz(W) / nnz(J) >= [`MATRIX_FREE_MIN_RATIO`], both counted from J's
    /// block structure without forming W.
    pub fn choose(self, j: &Jacobian) -> DelassusForm {
        match self {
            DelassusForm::Auto => {
                let (w, g) = (delassus_nnz(j) as f64, jacobian_nnz(j).max(1) as f64);
                if w / g >= MATRIX_FREE_MIN_RATIO {
                    DelassusForm::MatrixFree
                } else {
                    DelassusForm::Assembled
                }
            }
            other => other,
        }
    }
}

impl std::str::FromStr for DelassusForm {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "assembled" => Ok(DelassusForm::Assembled),
            "matrix-free" => Ok(DelassusForm::MatrixFree),
            "auto" => Ok(DelassusForm::Auto),
            other => Err(format!(
                "unknown Delassus form `{other}` (expected assembled, matrix-free or auto)"
            )),
        }
    }
}

/// The ratio nnz(W) / nnz(J) at and above which [`DelassusForm::Auto`] goes matrix-free. A
/// matrix-free sweep reads each entry of G (nnz(G) = nnz(J)) twice, for the dot product
/// G_i · v and for the update v += Δz_i G_i', and gathers and scatters v, against one read of
/// each entry of W for an assembled sweep, so it needs W about 3 times denser than J to win.
/// Measured (docs/performance.md, "Matrix-free sweeps"; 4 runs on the shared VM): at
/// 2.6–2.7 (hex disks) and near 1 (rigid spheres on a cubic lattice, box stacks) the
/// matrix-free sweeps were slower (up to 2.7 times; two ties at 10^5 unknowns); at 2.9–3.5
/// (FCC piles) from 0.83 to 1.35 times as fast, with 1.4–2.8 times faster products and
/// 2.3–4 times faster set-up; at 4 to 79 (loaded trays) 1.5–49 times faster sweeps.
pub const MATRIX_FREE_MIN_RATIO: f64 = 3.0;

/// Stored entries of J (the used length of every row block).
pub fn jacobian_nnz(j: &Jacobian) -> usize {
    j.rows.iter().map(|r| r.blocks().iter().map(|b| b.len).sum::<usize>()).sum()
}

/// nnz(W) of W = J M⁻¹ J' with block-diagonal M, from J's block structure alone: row r on
/// bodies A (and B) has an entry for every row on A or B, |R_A| + |R_B| − |R_A ∩ R_B|, where
/// R_A ∩ R_B are the rows on the same two bodies. O(rows log rows), nothing of W formed.
pub fn delassus_nnz(j: &Jacobian) -> usize {
    let n_bodies = j.rows.iter().flat_map(|r| r.blocks().iter().map(|b| b.body + 1)).max();
    let mut per_body = vec![0usize; n_bodies.unwrap_or(0)];
    let mut pairs = Vec::new();
    for r in &j.rows {
        let blocks = r.blocks();
        blocks.iter().for_each(|b| per_body[b.body] += 1);
        if let [a, b] = blocks {
            pairs.push((a.body.min(b.body), a.body.max(b.body)));
        }
    }
    pairs.sort_unstable();
    let shared = |a: usize, b: usize| {
        let key = (a.min(b), a.max(b));
        pairs.partition_point(|p| *p <= key) - pairs.partition_point(|p| *p < key)
    };
    j.rows
        .iter()
        .map(|r| match r.blocks() {
            [] => 1,
            [a] => per_body[a.body],
            [a, b] => per_body[a.body] + per_body[b.body] - shared(a.body, b.body),
            _ => 0,
        })
        .sum()
}
