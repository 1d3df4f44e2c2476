//! Regression: event-driven on a 3D box resting on four corners (W 4x4 of rank 3, reactions not
//! unique) ran forever. Root cause: the release switch N - a of an unloaded corner was -1e-16
//! (round-off in a), so the corner was released at t = 0; the constrained motion on the other
//! three then let its gap drift below zero and impacts repeated at one instant without time
//! advancing. Fixed by releasing only once a exceeds `release_tol`, and by
//! `EventDrivenError::Stalled` after 100 events at one instant instead of a hang.

use signorini_integrators::{simulate_event_driven, EventDrivenParams, SceneModel};

#[test]
fn box_on_four_corners_stays_at_rest_event_driven() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../verification/scenes/box-3d-four-corners.toml");
    let scene = signorini_contact::read_scene(&path).expect("reference scene reads");
    let model = SceneModel::new(scene).expect("model");
    let (q, v) = model.initial_state();
    let solver = signorini_lcp::Registry::builtin().build("lemke").expect("lemke is registered");
    let params = EventDrivenParams { max_impacts: 20, ..EventDrivenParams::default() };
    let run = simulate_event_driven(&model, &model, solver.as_ref(), 0.0, &q, &v, 0.5, &params)
        .expect("runs to the end");
    assert!(run.releases.is_empty(), "released {:?}", run.releases);
    assert!(run.impacts.is_empty());
    let drift = run.end.q.iter().zip(&q).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(drift < 1e-9, "moved by {drift}");
}
