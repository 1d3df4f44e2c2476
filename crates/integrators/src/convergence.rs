//! Observed order of convergence: the least-squares slope of log(error) against log(h) over
//! several step sizes (single halvings scatter; REFERENCE.md D asks for at least five levels).

/// Why an order could not be fitted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OrderError {
    /// Fewer than two levels, or lengths differ.
    #[error(
        "need at least two (h, error) pairs of equal length, got {h} step sizes and {e} errors"
    )]
    TooFewLevels {
        /// Number of step sizes.
        h: usize,
        /// Number of errors.
        e: usize,
    },
    /// A step size or error that is not a finite number > 0.
    #[error("level {index}: h = {h}, error = {error}: both must be finite and > 0")]
    NonPositive {
        /// Level index.
        index: usize,
        /// Step size.
        h: f64,
        /// Error.
        error: f64,
    },
}

/// Least-squares slope p of log(error) = p log(h) + c.
pub fn observed_order(h: &[f64], error: &[f64]) -> Result<f64, OrderError> {
    if h.len() != error.len() || h.len() < 2 {
        return Err(OrderError::TooFewLevels { h: h.len(), e: error.len() });
    }
    for (index, (&hi, &ei)) in h.iter().zip(error).enumerate() {
        if !(hi.is_finite() && hi > 0.0 && ei.is_finite() && ei > 0.0) {
            return Err(OrderError::NonPositive { index, h: hi, error: ei });
        }
    }
    let n = h.len() as f64;
    let lx: Vec<f64> = h.iter().map(|v| v.ln()).collect();
    let ly: Vec<f64> = error.iter().map(|v| v.ln()).collect();
    let mx = lx.iter().sum::<f64>() / n;
    let my = ly.iter().sum::<f64>() / n;
    let sxy: f64 = lx.iter().zip(&ly).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = lx.iter().map(|x| (x - mx) * (x - mx)).sum();
    Ok(sxy / sxx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slope_of_exact_power_law() {
        let h = [0.1, 0.05, 0.025, 0.0125, 0.00625];
        let e: Vec<f64> = h.iter().map(|x: &f64| 3.0 * x.powi(3)).collect();
        assert!((observed_order(&h, &e).unwrap() - 3.0).abs() < 1e-12);
        assert!(observed_order(&h[..1], &e[..1]).is_err());
        assert!(observed_order(&[0.1, 0.2], &[0.0, 1.0]).is_err());
    }
}
