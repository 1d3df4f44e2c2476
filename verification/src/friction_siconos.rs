//! The Siconos frictional-contact set (`fc/siconos/<file>`, 27 files of Siconos numerics,
//! INRIA, Apache-2.0, vendored in `verification/data/siconos-fc/`) as a (file, solver) table:
//! every solver of signorini-friction's registry, by name with its defaults, solves every file
//! to 1e-8 (Siconos' `fc3d_compute_error`, recomputed here from the returned r), except the
//! pairs of [`TABLE`], each with the reason its failure is measured and expected. The table
//! is strict like the LCP one: a listed pair that solves fails the check.
//!
//! Quick set: the files and solvers that run in well under a second each in the dev profile;
//! the four slow files ([`SLOW_FILES`]) and the slow solvers ([`SLOW_SOLVERS`]) run in the full
//! set only (`fc/siconos_slow/<file>` holds the slow solvers of a quick file). Checks carry no
//! time limit, so the same build gives the same table.

use signorini_friction::{FcProblem, FcRegistry};
use signorini_lcp::{SolveOptions, Status};

use crate::case::{Case, Context};
use crate::check::{fmt_sci, Check};
use crate::expected_failures::ExpectedFailure;

/// The vendored Siconos frictional-contact set (Apache-2.0, Siconos, INRIA; README there).
pub const SICONOS_FC_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/siconos-fc");

/// The tolerance on the Siconos error.
pub const TOL: f64 = 1e-8;

/// Files that take over a second for `auto` in the dev profile: in the full set only.
pub const SLOW_FILES: [&str; 4] = [
    "BoxesStack1-i100000-32.hdf5.dat",
    "Capsules-i100-1090.dat",
    "Capsules-i101-404.dat",
    "Capsules-i125-1213.hdf5",
];

/// Solvers whose default iteration caps take seconds on the larger files in the dev profile:
/// in the full set only (`fc/siconos_slow/<file>`). Every other registered solver runs in the
/// quick case of each quick file.
pub const SLOW_SOLVERS: [&str; 4] = ["apgd-ccp", "ipm-ccp", "fixed-point", "lcp"];

/// Iteration caps of single columns, so that the full set stays bounded without a time limit
/// (which would make the checks depend on the machine): `lcp`'s Lemke pivots on the 3D
/// Capsules LCPs (about 2860 unknowns) take seconds per thousand, and it ends on a ray or at
/// the facet error there anyway.
pub const CAPS: [(&str, usize); 1] = [("lcp", 3000)];

const SOURCE: &str = "Siconos frictional-contact regression set (verification/data/siconos-fc, \
                      Apache-2.0, Siconos, INRIA); graded by fc3d_compute_error recomputed from r";

/// One file of the set, solved to 1e-8 by each of `solvers`.
#[derive(Debug, Clone)]
pub struct SiconosFcCase {
    id: String,
    file: String,
    solvers: Vec<String>,
    quick: bool,
}

impl Case for SiconosFcCase {
    fn id(&self) -> &str {
        &self.id
    }
    fn kind(&self) -> &str {
        "fc"
    }
    fn source(&self) -> &str {
        SOURCE
    }
    fn quick(&self) -> bool {
        self.quick
    }
    fn run(&self, _: &Context) -> Vec<Check> {
        let path = std::path::Path::new(SICONOS_FC_DIR).join(&self.file);
        let problem = match signorini_friction::formats::read_fc_problem(&path, None) {
            Ok(p) => p,
            Err(e) => return vec![self.check(None, false, format!("load error: {e}"))],
        };
        let registry = FcRegistry::builtin();
        self.solvers.iter().map(|spec| self.solve(&registry, spec, &problem)).collect()
    }
}

impl SiconosFcCase {
    fn check(&self, solver: Option<&str>, pass: bool, observed: String) -> Check {
        Check::new(
            &self.id,
            solver,
            "fc.solved",
            pass,
            format!("solved, Siconos error <= {TOL:.0e}"),
            observed,
            Some(TOL),
            SOURCE,
        )
    }

    /// One (file, solver) cell: solved iff the driver says so and the error recomputed here
    /// from r is within [`TOL`].
    fn solve(&self, registry: &FcRegistry, spec: &str, problem: &FcProblem) -> Check {
        let max_iter = CAPS.iter().find(|(name, _)| *name == spec).map(|(_, cap)| *cap);
        let options = SolveOptions { tol: Some(TOL), max_iter, ..SolveOptions::default() };
        let run = registry
            .build(spec)
            .map_err(|e| e.to_string())
            .and_then(|s| s.solve(problem, &options, None).map_err(|e| e.to_string()));
        match run {
            Ok(sol) => {
                let error = signorini_friction::merit::error(problem, &sol.r);
                self.check(
                    Some(spec),
                    sol.status == Status::Solved && error <= TOL,
                    format!(
                        "{} (error {}, {} iterations)",
                        sol.status,
                        fmt_sci(error),
                        sol.iterations
                    ),
                )
            }
            Err(e) => self.check(Some(spec), false, format!("error: {e}")),
        }
    }
}

/// The files of the set, sorted.
pub fn files() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(SICONOS_FC_DIR)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".dat") || n.ends_with(".hdf5"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The case id stem of a file: the name without `.dat` / `.hdf5`, dots as underscores.
pub fn stem(file: &str) -> String {
    file.trim_end_matches(".dat").trim_end_matches(".hdf5").replace('.', "_")
}

/// The solvers of the quick case (`auto` first, then every registered solver not in
/// [`SLOW_SOLVERS`]) and of the slow one: together, every registered solver.
pub fn columns() -> (Vec<String>, Vec<String>) {
    let registry = FcRegistry::builtin();
    let names = registry.names();
    let mut fast: Vec<String> = vec!["auto".into()];
    fast.extend(
        names.iter().filter(|n| **n != "auto" && !SLOW_SOLVERS.contains(n)).map(|n| n.to_string()),
    );
    let slow = names.iter().filter(|n| SLOW_SOLVERS.contains(n)).map(|n| n.to_string()).collect();
    (fast, slow)
}

/// The cases: per file `fc/siconos/<stem>` (the quick columns; quick unless the file is in
/// [`SLOW_FILES`]) and `fc/siconos_slow/<stem>` (the slow columns; full set only).
pub fn cases() -> Vec<Box<dyn Case>> {
    let (fast, slow) = columns();
    let mut out: Vec<Box<dyn Case>> = Vec::new();
    for file in files() {
        let s = stem(&file);
        let quick = !SLOW_FILES.contains(&file.as_str());
        out.push(Box::new(SiconosFcCase {
            id: format!("fc/siconos/{s}"),
            file: file.clone(),
            solvers: fast.clone(),
            quick,
        }));
        out.push(Box::new(SiconosFcCase {
            id: format!("fc/siconos_slow/{s}"),
            file,
            solvers: slow.clone(),
            quick: false,
        }));
    }
    out
}

/// The (file, solver) pairs that do not reach 1e-8 with the solver's defaults, each with what
/// was measured (dev profile, no time limit) and why.
pub const TABLE: &[ExpectedFailure] = &[
    ExpectedFailure {
        case: "fc/siconos_slow/Box_Stacks-i0122-82-5",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 4.72e-2; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Box_Stacks-i0122-82-5",
        solver: "lcp",
        reason: "measured: numerical_failure after 140 pivots, true cone error 2.10e-3; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos/BoxesStack1-i100000-32",
        solver: "nsgs",
        reason: "measured: max_iterations at the default 1000 sweeps, error 1.68e-4; Gauss-Seidel over contacts converges linearly, too slowly on this stack for the default cap (nsgs reaches 1e-8 on the Capsules files with 2302 to 8322 sweeps, docs/friction.md); auto solves the file",
    },
    ExpectedFailure {
        case: "fc/siconos/BoxesStack1-i100000-32",
        solver: "nsgs-colored",
        reason: "measured: max_iterations at the default 1000 sweeps, error 1.42e-4; Gauss-Seidel over contacts converges linearly, too slowly on this stack for the default cap (nsgs reaches 1e-8 on the Capsules files with 2302 to 8322 sweeps, docs/friction.md); auto solves the file",
    },
    ExpectedFailure {
        case: "fc/siconos/BoxesStack1-i100000-32",
        solver: "newton-ac",
        reason: "measured: max_iterations at 200 steps, error 3.56e-2; the Armijo line search on 1/2 |Phi|^2 accepts only short steps here (no globally convergent Newton method is known for Coulomb friction); auto, whose first stage adds nsgs sweeps when the line search fails, solves the file",
    },
    ExpectedFailure {
        case: "fc/siconos/BoxesStack1-i100000-32",
        solver: "admm",
        reason: "measured: max_iterations at 5000 iterations, error 1.43e-1; with the De Saxce shift recomputed every iteration ADMM is a fixed-point scheme without a convergence guarantee (Acary, Cadoux, Lemarechal, Malick 2011), slow here",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/BoxesStack1-i100000-32",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 357 interior-point iterations over its shift updates, error 8.61e-8; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/BoxesStack1-i100000-32",
        solver: "fixed-point",
        reason: "measured: max_iterations at 200 outer iterations, error 2.36e-5; the Tresca fixed point on the thresholds mu r_N has no contraction guarantee (Haslinger, Hlavacek, Necas 1996) and converges slowly here",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/BoxesStack1-i100000-32",
        solver: "lcp",
        reason: "measured: numerical_failure after 288 pivots, true cone error 3.00e-1; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos/Capsules-i100-1090",
        solver: "nsgs",
        reason: "measured: max_iterations at the default 1000 sweeps, error 1.16e-7; Gauss-Seidel over contacts converges linearly, too slowly on this stack for the default cap (nsgs reaches 1e-8 on the Capsules files with 2302 to 8322 sweeps, docs/friction.md); auto solves the file",
    },
    ExpectedFailure {
        case: "fc/siconos/Capsules-i100-1090",
        solver: "nsgs-colored",
        reason: "measured: max_iterations at the default 1000 sweeps, error 1.16e-7; Gauss-Seidel over contacts converges linearly, too slowly on this stack for the default cap (nsgs reaches 1e-8 on the Capsules files with 2302 to 8322 sweeps, docs/friction.md); auto solves the file",
    },
    ExpectedFailure {
        case: "fc/siconos/Capsules-i100-1090",
        solver: "newton-ac",
        reason: "measured: max_iterations at 200 steps, error 2.81e-3; the Armijo line search on 1/2 |Phi|^2 accepts only short steps here (no globally convergent Newton method is known for Coulomb friction); auto, whose first stage adds nsgs sweeps when the line search fails, solves the file",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Capsules-i100-1090",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 2.47e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos/Capsules-i100-1090",
        solver: "admm",
        reason: "measured: max_iterations at 5000 iterations, error 2.98e-3; with the De Saxce shift recomputed every iteration ADMM is a fixed-point scheme without a convergence guarantee (Acary, Cadoux, Lemarechal, Malick 2011), slow here",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Capsules-i100-1090",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 486 interior-point iterations over its shift updates, error 8.69e-6; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Capsules-i100-1090",
        solver: "fixed-point",
        reason: "measured: max_iterations at 200 outer iterations, error 6.51e-4; the Tresca fixed point on the thresholds mu r_N has no contraction guarantee (Haslinger, Hlavacek, Necas 1996) and converges slowly here",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Capsules-i100-1090",
        solver: "lcp",
        reason: "measured: ray_termination after 2051 pivots, true cone error 3.57e-4; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos/Capsules-i101-404",
        solver: "nsgs",
        reason: "measured: max_iterations at the default 1000 sweeps, error 2.14e-8; Gauss-Seidel over contacts converges linearly, too slowly on this stack for the default cap (nsgs reaches 1e-8 on the Capsules files with 2302 to 8322 sweeps, docs/friction.md); auto solves the file",
    },
    ExpectedFailure {
        case: "fc/siconos/Capsules-i101-404",
        solver: "nsgs-colored",
        reason: "measured: max_iterations at the default 1000 sweeps, error 2.15e-8; Gauss-Seidel over contacts converges linearly, too slowly on this stack for the default cap (nsgs reaches 1e-8 on the Capsules files with 2302 to 8322 sweeps, docs/friction.md); auto solves the file",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Capsules-i101-404",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 3.75e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos/Capsules-i101-404",
        solver: "admm",
        reason: "measured: max_iterations at 5000 iterations, error 1.31e-3; with the De Saxce shift recomputed every iteration ADMM is a fixed-point scheme without a convergence guarantee (Acary, Cadoux, Lemarechal, Malick 2011), slow here",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Capsules-i101-404",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 435 interior-point iterations over its shift updates, error 2.48e-5; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Capsules-i101-404",
        solver: "fixed-point",
        reason: "measured: max_iterations at 200 outer iterations, error 3.75e-6; the Tresca fixed point on the thresholds mu r_N has no contraction guarantee (Haslinger, Hlavacek, Necas 1996) and converges slowly here",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Capsules-i101-404",
        solver: "lcp",
        reason: "measured: ray_termination after 1595 pivots, true cone error 2.79e-4; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos/Capsules-i125-1213",
        solver: "nsgs",
        reason: "measured: max_iterations at the default 1000 sweeps, error 1.51e-6; Gauss-Seidel over contacts converges linearly, too slowly on this stack for the default cap (nsgs reaches 1e-8 on the Capsules files with 2302 to 8322 sweeps, docs/friction.md); auto solves the file",
    },
    ExpectedFailure {
        case: "fc/siconos/Capsules-i125-1213",
        solver: "nsgs-colored",
        reason: "measured: max_iterations at the default 1000 sweeps, error 1.51e-6; Gauss-Seidel over contacts converges linearly, too slowly on this stack for the default cap (nsgs reaches 1e-8 on the Capsules files with 2302 to 8322 sweeps, docs/friction.md); auto solves the file",
    },
    ExpectedFailure {
        case: "fc/siconos/Capsules-i125-1213",
        solver: "newton-ac",
        reason: "measured: max_iterations at 200 steps, error 6.12e-5; the Armijo line search on 1/2 |Phi|^2 accepts only short steps here (no globally convergent Newton method is known for Coulomb friction); auto, whose first stage adds nsgs sweeps when the line search fails, solves the file",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Capsules-i125-1213",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 1.31e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos/Capsules-i125-1213",
        solver: "admm",
        reason: "measured: max_iterations at 5000 iterations, error 4.91e-4; with the De Saxce shift recomputed every iteration ADMM is a fixed-point scheme without a convergence guarantee (Acary, Cadoux, Lemarechal, Malick 2011), slow here",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Capsules-i125-1213",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 464 interior-point iterations over its shift updates, error 2.14e-5; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Capsules-i125-1213",
        solver: "lcp",
        reason: "measured: max_iterations at the cap of 3000 pivots (CAPS), true cone error 9.8e-3 (9.76e-3 after 9715 pivots in 20 s of the fc_table example); the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Confeti-ex03-Fc3D-SBM",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 1.83e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos/Confeti-ex03-Fc3D-SBM",
        solver: "admm",
        reason: "measured: max_iterations at 5000 iterations, error 2.78e-7; with the De Saxce shift recomputed every iteration ADMM is a fixed-point scheme without a convergence guarantee (Acary, Cadoux, Lemarechal, Malick 2011), slow here",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Confeti-ex03-Fc3D-SBM",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 331 interior-point iterations over its shift updates, error 3.52e-6; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Confeti-ex03-Fc3D-SBM",
        solver: "lcp",
        reason: "measured: numerical_failure after 171 pivots, true cone error 8.21e-2; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Confeti-ex13-4contact-Fc3D-SBM",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 1.97e-2; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Confeti-ex13-4contact-Fc3D-SBM",
        solver: "lcp",
        reason: "measured: numerical_failure after 10 pivots, true cone error 3.53e-2; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FC2D_SliderCrankLagrangian00000",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 7.01e-3; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FC3D_Example1",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 9.10e-2; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FC3D_Example1",
        solver: "lcp",
        reason: "measured: numerical_failure after 16 pivots, true cone error 9.66e-3; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FC3D_Example1_SBM",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 9.10e-2; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FC3D_Example1_SBM",
        solver: "lcp",
        reason: "measured: numerical_failure after 16 pivots, true cone error 9.66e-3; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContact3D_1c",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 2.34e-2; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContact3D_1c",
        solver: "lcp",
        reason: "measured: numerical_failure after 6 pivots, true cone error 3.43e-4; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContact3D_RR_1c",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 1.88e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContact3D_RR_1c",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 230 interior-point iterations over its shift updates, error 1.54e-6; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContact3D_RR_1c",
        solver: "lcp",
        reason: "measured: numerical_failure after 5 pivots, true cone error 4.97e-1; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContactProblem00031",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 336 interior-point iterations over its shift updates, error 1.83e-6; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContactProblem00071",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 1.46e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContactProblem00071",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 345 interior-point iterations over its shift updates, error 1.50e-5; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContactProblem00237",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 2.88e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos/FrictionContactProblem00237",
        solver: "admm",
        reason: "measured: max_iterations at 5000 iterations, error 2.96e-2; with the De Saxce shift recomputed every iteration ADMM is a fixed-point scheme without a convergence guarantee (Acary, Cadoux, Lemarechal, Malick 2011), slow here",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContactProblem00237",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 362 interior-point iterations over its shift updates, error 2.44e-3; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContactProblem00237",
        solver: "fixed-point",
        reason: "measured: max_iterations at 200 outer iterations, error 1.94e-3; the Tresca fixed point on the thresholds mu r_N has no contraction guarantee (Haslinger, Hlavacek, Necas 1996) and converges slowly here",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContactProblem00374",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 441 interior-point iterations over its shift updates, error 4.54e-6; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContactProblem00394",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 1.10e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContactProblem00394",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 195 interior-point iterations over its shift updates, error 7.32e-5; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos/FrictionContactProblem00727",
        solver: "newton-ac",
        reason: "measured: max_iterations at 200 steps, error 4.86e-4; the Armijo line search on 1/2 |Phi|^2 accepts only short steps here (no globally convergent Newton method is known for Coulomb friction); auto, whose first stage adds nsgs sweeps when the line search fails, solves the file",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContactProblem00727",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 5.79e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos/FrictionContactProblem00727",
        solver: "admm",
        reason: "measured: max_iterations at 5000 iterations, error 7.20e-3; with the De Saxce shift recomputed every iteration ADMM is a fixed-point scheme without a convergence guarantee (Acary, Cadoux, Lemarechal, Malick 2011), slow here",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContactProblem00727",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 455 interior-point iterations over its shift updates, error 4.15e-1; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/FrictionContactProblem00727",
        solver: "fixed-point",
        reason: "measured: max_iterations at 200 outer iterations, error 1.53e-3; the Tresca fixed point on the thresholds mu r_N has no contraction guarantee (Haslinger, Hlavacek, Necas 1996) and converges slowly here",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/NESpheres_10_1",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 2.03e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/NESpheres_10_1",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 210 interior-point iterations over its shift updates, error 2.07e-7; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/NESpheres_10_1",
        solver: "lcp",
        reason: "measured: numerical_failure after 20 pivots, true cone error 5.18e-3; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/OneObject-i1028-138",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 1.41e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos/OneObject-i1028-138",
        solver: "admm",
        reason: "measured: max_iterations at 5000 iterations, error 3.86e-3; with the De Saxce shift recomputed every iteration ADMM is a fixed-point scheme without a convergence guarantee (Acary, Cadoux, Lemarechal, Malick 2011), slow here",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/OneObject-i1028-138",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 289 interior-point iterations over its shift updates, error 1.18e-6; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/OneObject-i1028-138",
        solver: "lcp",
        reason: "measured: numerical_failure after 141 pivots, true cone error 2.56e-3; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover1039",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 2.17e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover1039",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 231 interior-point iterations over its shift updates, error 1.45e-5; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover1039",
        solver: "lcp",
        reason: "measured: numerical_failure after 30 pivots, true cone error 5.29e-1; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover1040",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 3.99e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover1040",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 252 interior-point iterations over its shift updates, error 2.28e-5; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover1040",
        solver: "lcp",
        reason: "measured: numerical_failure after 38 pivots, true cone error 6.64e-1; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover1041",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 3.22e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover1041",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 192 interior-point iterations over its shift updates, error 9.89e-6; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover1041",
        solver: "lcp",
        reason: "measured: numerical_failure after 34 pivots, true cone error 2.74e-1; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover3865",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 4.67e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover3865",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 232 interior-point iterations over its shift updates, error 4.76e-6; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover3865",
        solver: "lcp",
        reason: "measured: numerical_failure after 27 pivots, true cone error 1.87e-1; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover4144",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 4.95e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover4144",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 213 interior-point iterations over its shift updates, error 3.97e-6; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover4144",
        solver: "lcp",
        reason: "measured: numerical_failure after 24 pivots, true cone error 2.52e-1; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover4396",
        solver: "apgd-ccp",
        reason: "measured: max_iterations at 10000 iterations, error 1.69e-1; apgd-ccp solves the convex cone relaxation min 1/2 r'Wr + q'r, r in K, whose solution is Coulomb's only where no contact slides (Anitescu, Tasora 2010); apgd-ccp:desaxce=true adds the De Saxce shift",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover4396",
        solver: "ipm-ccp",
        reason: "measured: max_iterations after 209 interior-point iterations over its shift updates, error 2.38e-5; the De Saxce shift iteration around the SOCP on S = (W + W')/2 stalls above 1e-8 (and where W is not symmetric its fixed point is not Coulomb's), docs/friction.md",
    },
    ExpectedFailure {
        case: "fc/siconos_slow/Rover4396",
        solver: "lcp",
        reason: "measured: numerical_failure after 10 pivots, true cone error 2.12e-1; the 8-facet polyhedral cone is not the Coulomb cone, so the LCP's answer keeps the facet error (exact in 2D only, docs/friction.md)",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_existing_cases_and_registered_solvers() {
        let ids: Vec<String> = cases().iter().map(|c| c.id().to_string()).collect();
        let names = FcRegistry::builtin().names().iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for e in TABLE {
            assert!(ids.iter().any(|i| i == e.case), "no case {}", e.case);
            assert!(names.iter().any(|n| n == e.solver), "no solver {}", e.solver);
        }
    }

    #[test]
    fn every_registered_solver_has_a_column() {
        let (fast, slow) = columns();
        let mut all: Vec<String> = fast.into_iter().chain(slow).collect();
        all.sort();
        let mut names: Vec<String> =
            FcRegistry::builtin().names().iter().map(|s| s.to_string()).collect();
        names.sort();
        assert_eq!(all, names);
        assert_eq!(files().len(), 27);
    }
}
