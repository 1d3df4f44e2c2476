//! Solver parameters declared once: [`solver_params!`](crate::solver_params) states each
//! parameter's name, type, default, range and one line of documentation in one place and
//! generates the struct, its `Default`, spec-string parsing (`key=value`), range validation
//! with a typed [`SpecError`] (never a panic) and the [`ParamDoc`] list that the registry and
//! `signorini solvers` print. [`param_enum!`](crate::param_enum) gives an enum its spec-string
//! names.
//!
//! The keys every solver shares, `tol`, `max_iter` and `time_limit` ([`COMMON_KEYS`]), are not
//! parameters of any algorithm: they live in [`SolveOptions`](crate::SolveOptions), and a spec
//! string that names them (`pgs:tol=1e-10`) sets the built solver's preset options
//! ([`crate::solver::Preset`]). Precedence, documented once on
//! [`SolveOptions`](crate::SolveOptions): the spec string's value, then the caller's
//! `SolveOptions`, then the solver's default.
//!
//! This module sits on the crate's floor: the algorithms import it, the registry imports the
//! algorithms, and nothing here imports either.

/// Why a solver spec could not be turned into a solver.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpecError {
    /// No solver of that name.
    #[error("unknown solver `{name}`; valid solvers: {valid}")]
    UnknownSolver {
        /// The name given.
        name: String,
        /// Comma-separated list of valid names.
        valid: String,
    },
    /// A key the solver does not take.
    #[error("solver `{solver}` has no parameter `{key}`; valid keys: {valid}")]
    UnknownKey {
        /// Solver name.
        solver: String,
        /// The key given.
        key: String,
        /// Comma-separated list of valid keys.
        valid: String,
    },
    /// A value that does not parse or is out of range.
    #[error("solver `{solver}`: {key} = `{value}`: {reason}")]
    BadValue {
        /// Solver name.
        solver: String,
        /// Key.
        key: String,
        /// Value as given.
        value: String,
        /// What is expected.
        reason: String,
    },
    /// A `key=value` pair without `=`.
    #[error("solver `{solver}`: `{pair}` is not of the form key=value")]
    Malformed {
        /// Solver name.
        solver: String,
        /// The offending text.
        pair: String,
    },
}

/// A parameter a solver accepts, as the registry and `signorini solvers` document it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamDoc {
    /// Key in spec strings.
    pub key: &'static str,
    /// What values parse: `number`, `integer`, `true|false`, or the names of an enum.
    pub kind: String,
    /// Default value as a spec string would write it.
    pub default: String,
    /// The accepted range beyond the kind (`> 0`, `in (0, 2)`), empty when any value of the
    /// kind is accepted.
    pub range: &'static str,
    /// One line of documentation.
    pub doc: &'static str,
}

/// The keys every solver takes in a spec string, with what they set in
/// [`SolveOptions`](crate::SolveOptions).
pub const COMMON_KEYS: [(&str, &str); 3] = [
    ("tol", "merit tolerance, 0 < tol <= 1e-2 (SolveOptions::tol)"),
    ("max_iter", "iteration limit (pivots for pivoting methods), >= 1 (SolveOptions::max_iter)"),
    ("time_limit", "wall-clock limit in seconds, > 0 (SolveOptions::time_limit)"),
];

/// A value a spec string can carry: how it parses and how it is written back.
pub trait ParamValue: Sized + Clone + PartialEq {
    /// What values parse, for the documentation (`number`, `integer`, `gradient|function`).
    fn kind() -> String;
    /// Parses a spec-string value; the error says what is expected.
    fn parse_param(text: &str) -> Result<Self, String>;
    /// The value as a spec string writes it (parses back to the same value).
    fn render_param(&self) -> String;
}

/// Shortest text that parses back to `v` (`1.3`, `1e-10`).
pub fn fmt_f64(v: f64) -> String {
    let plain = format!("{v}");
    let sci = format!("{v:e}");
    if sci.len() < plain.len() {
        sci
    } else {
        plain
    }
}

impl ParamValue for f64 {
    fn kind() -> String {
        "number".into()
    }
    fn parse_param(text: &str) -> Result<Self, String> {
        match text.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err("expected a finite number".into()),
        }
    }
    fn render_param(&self) -> String {
        fmt_f64(*self)
    }
}

impl ParamValue for usize {
    fn kind() -> String {
        "integer".into()
    }
    fn parse_param(text: &str) -> Result<Self, String> {
        text.trim().parse::<usize>().map_err(|_| "expected an integer >= 0".into())
    }
    fn render_param(&self) -> String {
        self.to_string()
    }
}

impl ParamValue for u64 {
    fn kind() -> String {
        "integer".into()
    }
    fn parse_param(text: &str) -> Result<Self, String> {
        text.trim().parse::<u64>().map_err(|_| "expected an integer >= 0".into())
    }
    fn render_param(&self) -> String {
        self.to_string()
    }
}

impl ParamValue for bool {
    fn kind() -> String {
        "true|false".into()
    }
    fn parse_param(text: &str) -> Result<Self, String> {
        match text.trim() {
            "true" | "1" | "yes" => Ok(true),
            "false" | "0" | "no" => Ok(false),
            _ => Err("expected true or false".into()),
        }
    }
    fn render_param(&self) -> String {
        self.to_string()
    }
}

impl ParamValue for String {
    fn kind() -> String {
        "text".into()
    }
    fn parse_param(text: &str) -> Result<Self, String> {
        let t = text.trim();
        if t.is_empty() {
            Err("expected a non-empty text".into())
        } else {
            Ok(t.to_string())
        }
    }
    fn render_param(&self) -> String {
        self.clone()
    }
}

/// `auto` (None) or an integer.
impl ParamValue for Option<usize> {
    fn kind() -> String {
        "auto|integer".into()
    }
    fn parse_param(text: &str) -> Result<Self, String> {
        match text.trim() {
            "auto" => Ok(None),
            t => {
                t.parse::<usize>().map(Some).map_err(|_| "expected auto or an integer >= 0".into())
            }
        }
    }
    fn render_param(&self) -> String {
        self.map_or_else(|| "auto".into(), |v| v.to_string())
    }
}

/// Typed parameters of one algorithm, as [`solver_params!`](crate::solver_params) generates
/// them: `Default` gives the documented defaults, [`SolverParams::set`] parses one
/// `key=value`, [`SolverParams::validate`] checks every range.
pub trait SolverParams: Default + Clone + std::fmt::Debug + PartialEq + Send + Sync {
    /// Registry name of the solver these parameters belong to.
    const SOLVER: &'static str;

    /// Every key with its kind, default, range and meaning.
    fn keys() -> Vec<ParamDoc>;

    /// Parses and sets one parameter (ranges are checked by [`SolverParams::validate`]).
    fn set(&mut self, key: &str, value: &str) -> Result<(), SpecError>;

    /// Checks every parameter against its range.
    fn validate(&self) -> Result<(), SpecError>;

    /// The parameters that differ from the defaults, rendered as a spec string writes them.
    fn changed(&self) -> Vec<(&'static str, String)>;

    /// Parses `key=value` pairs onto the defaults and validates the result.
    fn from_pairs(pairs: &[(String, String)]) -> Result<Self, SpecError> {
        let mut p = Self::default();
        for (k, v) in pairs {
            p.set(k, v)?;
        }
        p.validate()?;
        Ok(p)
    }

    /// The canonical spec of these parameters: the solver name followed by the parameters that
    /// differ from the defaults (`pgs:omega=1.3`).
    fn spec(&self) -> String {
        let changed = self.changed();
        let pairs: Vec<(&str, String)> = changed.iter().map(|(k, v)| (*k, v.clone())).collect();
        canonical_name(Self::SOLVER, &pairs)
    }

    /// The error for a key these parameters do not have.
    fn unknown_key(key: &str) -> SpecError {
        SpecError::UnknownKey {
            solver: Self::SOLVER.into(),
            key: key.into(),
            valid: Self::keys()
                .iter()
                .map(|d| d.key)
                .chain(COMMON_KEYS.iter().map(|(k, _)| *k))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    /// The error for a value that is out of range.
    fn bad(key: &str, value: &str, reason: &str) -> SpecError {
        SpecError::BadValue {
            solver: Self::SOLVER.into(),
            key: key.into(),
            value: value.into(),
            reason: reason.into(),
        }
    }
}

/// Splits `name:k=v,k=v` into the name and its pairs.
pub fn parse_spec(spec: &str) -> Result<(String, Vec<(String, String)>), SpecError> {
    let spec = spec.trim();
    let (name, rest) = match spec.split_once(':') {
        Some((n, r)) => (n.trim(), Some(r)),
        None => (spec, None),
    };
    let mut pairs = Vec::new();
    if let Some(rest) = rest {
        for pair in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some((k, v)) if !k.trim().is_empty() => {
                    pairs.push((k.trim().to_string(), v.trim().to_string()))
                }
                _ => return Err(SpecError::Malformed { solver: name.into(), pair: pair.into() }),
            }
        }
    }
    Ok((name.to_string(), pairs))
}

/// Formats a canonical name: the solver name followed by the parameters that differ from the
/// defaults (`pairs` are key/value texts already rendered).
pub fn canonical_name(solver: &str, pairs: &[(&str, String)]) -> String {
    if pairs.is_empty() {
        solver.to_string()
    } else {
        let body: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{solver}:{}", body.join(","))
    }
}

/// Declares a solver's parameters once. Each field gives its doc line, name, type (any
/// [`ParamValue`]), default and, optionally, a range check with the range as text:
///
/// ```
/// signorini_lcp::solver_params! {
///     /// Parameters of `demo`.
///     pub struct DemoParams for "demo" {
///         /// Relaxation.
///         omega: f64 = 1.0, valid if |v| v > 0.0 && v < 2.0 => "in (0, 2)";
///         /// Sweeps between checks.
///         check_every: usize = 1, valid if |v| v >= 1 => ">= 1";
///         /// Shuffle the order.
///         shuffle: bool = false;
///     }
/// }
/// use signorini_lcp::SolverParams;
/// let p = DemoParams::from_pairs(&[("omega".into(), "1.5".into())]).unwrap();
/// assert_eq!(p.spec(), "demo:omega=1.5");
/// assert!(DemoParams::from_pairs(&[("omega".into(), "2".into())]).is_err());
/// assert!(DemoParams { check_every: 0, ..Default::default() }.validate().is_err());
/// ```
///
/// It generates the struct (`Debug, Clone, PartialEq`, public fields), `Default`, and
/// [`SolverParams`] (`set`, `validate`, `keys`, `changed`). Solvers validate their parameters
/// when the driver runs them, so a struct built in Rust with an out-of-range field is a typed
/// error, not a panic.
#[macro_export]
macro_rules! solver_params {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident for $solver:literal {
            $(
                #[doc = $doc:literal]
                $(#[doc = $more:literal])*
                $field:ident : $ty:ty = $default:expr
                $(, valid if |$v:ident| $check:expr => $range:literal)? ;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $name {
            $(
                #[doc = $doc]
                $(#[doc = $more])*
                pub $field: $ty,
            )*
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $( $field: $default, )* }
            }
        }

        impl $crate::params::SolverParams for $name {
            const SOLVER: &'static str = $solver;

            #[allow(unused_variables)]
            fn keys() -> Vec<$crate::params::ParamDoc> {
                let defaults = Self::default();
                vec![$(
                    $crate::params::ParamDoc {
                        key: stringify!($field),
                        kind: <$ty as $crate::params::ParamValue>::kind(),
                        default: $crate::params::ParamValue::render_param(&defaults.$field),
                        range: { let r = ""; $( let r = $range; )? r },
                        doc: $doc.trim(),
                    }
                ),*]
            }

            fn set(&mut self, key: &str, value: &str) -> Result<(), $crate::params::SpecError> {
                $(
                    if key == stringify!($field) {
                        self.$field = <$ty as $crate::params::ParamValue>::parse_param(value)
                            .map_err(|reason| <Self as $crate::params::SolverParams>::bad(
                                key, value, &reason,
                            ))?;
                        return Ok(());
                    }
                )*
                let _ = value;
                Err(<Self as $crate::params::SolverParams>::unknown_key(key))
            }

            fn validate(&self) -> Result<(), $crate::params::SpecError> {
                $($(
                    {
                        let $v = self.$field.clone();
                        let holds: bool = $check;
                        if !holds {
                            return Err(<Self as $crate::params::SolverParams>::bad(
                                stringify!($field),
                                &$crate::params::ParamValue::render_param(&self.$field),
                                concat!("expected ", $range),
                            ));
                        }
                    }
                )?)*
                Ok(())
            }

            #[allow(unused_variables, unused_mut)]
            fn changed(&self) -> Vec<(&'static str, String)> {
                let defaults = Self::default();
                let mut out = Vec::new();
                $(
                    if self.$field != defaults.$field {
                        out.push((
                            stringify!($field),
                            $crate::params::ParamValue::render_param(&self.$field),
                        ));
                    }
                )*
                out
            }
        }
    };
}

/// Gives an existing fieldless enum its spec-string names ([`ParamValue`]): the first name of
/// each variant is how it is written, the others are accepted aliases.
///
/// ```
/// #[derive(Debug, Clone, Copy, PartialEq)]
/// enum Order { Forward, Backward }
/// signorini_lcp::param_enum!(Order { Forward => "forward" | "fwd", Backward => "backward" });
/// use signorini_lcp::params::ParamValue;
/// assert_eq!(Order::parse_param("fwd"), Ok(Order::Forward));
/// assert_eq!(Order::Backward.render_param(), "backward");
/// assert!(Order::parse_param("up").is_err());
/// ```
#[macro_export]
macro_rules! param_enum {
    ($ty:ident { $( $variant:ident => $name:literal $(| $alias:literal)* ),+ $(,)? }) => {
        impl $crate::params::ParamValue for $ty {
            fn kind() -> String {
                [$($name),+].join("|")
            }
            fn parse_param(text: &str) -> Result<Self, String> {
                match text.trim() {
                    $( $name $(| $alias)* => Ok($ty::$variant), )+
                    _ => Err(format!("expected one of {}", Self::kind().replace('|', ", "))),
                }
            }
            fn render_param(&self) -> String {
                match self {
                    $( $ty::$variant => $name.to_string(), )+
                }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::solver_params! {
        /// Test parameters.
        pub struct TestParams for "test" {
            /// Relaxation.
            omega: f64 = 1.0, valid if |v| v > 0.0 && v < 2.0 => "in (0, 2)";
            /// Count.
            count: usize = 3, valid if |v| v >= 1 => ">= 1";
            /// Flag.
            flag: bool = false;
            /// Presweeps.
            pre: Option<usize> = None;
        }
    }

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn declared_once_parses_validates_documents_and_names() {
        let keys = TestParams::keys();
        assert_eq!(
            keys.iter().map(|k| k.key).collect::<Vec<_>>(),
            ["omega", "count", "flag", "pre"]
        );
        assert_eq!(keys[0].default, "1");
        assert_eq!(keys[0].range, "in (0, 2)");
        assert_eq!(keys[2].kind, "true|false");
        assert_eq!(keys[3].default, "auto");
        let p = TestParams::from_pairs(&pairs(&[("omega", "1.25"), ("pre", "4")])).expect("ok");
        assert_eq!(p.spec(), "test:omega=1.25,pre=4");
        assert_eq!(TestParams::from_pairs(&pairs(&[])).expect("ok").spec(), "test");
        let err = TestParams::from_pairs(&pairs(&[("omega", "2")])).expect_err("out of range");
        assert!(err.to_string().contains("expected in (0, 2)"), "{err}");
        assert!(matches!(
            TestParams::from_pairs(&pairs(&[("omega", "x")])),
            Err(SpecError::BadValue { .. })
        ));
        let err = TestParams::from_pairs(&pairs(&[("nope", "1")])).expect_err("unknown");
        assert!(err.to_string().contains("valid keys: omega, count, flag, pre, tol"), "{err}");
        // A struct built in Rust is checked too.
        assert!(TestParams { count: 0, ..Default::default() }.validate().is_err());
        assert!(TestParams { omega: f64::NAN, ..Default::default() }.validate().is_err());
    }

    #[test]
    fn spec_strings_split_into_name_and_pairs() {
        assert_eq!(parse_spec("pgs").expect("ok"), ("pgs".to_string(), vec![]));
        let (n, p) = parse_spec(" pgs : omega = 1.3 , tol=1e-9").expect("ok");
        assert_eq!(n, "pgs");
        assert_eq!(p, pairs(&[("omega", "1.3"), ("tol", "1e-9")]));
        assert!(matches!(parse_spec("pgs:omega"), Err(SpecError::Malformed { .. })));
        assert_eq!(fmt_f64(1e-10), "1e-10");
        assert_eq!(fmt_f64(1.3), "1.3");
    }
}
