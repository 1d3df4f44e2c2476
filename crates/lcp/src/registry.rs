//! Solvers by name: `name` or `name:key=value,key=value`, e.g. `lemke`, `pgs:omega=1.3,max_iter=500`.
//!
//! The built-in registry lists every algorithm of this crate; [`Registry::register`] adds solvers
//! written elsewhere (any type implementing [`LcpSolver`]) so studies, time steppers and the CLI
//! select them by the same strings.

use crate::solver::LcpSolver;

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

/// A parameter a solver accepts, with its documented default.
#[derive(Debug, Clone, Copy)]
pub struct ParamDoc {
    /// Key in spec strings.
    pub key: &'static str,
    /// Default value as text.
    pub default: &'static str,
    /// One line of documentation.
    pub doc: &'static str,
}

/// Typed parameters of one algorithm: `Default` gives the documented defaults, `set` parses one
/// `key=value`, `validate` checks the whole set.
pub trait SolverParams: Default + Clone {
    /// Registry name of the solver these parameters belong to.
    const SOLVER: &'static str;
    /// Every key with its default and meaning.
    const KEYS: &'static [ParamDoc];
    /// Parses and sets one parameter.
    fn set(&mut self, key: &str, value: &str) -> Result<(), SpecError>;
    /// Checks the combination of parameters.
    fn validate(&self) -> Result<(), SpecError> {
        Ok(())
    }

    /// Parses `key=value` pairs onto the defaults.
    fn from_pairs(pairs: &[(String, String)]) -> Result<Self, SpecError> {
        let mut p = Self::default();
        for (k, v) in pairs {
            if !Self::KEYS.iter().any(|d| d.key == k) {
                return Err(SpecError::UnknownKey {
                    solver: Self::SOLVER.into(),
                    key: k.clone(),
                    valid: Self::KEYS.iter().map(|d| d.key).collect::<Vec<_>>().join(", "),
                });
            }
            p.set(k, v)?;
        }
        p.validate()?;
        Ok(p)
    }

    /// Error for a value that is out of range.
    fn bad(key: &str, value: &str, reason: &str) -> SpecError {
        SpecError::BadValue {
            solver: Self::SOLVER.into(),
            key: key.into(),
            value: value.into(),
            reason: reason.into(),
        }
    }

    /// Parses a finite f64.
    fn parse_f64(key: &str, value: &str) -> Result<f64, SpecError> {
        match value.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(Self::bad(key, value, "expected a finite number")),
        }
    }

    /// Parses a finite f64 > 0.
    fn parse_positive(key: &str, value: &str) -> Result<f64, SpecError> {
        let v = Self::parse_f64(key, value)?;
        if v > 0.0 {
            Ok(v)
        } else {
            Err(Self::bad(key, value, "expected a number > 0"))
        }
    }

    /// Parses an integer >= 1.
    fn parse_count(key: &str, value: &str) -> Result<usize, SpecError> {
        match value.trim().parse::<usize>() {
            Ok(v) if v >= 1 => Ok(v),
            _ => Err(Self::bad(key, value, "expected an integer >= 1")),
        }
    }

    /// Parses `true` / `false`.
    fn parse_bool(key: &str, value: &str) -> Result<bool, SpecError> {
        match value.trim() {
            "true" | "1" | "yes" => Ok(true),
            "false" | "0" | "no" => Ok(false),
            _ => Err(Self::bad(key, value, "expected true or false")),
        }
    }
}

/// Builds a boxed solver from parsed `key=value` pairs.
pub type Builder = fn(&[(String, String)]) -> Result<Box<dyn LcpSolver>, SpecError>;

/// One registry entry.
#[derive(Clone)]
pub struct Entry {
    /// Name used in spec strings.
    pub name: String,
    /// One line: algorithm and the matrix class it is for.
    pub summary: String,
    /// Parameter documentation.
    pub keys: Vec<ParamDoc>,
    builder: Builder,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry").field("name", &self.name).finish()
    }
}

/// Maps solver names to builders.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    entries: Vec<Entry>,
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

impl Registry {
    /// An empty registry.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Every solver of this crate.
    pub fn builtin() -> Self {
        let mut r = Self::empty();
        crate::algorithms::register_all(&mut r);
        r
    }

    /// Adds (or replaces) a solver under `name`.
    pub fn register(&mut self, name: &str, summary: &str, keys: &[ParamDoc], builder: Builder) {
        self.entries.retain(|e| e.name != name);
        self.entries.push(Entry {
            name: name.into(),
            summary: summary.into(),
            keys: keys.to_vec(),
            builder,
        });
    }

    /// Adds a solver whose parameters implement [`SolverParams`].
    pub fn register_params<P: SolverParams>(&mut self, summary: &str, builder: Builder) {
        self.register(P::SOLVER, summary, P::KEYS, builder);
    }

    /// Registered names, in registration order.
    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.name.as_str()).collect()
    }

    /// All entries.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Builds the solver a spec string names.
    pub fn build(&self, spec: &str) -> Result<Box<dyn LcpSolver>, SpecError> {
        let (name, pairs) = parse_spec(spec)?;
        match self.entries.iter().find(|e| e.name == name) {
            Some(e) => (e.builder)(&pairs),
            None => Err(SpecError::UnknownSolver { name, valid: self.names().join(", ") }),
        }
    }
}

/// Builds a solver from the built-in registry.
pub fn solver_from_spec(spec: &str) -> Result<Box<dyn LcpSolver>, SpecError> {
    Registry::builtin().build(spec)
}

/// Formats a canonical name: the solver name followed by the parameters that differ from the
/// defaults (`pairs` are key/value texts already rendered by the solver).
pub fn canonical_name(solver: &str, pairs: &[(&str, String)]) -> String {
    if pairs.is_empty() {
        solver.to_string()
    } else {
        let body: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{solver}:{}", body.join(","))
    }
}
