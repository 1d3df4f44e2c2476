//! A run's samples as named columns: the names `signorini simulate --out` writes as its CSV
//! header (`t`, then `<body>.<coordinate>` for every non-fixed body, the coordinates in the
//! order of [`BodyState`]), a sample's values in that order, and [`SampleColumns`], which keeps
//! every sample of a run in those columns within the run's memory limit — for callers that
//! want the whole trajectory in memory (another crate, a binding to another language);
//! `signorini simulate` streams the rows instead.

use signorini_lcp::LcpSolver;

use super::{BodyState, Simulation, SimulationError, SimulationObserver, SimulationOutcome};
use crate::stepping::Sample;

/// Every sample of a run, one column per name of [`Simulation::column_names`].
#[derive(Debug, Clone, PartialEq)]
pub struct SampleColumns {
    names: Vec<String>,
    values: Vec<Vec<f64>>,
}

impl SampleColumns {
    /// No rows yet, the columns named.
    pub(crate) fn new(names: Vec<String>) -> Self {
        let values = vec![Vec::new(); names.len()];
        Self { names, values }
    }

    /// The column names, `t` first (the CSV header of `signorini simulate --out`).
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The column of that name, if there is one.
    pub fn column(&self, name: &str) -> Option<&[f64]> {
        let i = self.names.iter().position(|n| n == name)?;
        Some(&self.values[i])
    }

    /// (name, values) of every column, in the order of the names.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[f64])> {
        self.names.iter().map(String::as_str).zip(self.values.iter().map(Vec::as_slice))
    }

    /// Number of samples (rows).
    pub fn n_rows(&self) -> usize {
        self.values.first().map_or(0, Vec::len)
    }

    /// The columns by value, (name, values) in the order of the names.
    pub fn into_columns(self) -> Vec<(String, Vec<f64>)> {
        self.names.into_iter().zip(self.values).collect()
    }

    /// Appends one row; `row` has one value per column.
    fn push(&mut self, row: &[f64]) {
        debug_assert_eq!(row.len(), self.values.len());
        for (column, &x) in self.values.iter_mut().zip(row) {
            column.push(x);
        }
    }
}

/// Flattens body states into values, in the order of the column names.
fn values(t: f64, states: &[BodyState]) -> Vec<f64> {
    let mut row = vec![t];
    for s in states {
        row.extend(s.columns.iter().map(|&(_, x)| x));
    }
    row
}

impl Simulation {
    /// The names of a sample's values: `t`, then `<body>.<coordinate>` for every non-fixed
    /// body in the scene's order (x, y[, z], angle or qw, qx, qy, qz, vx, vy[, vz], omega or
    /// wx, wy, wz; see [`BodyState`]). They are the CSV header of `signorini simulate --out`.
    pub fn column_names(&self) -> Vec<String> {
        let (q, v) = self.model.initial_state();
        let mut names = vec!["t".to_owned()];
        for s in self.body_states(&q, &v) {
            names.extend(s.columns.iter().map(|(c, _)| format!("{}.{c}", s.name)));
        }
        names
    }

    /// A sample's values in the order of [`Simulation::column_names`].
    pub fn row(&self, sample: &Sample) -> Vec<f64> {
        values(sample.t, &self.body_states(&sample.q, &sample.v))
    }

    /// Runs the simulation with `solver` and keeps every sample in columns. Kept samples count
    /// against [`super::SimulationLimits::memory_bytes`]: a run whose samples would need more
    /// stops with [`SimulationError::Output`] (stream them with [`Simulation::run`] and an
    /// observer instead, or raise the limit).
    pub fn run_to_columns(
        &self,
        solver: &dyn LcpSolver,
    ) -> Result<(SampleColumns, SimulationOutcome), SimulationError> {
        let mut keep = Keep {
            sim: self,
            columns: SampleColumns::new(self.column_names()),
            limit: self.options.limits.memory_bytes,
        };
        let outcome = self.run(solver, &mut keep)?;
        Ok((keep.columns, outcome))
    }
}

/// The observer of [`Simulation::run_to_columns`].
struct Keep<'a> {
    sim: &'a Simulation,
    columns: SampleColumns,
    limit: u64,
}

impl SimulationObserver for Keep<'_> {
    fn sample(&mut self, sample: &Sample) -> Result<(), String> {
        let row = self.sim.row(sample);
        let bytes = (self.columns.n_rows() as u64 + 1)
            .saturating_mul(row.len() as u64)
            .saturating_mul(std::mem::size_of::<f64>() as u64);
        if bytes > self.limit {
            return Err(format!(
                "keeping the samples would need more than the memory limit of {}: stream them \
                 to an observer instead, or raise the limit",
                super::fmt_bytes(u128::from(self.limit))
            ));
        }
        self.columns.push(&row);
        Ok(())
    }
}
