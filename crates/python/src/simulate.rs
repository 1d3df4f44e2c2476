//! `signorini.simulate`: runs a scene with a time-stepping, event-driven or penalty scheme
//! (signorini-integrators' `Simulation`, as `signorini simulate` does) and returns the
//! trajectory as numpy columns named as the CLI's CSV columns.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use signorini_integrators::simulation::{Candidates, DEFAULT_MAX_STEPS};
use signorini_integrators::{
    Sample, Scheme, Simulation, SimulationError, SimulationObserver, SimulationOptions, WarmStart,
};

use crate::arrays::to_numpy;
use crate::contact::SceneInput;
use crate::lcp::{build_solver, DEFAULT_SOLVER};
use crate::{gib_to_bytes, guarded, value_error};

/// Collects every sample as columns: `t`, then `<body>.<coordinate>` for every free body.
struct Columns<'a> {
    sim: &'a Simulation,
    names: Vec<String>,
    values: Vec<Vec<f64>>,
}

impl SimulationObserver for Columns<'_> {
    fn sample(&mut self, sample: &Sample) -> Result<(), String> {
        let states = self.sim.body_states(&sample.q, &sample.v);
        if self.names.is_empty() {
            self.names.push("t".into());
            for s in &states {
                self.names.extend(s.columns.iter().map(|(c, _)| format!("{}.{c}", s.name)));
            }
            self.values = vec![Vec::new(); self.names.len()];
        }
        let row = std::iter::once(sample.t)
            .chain(states.iter().flat_map(|s| s.columns.iter().map(|&(_, x)| x)));
        for (k, x) in row.enumerate() {
            match self.values.get_mut(k) {
                Some(column) => column.push(x),
                None => return Err("the number of coordinates changed during the run".into()),
            }
        }
        Ok(())
    }
}

/// A number as a user would type it (the CLI's rule).
fn num(x: f64) -> String {
    if x == 0.0 || (1e-4..1e6).contains(&x.abs()) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

/// One line for a simulation error, with the options named as keyword arguments.
fn simulation_error(file: &str, t_end: f64, step: f64, e: SimulationError) -> String {
    match e {
        SimulationError::Option { option, value, reason } => {
            format!("{option} = {value}: {reason}")
        }
        SimulationError::TooManySteps { steps, max_steps } => format!(
            "t_end {} / step {} = {steps:.3e} steps, more than max_steps {max_steps}: use a \
             longer step or a shorter t_end, or raise max_steps",
            num(t_end),
            num(step),
        ),
        SimulationError::Memory(b) => format!(
            "{file}: {} would need {} of memory, more than memory_limit {} GiB: use a smaller \
             scene or option, or raise memory_limit",
            b.what,
            signorini_integrators::simulation::fmt_bytes(b.bytes),
            b.limit as f64 / (1u64 << 30) as f64
        ),
        e => format!("{file}: {e}"),
    }
}

/// Simulates a scene from t = 0 to `t_end` with `scheme` (`"moreau-jean"`,
/// `"stewart-trinkle"`, `"position-lcp"`, `"event-driven"` or `"penalty:<integrator>"` with
/// explicit-euler, symplectic-euler, verlet, rk4, implicit-euler or implicit-midpoint), each
/// step's LCP solved by `solver`.
///
/// `scene` is a path to a `.toml` / `.json` scene file or a dict of the same schema. Returns a
/// dict: one numpy array per CSV column of `signorini simulate --out` (`t`, then
/// `<body>.<coordinate>` for every free body, one entry per sample), `impacts` (list of dicts:
/// `t`, `bodies`, `impulse`, `energy_before`, `energy_after`, and for penalty episodes
/// `separated`, `t_separation`; the first 10000), `impacts_total`, `steps`, `lcp_solves`,
/// `solver_failures` (list of `{t, status}`), `solver_failures_total`, `end` (`"finished"` or
/// `"time_limit"`) and `notes`. The GIL is released during the run.
#[pyfunction]
#[pyo3(signature = (scene, scheme = "moreau-jean", *, t_end, step = None, solver = DEFAULT_SOLVER, theta = None, friction_directions = None, max_steps = None, time_limit = None, memory_limit = None, candidate_distance = None, warm_start = false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn simulate<'py>(
    py: Python<'py>,
    scene: &Bound<'py, PyAny>,
    scheme: &str,
    t_end: f64,
    step: Option<f64>,
    solver: &str,
    theta: Option<f64>,
    friction_directions: Option<i64>,
    max_steps: Option<i64>,
    time_limit: Option<f64>,
    memory_limit: Option<f64>,
    candidate_distance: Option<f64>,
    warm_start: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let scheme: Scheme =
        scheme.parse().map_err(|e| value_error(format!("scheme {}: {e}", scheme.trim())))?;
    let mut o = SimulationOptions::new(scheme, t_end);
    o.step = step;
    o.theta = theta;
    o.friction_directions = crate::count("friction_directions", friction_directions)?;
    o.warm_start = if warm_start { WarmStart::PreviousStep } else { WarmStart::Off };
    o.limits.max_steps = crate::count("max_steps", max_steps)?.unwrap_or(DEFAULT_MAX_STEPS);
    if let Some(d) = candidate_distance {
        o.candidates = Candidates::WithinDistance(d);
    }
    o.limits.time_limit = crate::time_limit(time_limit)?;
    if let Some(gib) = memory_limit {
        o.limits.memory_bytes = gib_to_bytes("memory_limit", gib)?;
    }
    let scene = SceneInput::from_py(scene)?;
    let spec = solver.to_string();
    let step_shown = step.unwrap_or_else(|| scheme.default_step());
    let (names, values, outcome) = guarded(py, move || {
        let file = scene.shown();
        let scene = scene.load()?;
        let sim =
            Simulation::new(scene, o).map_err(|e| simulation_error(&file, t_end, step_shown, e))?;
        let solver = build_solver(&spec)?;
        let mut columns = Columns { sim: &sim, names: Vec::new(), values: Vec::new() };
        let outcome = sim
            .run(solver.as_ref(), &mut columns)
            .map_err(|e| simulation_error(&file, t_end, step_shown, e))?;
        let Columns { names, values, .. } = columns;
        Ok((names, values, outcome))
    })?;
    let d = PyDict::new(py);
    for (name, column) in names.into_iter().zip(values) {
        d.set_item(name, to_numpy(py, column))?;
    }
    let impacts = PyList::empty(py);
    for e in outcome.impacts.items {
        let i = PyDict::new(py);
        i.set_item("t", e.t)?;
        i.set_item("bodies", e.bodies)?;
        i.set_item("impulse", e.impulse)?;
        i.set_item("energy_before", e.energy_before)?;
        i.set_item("energy_after", e.energy_after)?;
        if let Some(s) = e.separated {
            i.set_item("separated", s)?;
        }
        if let Some(t) = e.t_separation {
            i.set_item("t_separation", t)?;
        }
        impacts.append(i)?;
    }
    d.set_item("impacts", impacts)?;
    d.set_item("impacts_total", outcome.impacts.total)?;
    d.set_item("steps", outcome.steps)?;
    d.set_item("lcp_solves", outcome.lcp_solves)?;
    let failures = PyList::empty(py);
    for f in outcome.solver_failures.items {
        let x = PyDict::new(py);
        x.set_item("t", f.t)?;
        x.set_item("status", f.status.as_str())?;
        failures.append(x)?;
    }
    d.set_item("solver_failures", failures)?;
    d.set_item("solver_failures_total", outcome.solver_failures.total)?;
    d.set_item("end", outcome.finished.as_str())?;
    d.set_item("notes", outcome.notes)?;
    Ok(d)
}
