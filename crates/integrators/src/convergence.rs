//! Observed order of convergence: the least-squares slope of log(error) against log(h) over at
//! least five levels (single halvings scatter too widely to be evidence; REFERENCE.md §C). The
//! one implementation of the workspace: the integrators' tests and the verification studies
//! (`signorini_verification::observed_order`, re-exported) both use it.

/// Why an order could not be fitted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OrderError {
    /// Fewer than five levels.
    #[error("observed order needs at least {min} levels, got {got}")]
    TooFewLevels {
        /// Minimum number of levels.
        min: usize,
        /// Levels given.
        got: usize,
    },
    /// `h` and `err` differ in length.
    #[error("h has {h} entries but err has {err}")]
    LengthMismatch {
        /// Entries of h.
        h: usize,
        /// Entries of err.
        err: usize,
    },
    /// A step or an error is not finite and positive (a log-log fit needs both > 0).
    #[error("level {index}: h = {h}, err = {err}; both must be finite and > 0")]
    NotPositive {
        /// Level index.
        index: usize,
        /// Step.
        h: f64,
        /// Error.
        err: f64,
    },
    /// All steps are equal, so there is no slope to fit.
    #[error("all step sizes are equal")]
    DegenerateSteps,
}

/// Minimum number of levels of a fit.
pub const MIN_LEVELS: usize = 5;

/// Least-squares slope p of `log err = p log h + c` over all levels (at least [`MIN_LEVELS`]).
pub fn observed_order(h: &[f64], err: &[f64]) -> Result<f64, OrderError> {
    if h.len() != err.len() {
        return Err(OrderError::LengthMismatch { h: h.len(), err: err.len() });
    }
    if h.len() < MIN_LEVELS {
        return Err(OrderError::TooFewLevels { min: MIN_LEVELS, got: h.len() });
    }
    for (index, (&hi, &ei)) in h.iter().zip(err).enumerate() {
        let ok = |v: f64| v.is_finite() && v > 0.0;
        if !(ok(hi) && ok(ei)) {
            return Err(OrderError::NotPositive { index, h: hi, err: ei });
        }
    }
    let x: Vec<f64> = h.iter().map(|v| v.ln()).collect();
    let y: Vec<f64> = err.iter().map(|v| v.ln()).collect();
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    let sxy: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
    if sxx <= f64::EPSILON * x.iter().map(|a| a * a).sum::<f64>() {
        return Err(OrderError::DegenerateSteps);
    }
    Ok(sxy / sxx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_power_laws_give_their_exponent() {
        let h: Vec<f64> = (0..6).map(|k| 0.1 / 2f64.powi(k)).collect();
        for p in [1.0, 2.0, 4.0] {
            let err: Vec<f64> = h.iter().map(|x| 3.0 * x.powf(p)).collect();
            let fit = observed_order(&h, &err).expect("valid levels");
            assert!((fit - p).abs() < 1e-12 * p, "p = {p}: fit {fit}");
        }
    }

    #[test]
    fn scatter_is_averaged_by_least_squares() {
        // err = h^2 (1 ± 10%) alternating: the fit stays near 2 although consecutive ratios
        // give 1.7 and 2.3.
        let h: Vec<f64> = (0..8).map(|k| 2f64.powi(-k)).collect();
        let err: Vec<f64> =
            h.iter().enumerate().map(|(k, x)| x * x * if k % 2 == 0 { 1.1 } else { 0.9 }).collect();
        let fit = observed_order(&h, &err).expect("valid levels");
        assert!((fit - 2.0).abs() < 0.1, "fit {fit}");
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let h = [1.0, 0.5, 0.25, 0.125];
        assert!(matches!(observed_order(&h, &h), Err(OrderError::TooFewLevels { .. })));
        let h5 = [1.0, 0.5, 0.25, 0.125, 0.0625];
        assert!(matches!(observed_order(&h5, &h), Err(OrderError::LengthMismatch { .. })));
        let e = [1.0, 0.5, 0.0, 0.1, 0.01];
        assert!(matches!(observed_order(&h5, &e), Err(OrderError::NotPositive { index: 2, .. })));
        let same = [0.1; 5];
        assert_eq!(observed_order(&same, &h5), Err(OrderError::DegenerateSteps));
    }
}
