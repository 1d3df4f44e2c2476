//! M and J at one configuration, as the time steppers use them: through the model's block
//! structure when it has one (no n x n matrix: exact inverse blocks, sparse Jacobian rows, the
//! contact crate's block assembly of W = J M^-1 J^T and a sparse LCP), otherwise dense (the
//! Cholesky factor of M(q) and dense Jacobian rows, for general models such as articulated ones).

use faer::linalg::solvers::Solve;
use faer::{Mat, Side};
use signorini_contact::{Jacobian, MassMatrix};
use signorini_lcp::{Lcp, ProblemError};

use crate::model::{ContactId, ContactModel, MechanicalSystem, ModelError, StepRows};

/// The contacts of one step (identity, gap, laws) with M and J at q_k, in one order.
pub(crate) struct StepSet {
    /// Identity of every contact (the warm start's key).
    pub(crate) ids: Vec<ContactId>,
    /// Gaps at q_k.
    pub(crate) gaps: Vec<f64>,
    /// Newton restitution per contact.
    pub(crate) restitution: Vec<f64>,
    /// Friction coefficient per contact (Stewart–Trinkle; zeros otherwise).
    pub(crate) friction: Vec<f64>,
    /// M and the rows.
    pub(crate) mats: StepMatrices,
}

/// How a scheme wants a step's contacts: which rows, how many per contact, and for a model
/// with a fixed contact set, its matrices and friction coefficients.
pub(crate) struct SetRequest<'a, F, G> {
    pub(crate) rows: StepRows,
    pub(crate) rows_per_contact: usize,
    pub(crate) fixed_matrices: F,
    pub(crate) friction: G,
    pub(crate) contacts: &'a dyn ContactModel,
}

impl StepSet {
    /// The step's contacts at (q, v) (time t, step h): the model's own per-step set when it
    /// has one ([`ContactModel::step_contacts`]), otherwise every contact by index.
    pub(crate) fn evaluate<F, G>(
        sys: &dyn MechanicalSystem,
        (q, v): (&[f64], &[f64]),
        (t, h): (f64, f64),
        req: SetRequest<'_, F, G>,
    ) -> Result<Self, ModelError>
    where
        F: FnOnce() -> Result<StepMatrices, ModelError>,
        G: Fn(usize) -> f64,
    {
        let contacts = req.contacts;
        if let Some(found) = contacts.step_contacts(q, v, h, req.rows) {
            let c = found.map_err(|e| ModelError::Contacts { t, message: e.to_string() })?;
            let n_c = c.ids.len();
            if c.gaps.len() != n_c || c.restitution.len() != n_c || c.friction.len() != n_c {
                return Err(ModelError::Dimension(format!(
                    "{n_c} step contacts, {} gaps, {} restitutions, {} friction coefficients",
                    c.gaps.len(),
                    c.restitution.len(),
                    c.friction.len()
                )));
            }
            let mats =
                StepMatrices::with_sparse_rows(sys, q, t, n_c * req.rows_per_contact, c.rows)?;
            return Ok(Self {
                ids: c.ids,
                gaps: c.gaps,
                restitution: c.restitution,
                friction: c.friction,
                mats,
            });
        }
        let n_c = contacts.n_contacts();
        let mats = (req.fixed_matrices)()?;
        let gaps = contacts.gaps(q);
        if gaps.len() != n_c {
            return Err(ModelError::Dimension(format!("{n_c} contacts, {} gaps", gaps.len())));
        }
        Ok(Self {
            ids: (0..n_c).map(ContactId::Index).collect(),
            gaps,
            restitution: (0..n_c).map(|c| contacts.restitution(c)).collect(),
            friction: (0..n_c).map(req.friction).collect(),
            mats,
        })
    }
}

/// M and J at one configuration.
pub(crate) enum StepMatrices {
    /// Block-diagonal mass operator and sparse rows.
    Structured { mass: Box<dyn MassMatrix>, jac: Jacobian },
    /// A dense M, its Cholesky factor and dense rows (n_contacts x n_dof).
    Dense { m: Mat<f64>, llt: faer::linalg::solvers::Llt<f64>, jac: Mat<f64> },
}

impl StepMatrices {
    /// Evaluates M(q) and the normal J(q) at time t (for error messages), checking the sizes.
    pub(crate) fn at(
        sys: &dyn MechanicalSystem,
        contacts: &dyn ContactModel,
        q: &[f64],
        t: f64,
    ) -> Result<Self, ModelError> {
        Self::with_rows(sys, q, t, contacts.n_contacts(), contacts.jacobian_rows(q), || {
            contacts.jacobian(q)
        })
    }

    /// Evaluates M(q) at time t with the rows of J given either sparse (`rows`, used when the
    /// model also has a mass operator) or by `dense`; `n_rows` is the expected row count.
    pub(crate) fn with_rows(
        sys: &dyn MechanicalSystem,
        q: &[f64],
        t: f64,
        n_rows: usize,
        rows: Option<Jacobian>,
        dense: impl FnOnce() -> Mat<f64>,
    ) -> Result<Self, ModelError> {
        match (sys.mass_operator(q), rows) {
            (Some(mass), Some(jac)) => Self::structured(sys.n_dof(), mass, jac, n_rows),
            _ => Self::dense(sys, q, t, n_rows, dense()),
        }
    }

    /// The structured path with the sizes checked.
    fn structured(
        n: usize,
        mass: Box<dyn MassMatrix>,
        jac: Jacobian,
        n_rows: usize,
    ) -> Result<Self, ModelError> {
        if mass.n_dofs() != n || jac.n_dofs != n || jac.n_rows() != n_rows {
            return Err(ModelError::Dimension(format!(
                "n_dof {n}, mass operator {}, Jacobian {} x {} ({n_rows} rows expected)",
                mass.n_dofs(),
                jac.n_rows(),
                jac.n_dofs
            )));
        }
        Ok(Self::Structured { mass, jac })
    }

    /// The dense path: M(q), its Cholesky factor and the given dense rows, sizes checked.
    fn dense(
        sys: &dyn MechanicalSystem,
        q: &[f64],
        t: f64,
        n_rows: usize,
        jac: Mat<f64>,
    ) -> Result<Self, ModelError> {
        let n = sys.n_dof();
        let m = sys.mass_matrix(q);
        if m.nrows() != n || m.ncols() != n || jac.nrows() != n_rows || jac.ncols() != n {
            return Err(ModelError::Dimension(format!(
                "n_dof {n}, M {}x{}, Jacobian {}x{} ({n_rows} rows expected)",
                m.nrows(),
                m.ncols(),
                jac.nrows(),
                jac.ncols()
            )));
        }
        let llt = m.llt(Side::Lower).map_err(|_| ModelError::MassNotPositiveDefinite { t })?;
        Ok(Self::Dense { m, llt, jac })
    }

    /// M(q) with the sparse rows of a step's own contacts: structured when the model has a
    /// mass operator, otherwise dense (the rows written out).
    pub(crate) fn with_sparse_rows(
        sys: &dyn MechanicalSystem,
        q: &[f64],
        t: f64,
        n_rows: usize,
        jac: Jacobian,
    ) -> Result<Self, ModelError> {
        match sys.mass_operator(q) {
            Some(mass) => Self::structured(sys.n_dof(), mass, jac, n_rows),
            None => {
                let mut d = Mat::zeros(jac.n_rows(), jac.n_dofs);
                for (i, r) in jac.rows.iter().enumerate() {
                    for b in r.blocks() {
                        for (k, &a) in b.as_slice().iter().enumerate() {
                            d[(i, b.offset + k)] += a;
                        }
                    }
                }
                Self::dense(sys, q, t, n_rows, d)
            }
        }
    }

    /// Whether the structured (sparse) path is in use.
    pub(crate) fn is_structured(&self) -> bool {
        matches!(self, Self::Structured { .. })
    }

    /// M^-1 x.
    pub(crate) fn solve_mass(&self, x: &[f64]) -> Vec<f64> {
        match self {
            Self::Structured { mass, .. } => {
                let mut y = vec![0.0; x.len()];
                mass.apply_inverse(x, &mut y);
                y
            }
            Self::Dense { llt, .. } => {
                let sol = llt.solve(Mat::from_fn(x.len(), 1, |i, _| x[i]));
                (0..x.len()).map(|i| sol[(i, 0)]).collect()
            }
        }
    }

    /// M x.
    pub(crate) fn mass_times(&self, x: &[f64]) -> Vec<f64> {
        match self {
            Self::Structured { mass, .. } => {
                let mut y = vec![0.0; x.len()];
                mass.apply(x, &mut y);
                y
            }
            Self::Dense { m, .. } => {
                (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m[(i, j)] * x[j]).sum()).collect()
            }
        }
    }

    /// J v over every contact.
    pub(crate) fn jv(&self, v: &[f64]) -> Vec<f64> {
        match self {
            Self::Structured { jac, .. } => jac.apply(v),
            Self::Dense { jac, .. } => (0..jac.nrows())
                .map(|c| (0..jac.ncols()).map(|j| jac[(c, j)] * v[j]).sum())
                .collect(),
        }
    }

    /// The rows `active` of J as their own operator.
    pub(crate) fn restrict(&self, active: &[usize]) -> ActiveRows<'_> {
        ActiveRows { m: self, active: active.to_vec() }
    }
}

/// The active rows J_A of a [`StepMatrices`].
pub(crate) struct ActiveRows<'a> {
    m: &'a StepMatrices,
    active: Vec<usize>,
}

impl ActiveRows<'_> {
    /// Number of rows.
    pub(crate) fn len(&self) -> usize {
        self.active.len()
    }

    /// The LCP matrix W = J_A M^-1 J_A^T with right-hand side b: sparse (block assembly) for a
    /// structured model, dense otherwise.
    pub(crate) fn delassus_lcp(&self, b: Vec<f64>) -> Result<Lcp, ProblemError> {
        match self.m {
            StepMatrices::Structured { mass, jac } => {
                let rows = self.active.iter().map(|&c| jac.rows[c]).collect();
                let w = mass.delassus(&Jacobian { n_dofs: jac.n_dofs, rows });
                Lcp::from_coo(w.nrows, &w.row, &w.col, &w.val, b)
            }
            StepMatrices::Dense { llt, jac, .. } => {
                let n = jac.ncols();
                let ja = Mat::from_fn(self.active.len(), n, |a, j| jac[(self.active[a], j)]);
                let minv_jt = llt.solve(ja.transpose().to_owned());
                Lcp::from_dense(&ja * &minv_jt, b)
            }
        }
    }

    /// The entries (row, column, value) of W = J_A M^-1 J_A^T: the block assembly's nonzeros
    /// for a structured model, every entry of the dense product otherwise.
    pub(crate) fn delassus_entries(&self) -> Vec<(usize, usize, f64)> {
        match self.m {
            StepMatrices::Structured { mass, jac } => {
                let rows = self.active.iter().map(|&c| jac.rows[c]).collect();
                let w = mass.delassus(&Jacobian { n_dofs: jac.n_dofs, rows });
                w.row.iter().zip(&w.col).zip(&w.val).map(|((&r, &c), &v)| (r, c, v)).collect()
            }
            StepMatrices::Dense { llt, jac, .. } => {
                let n = jac.ncols();
                let ja = Mat::from_fn(self.active.len(), n, |a, j| jac[(self.active[a], j)]);
                let w = &ja * llt.solve(ja.transpose().to_owned());
                let m = self.active.len();
                (0..m)
                    .flat_map(|r| (0..m).map(move |c| (r, c)))
                    .map(|(r, c)| (r, c, w[(r, c)]))
                    .collect()
            }
        }
    }

    /// M^-1 J_A^T lambda.
    pub(crate) fn impulse_velocity(&self, lambda: &[f64]) -> Vec<f64> {
        match self.m {
            StepMatrices::Structured { jac, .. } => {
                let mut full = vec![0.0; jac.n_rows()];
                for (&c, &l) in self.active.iter().zip(lambda) {
                    full[c] = l;
                }
                self.m.solve_mass(&jac.apply_transpose(&full))
            }
            StepMatrices::Dense { jac, .. } => {
                let n = jac.ncols();
                let jt: Vec<f64> = (0..n)
                    .map(|j| self.active.iter().zip(lambda).map(|(&c, &l)| jac[(c, j)] * l).sum())
                    .collect();
                self.m.solve_mass(&jt)
            }
        }
    }

    /// J_A x.
    pub(crate) fn apply(&self, x: &[f64]) -> Vec<f64> {
        match self.m {
            StepMatrices::Structured { jac, .. } => {
                self.active.iter().map(|&c| jac.rows[c].dot(x)).collect()
            }
            StepMatrices::Dense { jac, .. } => self
                .active
                .iter()
                .map(|&c| (0..jac.ncols()).map(|j| jac[(c, j)] * x[j]).sum())
                .collect(),
        }
    }
}
