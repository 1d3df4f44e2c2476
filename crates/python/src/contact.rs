//! `signorini.contact`: detect a scene's contacts, assemble the contact LCP (W, b) at the
//! acceleration, velocity or position level and solve it, as `signorini contact` does.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use signorini_contact::{contact_problem, ContactReport, Level, Scene};
use signorini_lcp::SolveOptions;

use crate::arrays::{matrix_to_py, to_numpy};
use crate::lcp::{build_solver, solve_error, DEFAULT_SOLVER};
use crate::{guarded, value_error};

/// A scene as given: a path to a `.toml` / `.json` file, or the schema as a Python dict (read
/// as its JSON text).
pub(crate) enum SceneInput {
    /// A scene file.
    Path(PathBuf),
    /// JSON text of a dict.
    Json(String),
}

impl SceneInput {
    /// Reads the scene argument: a dict is dumped with `json.dumps`, anything else must be a
    /// path (str or os.PathLike).
    pub(crate) fn from_py(scene: &Bound<'_, PyAny>) -> PyResult<Self> {
        if scene.is_instance_of::<PyDict>() {
            let json = scene.py().import("json")?;
            let text: String = json.getattr("dumps")?.call1((scene,))?.extract()?;
            Ok(SceneInput::Json(text))
        } else if scene.is_instance_of::<PyString>() || scene.hasattr("__fspath__")? {
            Ok(SceneInput::Path(scene.extract()?))
        } else {
            Err(value_error(
                "scene must be a path to a .toml or .json scene file, or a dict of the scene schema",
            ))
        }
    }

    /// The validated scene; the message names the file as the CLI does.
    pub(crate) fn load(&self) -> Result<Scene, String> {
        match self {
            SceneInput::Path(path) => Scene::from_path(path).map_err(|e| e.naming(path)),
            SceneInput::Json(text) => Scene::from_json_str(text).map_err(|e| format!("scene: {e}")),
        }
    }

    /// How the scene is named in messages.
    pub(crate) fn shown(&self) -> String {
        match self {
            SceneInput::Path(p) => p.display().to_string(),
            SceneInput::Json(_) => "scene".to_string(),
        }
    }
}

/// Detects the closed contacts of a scene's initial state, assembles the contact LCP
/// w = W z + b at `level` (`"acceleration"`: forces; `"velocity"` or `"position"`: impulses over
/// a time step `step`), and solves it with `solver` (a spec string, default `"auto"`).
///
/// `scene` is a path to a `.toml` / `.json` scene file or a dict of the same schema
/// (docs/contact-scenes.md). A scene with friction gets the polyhedral (Stewart-Trinkle) rows
/// with `friction_directions` directions per contact. Returns a dict with the keys of
/// `signorini contact --json`: `level`, `n_contacts`, `contacts` (list of dicts: `body_a`,
/// `body_b`, `point`, `normal`, `gap`), `W` (scipy.sparse.csr_matrix), `b`, `status`, `solver`,
/// `residual` (`||min(z, w)||_2 / ||b||_2`), `reactions`, and, where they apply,
/// `sliding_speeds`, `normal_accelerations`, `normal_velocities` (numpy arrays).
#[pyfunction]
#[pyo3(signature = (scene, level = "acceleration", step = None, friction_directions = None, solver = DEFAULT_SOLVER))]
pub(crate) fn contact<'py>(
    py: Python<'py>,
    scene: &Bound<'py, PyAny>,
    level: &str,
    step: Option<f64>,
    friction_directions: Option<i64>,
    solver: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let friction_directions = crate::count("friction_directions", friction_directions)?;
    let scene = SceneInput::from_py(scene)?;
    let level: Level = level.parse().map_err(|e: String| value_error(format!("level: {e}")))?;
    let spec = solver.to_string();
    let (problem, report) = guarded(py, move || {
        let shown = scene.shown();
        let scene = scene.load()?;
        let solver = build_solver(&spec)?;
        let problem = contact_problem(&scene, level, step, friction_directions)
            .map_err(|e| format!("{shown}: {e}"))?;
        let solution = solver
            .solve(&problem.lcp, &SolveOptions::default(), None)
            .map_err(|e| format!("{shown}: {}", solve_error(e)))?;
        let report =
            ContactReport::new(&problem, &solution).map_err(|e| format!("{shown}: {e}"))?;
        Ok((problem, report))
    })?;
    let d = PyDict::new(py);
    d.set_item("level", report.level.as_str())?;
    d.set_item("n_contacts", report.n_contacts)?;
    let contacts = PyList::empty(py);
    for c in report.contacts {
        let e = PyDict::new(py);
        e.set_item("body_a", c.body_a)?;
        e.set_item("body_b", c.body_b)?;
        e.set_item("point", to_numpy(py, c.point))?;
        e.set_item("normal", to_numpy(py, c.normal))?;
        e.set_item("gap", c.gap)?;
        contacts.append(e)?;
    }
    d.set_item("contacts", contacts)?;
    d.set_item("W", matrix_to_py(py, problem.lcp.matrix())?)?;
    d.set_item("b", to_numpy(py, report.b))?;
    d.set_item("status", report.status)?;
    d.set_item("solver", report.solver)?;
    d.set_item("residual", report.residual)?;
    d.set_item("reactions", to_numpy(py, report.reactions))?;
    for (key, v) in [
        ("sliding_speeds", report.sliding_speeds),
        ("normal_accelerations", report.normal_accelerations),
        ("normal_velocities", report.normal_velocities),
    ] {
        if let Some(v) = v {
            d.set_item(key, to_numpy(py, v))?;
        }
    }
    Ok(d)
}
