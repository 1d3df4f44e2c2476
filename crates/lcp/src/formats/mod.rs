//! Problem and solution files: the versioned JSON format `signorini-lcp/1`, the Siconos `.dat`
//! text layout (dense and sparse-block), MatrixMarket (`M.mtx` + `q.mtx`, via `sprs::io`) and,
//! read-only, the normal part of FCLIB local problems (`.hdf5`; cargo feature `fclib`).
//!
//! Every reader validates before it allocates: a header announcing more entries than the text
//! holds is an error, not an allocation. Errors say file, line and token where they apply
//! ([`FormatError`]); no input makes a reader panic (a property test feeds random bytes to each).
//! The layouts are described in `docs/formats.md`.
//!
//! Input is read through a size cap, [`DEFAULT_MAX_INPUT_BYTES`] = 1 GiB per file unless the
//! caller passes another ([`read_problem_limited`]; `signorini solve --max-input-size`): a
//! larger file, or an endless stream such as `/dev/urandom`, is [`FormatErrorKind::TooLarge`]
//! after at most limit + 1 bytes, and text that is not UTF-8 is refused at the first bad byte,
//! not after the whole file is in memory.

pub mod atomic;
pub mod fclib;
pub mod json;
pub mod mtx;
pub mod siconos;
pub mod solution;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::problem::ProblemError;
use crate::Lcp;

pub use atomic::{check_output, create_output_dir, write_atomic, write_atomic_with, OutputError};
pub use mtx::matrix_market_paths;
pub use solution::{
    read_warm_start, solution_to_json, warm_start_from_str, write_solution, SolutionRecord,
};

/// A problem file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `signorini-lcp/1` JSON (`.json`).
    Json,
    /// Siconos numerics text layout (`.dat`), dense or sparse-block.
    SiconosDat,
    /// MatrixMarket: M and q in two `.mtx` files (see [`matrix_market_paths`]).
    MatrixMarket,
    /// FCLIB local problem (`.hdf5`, `.h5`), read-only: the frictionless normal part
    /// W_NN, q_N ([`fclib`]; reading needs the cargo feature `fclib`).
    Fclib,
}

impl Format {
    /// Every format, for help texts.
    pub const ALL: [Format; 4] =
        [Format::Json, Format::SiconosDat, Format::MatrixMarket, Format::Fclib];

    /// The short name used on command lines: `json`, `dat`, `mtx`, `hdf5`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::SiconosDat => "dat",
            Format::MatrixMarket => "mtx",
            Format::Fclib => "hdf5",
        }
    }

    /// Parses a short name (`json`, `dat` / `siconos`, `mtx` / `matrix-market`, `hdf5` /
    /// `fclib`), any case.
    pub fn from_name(name: &str) -> Option<Format> {
        match name.trim().to_ascii_lowercase().as_str() {
            "json" => Some(Format::Json),
            "dat" | "siconos" => Some(Format::SiconosDat),
            "mtx" | "mm" | "matrix-market" | "matrixmarket" => Some(Format::MatrixMarket),
            "hdf5" | "h5" | "fclib" => Some(Format::Fclib),
            _ => None,
        }
    }

    /// The format a path names by its extension (`.json`, `.dat`, `.mtx`, `.hdf5` / `.h5`); an existing
    /// directory is MatrixMarket (`M.mtx` + `q.mtx` inside it).
    pub fn from_path(path: &Path) -> Option<Format> {
        let by_ext = path.extension().and_then(|e| e.to_str()).and_then(|e| {
            match e.to_ascii_lowercase().as_str() {
                "json" => Some(Format::Json),
                "dat" => Some(Format::SiconosDat),
                "mtx" => Some(Format::MatrixMarket),
                "hdf5" | "h5" => Some(Format::Fclib),
                _ => None,
            }
        });
        by_ext.or_else(|| path.is_dir().then_some(Format::MatrixMarket))
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::from_name(s)
            .ok_or_else(|| format!("unknown format `{s}`; valid: json, dat, mtx, hdf5"))
    }
}

/// What is wrong with a file (the where is in [`FormatError`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FormatErrorKind {
    /// The file could not be opened, read or written.
    #[error("{0}")]
    Io(String),
    /// The bytes are not UTF-8 text.
    #[error("not UTF-8 text")]
    NotUtf8,
    /// The input is larger than the input-size limit.
    #[error(
        "the input is larger than the input-size limit of {limit} bytes ({}); raise the limit \
         to read it",
        crate::memory::fmt_bytes(u128::from(*limit))
    )]
    TooLarge {
        /// The limit in bytes.
        limit: u64,
    },
    /// No format given and none can be told from the path.
    #[error("cannot tell the format from the file name; name it (json, dat, mtx or hdf5)")]
    UnknownFormat,
    /// Nothing but whitespace (and comments).
    #[error("the file is empty")]
    Empty,
    /// The text ends before the layout is complete.
    #[error("the file ends where {expected} was expected")]
    Truncated {
        /// What the reader was about to read.
        expected: String,
    },
    /// A token that should be a number is not one.
    #[error("{expected} is not a number")]
    NotANumber {
        /// What the token should have been.
        expected: String,
    },
    /// A token that should be a non-negative integer is not one.
    #[error("{expected} is not a non-negative integer")]
    NotAnInteger {
        /// What the token should have been.
        expected: String,
    },
    /// NaN or infinity where a finite number is required.
    #[error("{what} is not finite")]
    NonFinite {
        /// The entry (e.g. `M(2,0)`, `q[3]`).
        what: String,
    },
    /// A header announces a size the text cannot hold (or that overflows).
    #[error("{what} = {value} is larger than the {available} numbers left in the file")]
    AbsurdSize {
        /// The announced quantity.
        what: String,
        /// Its value as written (or as computed, e.g. `size0*size1`).
        value: String,
        /// Tokens left in the text at that point.
        available: usize,
    },
    /// Header or layout fields that contradict each other.
    #[error("{0}")]
    Layout(String),
    /// Malformed JSON (syntax, unknown key, wrong type, trailing characters).
    #[error("{message} (column {column})")]
    Json {
        /// serde_json's message without its position.
        message: String,
        /// Column of the error.
        column: usize,
    },
    /// The JSON `format` tag is not `signorini-lcp/1`.
    #[error("\"format\" is `{found}`, expected `{expected}`")]
    WrongTag {
        /// The tag found.
        found: String,
        /// The tag expected.
        expected: String,
    },
    /// The data do not form a valid LCP (non-square, wrong q length, ragged, NaN, index).
    #[error("{0}")]
    Problem(#[from] ProblemError),
    /// MatrixMarket content the reader does not take (complex, pattern, array symmetric).
    #[error("{0}")]
    Unsupported(String),
    /// An FCLIB (HDF5) file that cannot be read as a local problem (boxed: keeps the error
    /// small).
    #[error("FCLIB: {0}")]
    Fclib(Box<fclib::FclibError>),
}

impl From<fclib::FclibError> for FormatErrorKind {
    fn from(e: fclib::FclibError) -> Self {
        FormatErrorKind::Fclib(Box::new(e))
    }
}

/// A file error: what is wrong ([`FormatErrorKind`]) and where (file, 1-based line, token).
#[derive(Debug, Clone, PartialEq)]
pub struct FormatError {
    /// The file, when reading from or writing to a path.
    pub file: Option<PathBuf>,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// The offending token (shortened to 40 characters), when there is one.
    pub token: Option<String>,
    /// What is wrong.
    pub kind: FormatErrorKind,
}

impl FormatError {
    /// An error with no location yet.
    pub fn new(kind: FormatErrorKind) -> Self {
        Self { file: None, line: None, token: None, kind }
    }

    /// An error at a line, with its token.
    pub fn at(kind: FormatErrorKind, line: usize, token: &str) -> Self {
        let mut t: String = token.chars().take(40).collect();
        if t.len() < token.len() {
            t.push('…');
        }
        Self { file: None, line: Some(line), token: Some(t), kind }
    }

    /// An error at a line without a token.
    pub fn at_line(kind: FormatErrorKind, line: usize) -> Self {
        Self { file: None, line: Some(line), token: None, kind }
    }

    /// Attaches the file (keeps one already set).
    pub fn in_file(mut self, path: &Path) -> Self {
        if self.file.is_none() {
            self.file = Some(path.to_path_buf());
        }
        self
    }

    fn io(path: &Path, err: &std::io::Error) -> Self {
        Self::new(FormatErrorKind::Io(err.to_string())).in_file(path)
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line) {
            (Some(p), Some(l)) => write!(f, "{}:{l}: ", p.display())?,
            (Some(p), None) => write!(f, "{}: ", p.display())?,
            (None, Some(l)) => write!(f, "line {l}: ")?,
            (None, None) => {}
        }
        write!(f, "{}", self.kind)?;
        if let Some(t) = &self.token {
            write!(f, " (token `{t}`)")?;
        }
        Ok(())
    }
}

impl std::error::Error for FormatError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.kind)
    }
}

impl From<ProblemError> for FormatError {
    fn from(e: ProblemError) -> Self {
        Self::new(FormatErrorKind::Problem(e))
    }
}

/// `message` with control characters (a newline inside a quoted key of the input, say) escaped
/// as `\n`, `\u{1b}`, ...: error messages stay one line whatever the input held.
pub fn one_line(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for c in message.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Default cap on the bytes read from one input file: 1 GiB.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 1 << 30;

/// Reads a file as UTF-8 text, at most [`DEFAULT_MAX_INPUT_BYTES`].
pub fn read_text(path: &Path) -> Result<String, FormatError> {
    read_text_limited(path, DEFAULT_MAX_INPUT_BYTES)
}

/// Reads a file as UTF-8 text through `take(limit + 1)`, checking UTF-8 chunk by chunk so
/// that binary input is refused at its first bad byte.
pub fn read_text_limited(path: &Path, limit: u64) -> Result<String, FormatError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| FormatError::io(path, &e))?;
    let mut reader = file.take(limit.saturating_add(1));
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 1 << 16];
    let mut valid = 0usize;
    loop {
        let got = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(k) => k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(FormatError::io(path, &e)),
        };
        bytes.extend_from_slice(&chunk[..got]);
        if bytes.len() as u64 > limit {
            return Err(FormatError::new(FormatErrorKind::TooLarge { limit }).in_file(path));
        }
        match std::str::from_utf8(&bytes[valid..]) {
            Ok(_) => valid = bytes.len(),
            // An incomplete sequence at the end of the chunk may complete in the next one.
            Err(e) if e.error_len().is_none() => valid += e.valid_up_to(),
            Err(_) => return Err(FormatError::new(FormatErrorKind::NotUtf8).in_file(path)),
        }
    }
    String::from_utf8(bytes).map_err(|_| FormatError::new(FormatErrorKind::NotUtf8).in_file(path))
}

/// Writes text to a file (through a temporary file and a rename: [`write_atomic`]).
pub fn write_text(path: &Path, text: &str) -> Result<(), FormatError> {
    write_atomic(path, text.as_bytes())
        .map_err(|e| FormatError::new(FormatErrorKind::Io(e.reason())).in_file(path))
}

/// The format to use for `path`: the override when given, else the extension.
pub fn resolve_format(path: &Path, format: Option<Format>) -> Result<Format, FormatError> {
    format
        .or_else(|| Format::from_path(path))
        .ok_or_else(|| FormatError::new(FormatErrorKind::UnknownFormat).in_file(path))
}

/// Reads an LCP from `path`; `format` overrides the choice by extension. The problem's name
/// defaults to the file stem when the file does not give one. Each file is read up to
/// [`DEFAULT_MAX_INPUT_BYTES`].
pub fn read_problem(path: &Path, format: Option<Format>) -> Result<Lcp, FormatError> {
    read_problem_limited(path, format, DEFAULT_MAX_INPUT_BYTES)
}

/// [`read_problem`] with a cap of `max_bytes` per file (an FCLIB file is checked by its
/// size before it is opened).
pub fn read_problem_limited(
    path: &Path,
    format: Option<Format>,
    max_bytes: u64,
) -> Result<Lcp, FormatError> {
    let text = |p: &Path| read_text_limited(p, max_bytes);
    let lcp = match resolve_format(path, format)? {
        Format::Json => json::from_str(&text(path)?).map_err(|e| e.in_file(path))?,
        Format::SiconosDat => siconos::from_str(&text(path)?).map_err(|e| e.in_file(path))?,
        Format::MatrixMarket => mtx::read_limited(path, max_bytes)?,
        Format::Fclib => {
            let size = std::fs::metadata(path).map_err(|e| FormatError::io(path, &e))?.len();
            if size > max_bytes {
                return Err(
                    FormatError::new(FormatErrorKind::TooLarge { limit: max_bytes }).in_file(path)
                );
            }
            fclib::read(path).map_err(|e| FormatError::new(e.into()).in_file(path))?
        }
    };
    Ok(match (&lcp.name, path.file_stem().and_then(|s| s.to_str())) {
        (None, Some(stem)) => lcp.with_name(stem),
        _ => lcp,
    })
}

/// Parses an LCP from in-memory text in the JSON or Siconos format (MatrixMarket needs two
/// texts: [`mtx::from_strs`]; FCLIB is binary HDF5, read from a path by [`read_problem`]).
pub fn problem_from_str(text: &str, format: Format) -> Result<Lcp, FormatError> {
    match format {
        Format::Json => json::from_str(text),
        Format::SiconosDat => siconos::from_str(text),
        Format::MatrixMarket => Err(FormatError::new(FormatErrorKind::Unsupported(
            "MatrixMarket holds M and q in two texts; use formats::mtx::from_strs".into(),
        ))),
        Format::Fclib => Err(FormatError::new(FormatErrorKind::Unsupported(
            "FCLIB problems are binary HDF5 files; read them from a path with read_problem".into(),
        ))),
    }
}

/// Writes an LCP to `path`; `format` overrides the choice by extension. A Siconos `.dat` is
/// written dense for a dense M and sparse-block (1x1 blocks) for a sparse M; MatrixMarket
/// writes two files (see [`matrix_market_paths`]).
pub fn write_problem(path: &Path, lcp: &Lcp, format: Option<Format>) -> Result<(), FormatError> {
    match resolve_format(path, format)? {
        Format::Json => write_text(path, &json::to_string(lcp)),
        Format::SiconosDat => write_text(path, &siconos::to_string(lcp)),
        Format::MatrixMarket => mtx::write(path, lcp),
        Format::Fclib => Err(FormatError::new(FormatErrorKind::Unsupported(
            "FCLIB files are read-only here (the normal part of a frictional problem)".into(),
        ))
        .in_file(path)),
    }
}

/// A lazy whitespace tokenizer that knows the 1-based line of each token and, from one
/// counting pass, how many tokens are left (so announced sizes are checked before any
/// allocation, without storing the tokens). Public so that readers of related text layouts
/// (the Siconos frictional-contact `.dat` in signorini-friction) share it.
#[derive(Debug)]
pub struct Tokens<'a> {
    lines: std::iter::Enumerate<std::str::Lines<'a>>,
    words: Option<(usize, std::str::SplitWhitespace<'a>)>,
    upcoming: Option<(usize, &'a str)>,
    remaining: usize,
    total: usize,
    last_line: usize,
}

impl<'a> Tokens<'a> {
    /// Tokenizes `text` (one counting pass; nothing is stored).
    pub fn new(text: &'a str) -> Self {
        let total = text.split_whitespace().count();
        let last_line = text.lines().count().max(1);
        let mut t = Self {
            lines: text.lines().enumerate(),
            words: None,
            upcoming: None,
            remaining: total,
            total,
            last_line,
        };
        t.advance();
        t
    }

    fn advance(&mut self) {
        self.upcoming = loop {
            if let Some((line, words)) = &mut self.words {
                if let Some(w) = words.next() {
                    break Some((*line, w));
                }
            }
            match self.lines.next() {
                Some((i, l)) => self.words = Some((i + 1, l.split_whitespace())),
                None => break None,
            }
        };
    }

    /// Tokens not yet consumed.
    pub fn remaining(&self) -> usize {
        self.remaining
    }

    /// True when the text holds no token at all.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Line of the next token (or the last line at the end).
    pub fn line(&self) -> usize {
        self.upcoming.map_or(self.last_line, |t| t.0)
    }

    fn take(&mut self) -> Option<(usize, &'a str)> {
        let t = self.upcoming?;
        self.remaining = self.remaining.saturating_sub(1);
        self.advance();
        Some(t)
    }

    /// The next token with its line; `expected` names it in the error at the end of the text.
    pub fn next_token(&mut self, expected: &str) -> Result<(usize, &'a str), FormatError> {
        self.take().ok_or_else(|| {
            FormatError::at_line(
                FormatErrorKind::Truncated { expected: expected.into() },
                self.last_line,
            )
        })
    }

    /// The next token as a non-negative integer.
    pub fn usize(&mut self, expected: &str) -> Result<usize, FormatError> {
        let (line, tok) = self.next_token(expected)?;
        tok.parse::<usize>().map_err(|_| {
            FormatError::at(FormatErrorKind::NotAnInteger { expected: expected.into() }, line, tok)
        })
    }

    /// A finite f64; `what` names the entry in errors.
    pub fn f64(&mut self, what: impl Fn() -> String) -> Result<f64, FormatError> {
        let Some((line, tok)) = self.take() else {
            return Err(FormatError::at_line(
                FormatErrorKind::Truncated { expected: what() },
                self.last_line,
            ));
        };
        match tok.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            Ok(_) => Err(FormatError::at(FormatErrorKind::NonFinite { what: what() }, line, tok)),
            Err(_) => {
                Err(FormatError::at(FormatErrorKind::NotANumber { expected: what() }, line, tok))
            }
        }
    }

    /// Fails without allocating when `count` values are announced but fewer tokens are left.
    pub fn ensure(&self, what: &str, count: Option<usize>) -> Result<usize, FormatError> {
        match count {
            Some(c) if c <= self.remaining() => Ok(c),
            _ => Err(FormatError::at_line(
                FormatErrorKind::AbsurdSize {
                    what: what.into(),
                    value: count.map_or_else(|| "overflow".into(), |c| c.to_string()),
                    available: self.remaining(),
                },
                self.line(),
            )),
        }
    }
}

/// Shortest text that reads back to the same f64 (scientific notation).
pub fn fmt_f64(v: f64) -> String {
    format!("{v:e}")
}
