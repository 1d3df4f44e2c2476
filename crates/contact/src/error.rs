//! Errors of contact assembly and scene files: what failed and where (file, body, key).

use signorini_lcp::ProblemError;

/// Why a scene could not be read or validated.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("cannot read scene file {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The file extension is neither .toml nor .json.
    #[error("scene file {path}: unknown extension (expected .toml or .json)")]
    UnknownExtension {
        /// The path.
        path: String,
    },
    /// The text is not valid TOML/JSON for the schema (unknown keys or shape types, wrong
    /// types); the message names the key and, from the parser, the line.
    #[error("scene{}: {format} error: {message}", path.as_deref().map(|p| format!(" file {p}")).unwrap_or_default())]
    Parse {
        /// The path, when read from a file.
        path: Option<String>,
        /// "TOML" or "JSON".
        format: &'static str,
        /// The parser's message.
        message: String,
    },
    /// A value is out of range (negative mass, non-unit quaternion, NaN, wrong length).
    #[error("scene: {}key `{key}`: {message}", body.as_deref().map(|b| format!("body `{b}`, ")).unwrap_or_default())]
    Invalid {
        /// The body's name (or its index, `#k`, when the name itself is missing), if any.
        body: Option<String>,
        /// The key.
        key: String,
        /// What is wrong.
        message: String,
    },
}

impl SceneError {
    /// The message with the scene file named once: as is when it names `path` already (read
    /// errors do), else prefixed by it.
    pub fn naming(&self, path: &std::path::Path) -> String {
        let shown = path.display().to_string();
        let text = self.to_string();
        if text.contains(&shown) {
            text
        } else {
            format!("{shown}: {text}")
        }
    }
}

/// Why a contact problem could not be assembled.
#[derive(Debug, thiserror::Error)]
pub enum ContactError {
    /// The scene is invalid.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// No narrow phase for this pair of shapes.
    #[error("no contact model between `{body_a}` ({shape_a}) and `{body_b}` ({shape_b})")]
    UnsupportedPair {
        /// First body.
        body_a: String,
        /// Second body.
        body_b: String,
        /// Its shape type.
        shape_a: &'static str,
        /// Its shape type.
        shape_b: &'static str,
    },
    /// The level needs a time step.
    #[error("the {level} level needs a time step h (--step)")]
    MissingStep {
        /// The level's name.
        level: &'static str,
    },
    /// The time step is not a positive finite number.
    #[error("time step h = {0} must be positive and finite")]
    InvalidStep(f64),
    /// The number of friction directions does not fit the dimension.
    #[error("friction directions k = {k} in {dimension}D: need k = 2 in 2D and k >= 3 in 3D")]
    InvalidFrictionDirections {
        /// Requested k.
        k: usize,
        /// Scene dimension.
        dimension: usize,
    },
    /// The exact-cone problem is built at acceleration or velocity level only.
    #[error("the Coulomb-cone problem is built at acceleration or velocity level, not {level}")]
    ConeLevel {
        /// The level asked for.
        level: &'static str,
    },
    /// A vector has the wrong length for the operator.
    #[error("vector of length {got} where {expected} entries are needed")]
    Length {
        /// Expected length.
        expected: usize,
        /// Actual length.
        got: usize,
    },
    /// The LCP could not be built (non-finite data).
    #[error("LCP assembly failed: {0}")]
    Lcp(#[from] ProblemError),
    /// A matrix-free Delassus form was asked for an LCP with friction rows, whose matrix (the
    /// Stewart–Trinkle LCP, nonsymmetric) is not a Gram matrix.
    #[error(
        "--delassus matrix-free needs a frictionless LCP: with friction rows the matrix is the \
         nonsymmetric Stewart-Trinkle LCP, not W = G G' (use assembled or auto)"
    )]
    MatrixFreeWithFriction,
    /// A dense mass matrix is not square, not finite or not symmetric positive definite.
    #[error("mass matrix: {0}")]
    Mass(String),
    /// The LCP solver could not run (bad options, bad spec).
    #[error("solver: {0}")]
    Solve(String),
    /// The solution does not belong to this problem.
    #[error("solution has {got} unknowns but the contact problem has {expected}")]
    SolutionSize {
        /// Problem size.
        expected: usize,
        /// Solution size.
        got: usize,
    },
}
