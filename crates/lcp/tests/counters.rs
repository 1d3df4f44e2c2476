//! Issue 13: the counters a solution reports are counted by construction, and agree with an
//! independent count. [`Lcp::products`] counts every product with M or M' the problem performs,
//! whoever calls it; the driver's own recomputation of w and its certificate checks are not
//! counted there, so for a solver whose only access to M is through products, the reported
//! `matvecs` must equal the products it caused. Splitting methods read M row by row: each
//! sweep is reported as one product (two for `sgs`), which no product counter can see, so for
//! them the difference must be exactly the sweeps.

use signorini_lcp::{generate, Lcp, Registry, SolveOptions};

fn problems() -> Vec<(&'static str, Lcp)> {
    vec![
        ("random_spd(30)", generate::random_spd(30, 4)),
        ("delassus_like(40, 3)", generate::delassus_like_with_solution(40, 3, 10.0, 8).0),
        ("box_stack(8)", generate::box_stack(8, 10.0)),
    ]
}

fn reported_and_counted(spec: &str, lcp: &Lcp) -> (usize, usize, usize) {
    let solver = Registry::builtin().build(spec).expect("registered");
    let before = lcp.products();
    let sol = solver.solve(lcp, &SolveOptions::default(), None).expect("runs");
    (sol.matvecs, lcp.products() - before, sol.iterations)
}

#[test]
fn product_based_solvers_report_every_product_they_perform() {
    for spec in
        ["apgd", "newton-fb", "newton-fb:linear=gmres", "newton-min:presweeps=0", "ipm", "bpp"]
    {
        for (name, lcp) in problems() {
            let (reported, counted, _) = reported_and_counted(spec, &lcp);
            assert!(counted > 0 || reported == 0, "{spec} on {name}: no product at all?");
            assert_eq!(
                reported, counted,
                "{spec} on {name}: reported {reported}, performed {counted}"
            );
        }
    }
}

#[test]
fn splitting_methods_report_their_sweeps_plus_their_products() {
    for (spec, per_sweep) in [("pgs", 1), ("psor", 1), ("sgs", 2), ("bpgs", 1), ("pgs-colored", 1)]
    {
        for (name, lcp) in problems() {
            let (reported, counted, sweeps) = reported_and_counted(spec, &lcp);
            assert_eq!(
                reported,
                counted + per_sweep * sweeps,
                "{spec} on {name}: reported {reported}, products {counted}, sweeps {sweeps}"
            );
        }
    }
}
