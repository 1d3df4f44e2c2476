//! The Siconos frictional-contact text layout (`frictionContact_printInFile` in Siconos
//! numerics, Acary et al., INRIA): `d`, `n_c`, the `NumericsMatrix` W (storage 0 dense
//! column-major, 1 sparse-block, 2 CSparse dump; parsed by signorini-lcp's
//! [`read_numerics_matrix`]), then q (d n_c numbers) and mu (n_c numbers). Tokens are
//! whitespace separated; line breaks carry no meaning; text after mu is ignored.

use signorini_lcp::formats::siconos::read_numerics_matrix;
use signorini_lcp::formats::Tokens;
use signorini_lcp::{FormatError, FormatErrorKind};

use super::invalid;
use crate::FcProblem;

/// Parses a Siconos frictional-contact `.dat`.
pub fn from_str(text: &str) -> Result<FcProblem, FormatError> {
    let mut t = Tokens::new(text);
    if t.is_empty() {
        return Err(FormatError::new(FormatErrorKind::Empty));
    }
    let (d_line, d_tok) = t.next_token("d (the space dimension)")?;
    let d = match d_tok.parse::<usize>() {
        Ok(d @ (2 | 3)) => d,
        _ => {
            return Err(FormatError::at(
                FormatErrorKind::Layout("the space dimension d must be 2 or 3".into()),
                d_line,
                d_tok,
            ))
        }
    };
    let nc_line = t.line();
    let nc = t.usize("n_c (the number of contacts)")?;
    let n = nc.checked_mul(d);
    // q and mu alone need d n_c + n_c more tokens: an absurd n_c fails before any allocation.
    if let Err(e) = t.ensure("n_c", n.and_then(|n| n.checked_add(nc))) {
        return Err(FormatError { line: Some(nc_line), ..e });
    }
    let n = d * nc;
    let w = read_numerics_matrix(&mut t, n)?;
    let mut q = Vec::with_capacity(n);
    for i in 0..n {
        q.push(t.f64(|| format!("q[{i}]"))?);
    }
    let mut mu = Vec::with_capacity(nc);
    for i in 0..nc {
        mu.push(t.f64(|| format!("mu[{i}]"))?);
    }
    FcProblem::new(d, w, q, mu).map_err(invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_dense_contact_reads_column_major() {
        // Siconos' FrictionContact3D_1c.dat: W printed column by column.
        let text =
            "3\n1\n\n0\n3\n3\n\n3\n3\n\n15\n-1\n-2\n\n-1\n14\n1\n\n-2\n1\n16\n\n-1\n2\n3\n\n0.1";
        let p = from_str(text).expect("valid");
        assert_eq!((p.dimension(), p.n_contacts()), (3, 1));
        assert!((p.get(1, 0) + 1.0).abs() < 1e-15 && (p.get(2, 1) - 1.0).abs() < 1e-15);
        assert_eq!(p.q(), &[-1.0, 2.0, 3.0]);
        assert_eq!(p.mu(), &[0.1]);
    }

    #[test]
    fn csparse_storage_reads() {
        let text = "2 1 2 2 2 2\nCSparse Version 3.1.9, May 4, 2016.  Copyright (c) T. A. Davis\n\
                    2-by-2, nzmax: 3 nnz: 3, 1-norm: 3\n    col 0 : locations 0 to 1\n      0 : 2\n\
                    1 : 1\n    col 1 : locations 2 to 2\n      1 : 1\n-1 0.5\n0.3\n";
        let p = from_str(text).expect("valid");
        assert!(p.is_sparse());
        assert!((p.get(1, 0) - 1.0).abs() < 1e-15 && p.get(0, 1).abs() < 1e-15);
        assert_eq!(p.mu(), &[0.3]);
    }

    #[test]
    fn bad_headers_are_located_errors() {
        let e = from_str("4 1 0 4 4 4 4").err().map(|e| e.to_string());
        assert!(e.is_some_and(|m| m.contains("line 1") && m.contains("2 or 3")));
        let e = from_str("3\n99999999999\n0 3 3").err().map(|e| e.to_string());
        assert!(e.is_some_and(|m| m.contains("line 2")), "absurd n_c");
        let e = from_str("3 1 0 3 3 3 3 1 0 0 0 1 0 0 0 1 -1 0 0 -0.5").err();
        assert!(e.is_some_and(|m| m.to_string().contains("mu[0] = -0.5")));
        let e = from_str("3 1 0 3 3 3 3 1 0 0 0 1 0 0 0 1 -1 0 0").err();
        assert!(e.is_some_and(|m| m.to_string().contains("mu[0]")));
        assert!(from_str("   \n").is_err());
    }
}
