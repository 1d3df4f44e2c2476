//! A directory of user problem files as a problem set: every file of a supported format in it
//! (`signorini-lcp/1` JSON `.json`, Siconos `.dat`, MatrixMarket pairs `X.mtx` + `X_q.mtx` or a
//! subdirectory with `M.mtx` + `q.mtx`, and FCLIB `.hdf5` / `.h5` with the cargo feature
//! `fclib`), read with [`signorini_lcp::read_problem`]. Other files (a README, notes) are
//! skipped; a supported file that does not read is an error naming the file.
//!
//! Used by `cargo xtask verify --problems DIR` (cases `lcp/user/<file>`, each checked to be
//! solved by at least one registered solver with the merit recomputed from z) and by the study
//! key `problem_dirs`.

use std::path::{Path, PathBuf};

use signorini_lcp::{read_problem, FormatError, Lcp};

use crate::lcp::{solvers, LcpCase};

/// Why a problem directory could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ProblemDirError {
    /// The directory cannot be listed.
    #[error("cannot list problem directory {dir}: {source}")]
    ReadDir {
        /// The directory.
        dir: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file of a supported format does not read as a problem.
    #[error("problem file {file} does not read: {error}")]
    Unreadable {
        /// The file (for MatrixMarket, the M file or the pair's directory).
        file: PathBuf,
        /// The reader's error (says what and, where it can, the line).
        error: Box<FormatError>,
    },
    /// The directory holds no file of a supported format.
    #[error("problem directory {0} holds no .json, .dat, .mtx or .hdf5 problem file")]
    Empty(PathBuf),
}

/// True for a MatrixMarket q file of a pair (`q.mtx`, `X_q.mtx`), which is read with its M.
fn is_q_file(stem: &str) -> bool {
    stem == "q" || stem.ends_with("_q")
}

/// The problem files of `dir` in name order: `.json`, `.dat`, `.hdf5` / `.h5`, the M file of
/// each MatrixMarket pair, and subdirectories holding `M.mtx`. Not recursive beyond that.
pub fn problem_files(dir: &Path) -> Result<Vec<PathBuf>, ProblemDirError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|source| ProblemDirError::ReadDir { dir: dir.to_path_buf(), source })?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|source| ProblemDirError::ReadDir { dir: dir.to_path_buf(), source })?
            .path();
        if path.is_dir() {
            if path.join("M.mtx").is_file() {
                files.push(path);
            }
            continue;
        }
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        let takes = match ext.as_deref() {
            Some("json" | "dat" | "hdf5" | "h5") => true,
            Some("mtx") => !is_q_file(stem),
            _ => false,
        };
        if takes {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Reads every problem file of `dir` (see [`problem_files`]); the first that does not read is
/// the error. Returns (display id, path, problem), the id being the file name.
pub fn load(dir: &Path) -> Result<Vec<(String, PathBuf, Lcp)>, ProblemDirError> {
    let files = problem_files(dir)?;
    if files.is_empty() {
        return Err(ProblemDirError::Empty(dir.to_path_buf()));
    }
    files
        .into_iter()
        .map(|file| match read_problem(&file, None) {
            Ok(lcp) => Ok((file_id(&file), file, lcp)),
            Err(error) => Err(ProblemDirError::Unreadable { file, error: Box::new(error) }),
        })
        .collect()
}

/// The display id of a problem file: its file name.
pub fn file_id(file: &Path) -> String {
    file.file_name().map_or_else(|| file.display().to_string(), |n| n.to_string_lossy().into())
}

/// One case per problem file of `dir`, id `lcp/user/<file name>`, in the quick set: solved with
/// residual <= 1e-10 by at least one of the registered solvers (all of them are tried; the
/// matrix class of a user file is not known in advance). Every file is read once here, so an
/// unreadable file is reported before anything runs.
pub fn cases(dir: &Path) -> Result<Vec<LcpCase>, ProblemDirError> {
    let loaded = load(dir)?;
    Ok(loaded
        .into_iter()
        .map(|(id, file, _)| {
            let source = format!("user problem file {}", file.display());
            LcpCase::new(
                &format!("lcp/user/{id}"),
                &source,
                Box::new(move || read_problem(&file, None).map_err(|e| e.to_string())),
            )
            .quick()
            .solved_by_any(solvers::ANY)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{Case, Context};
    use crate::check::CheckStatus;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir()
            .join(format!("signorini-problem-dir-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    const JSON: &str =
        r#"{"format": "signorini-lcp/1", "M": {"dense": [[2, 1], [1, 2]]}, "q": [-3, -3]}"#;
    const DAT: &str = "2\n0\n2\n2\n2 2\n2 1\n1 2\n-5 -6\n";
    const MTX_M: &str = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 4\n2 2 2\n";
    const MTX_Q: &str = "%%MatrixMarket matrix array real general\n2 1\n-4\n-2\n";

    #[test]
    fn every_supported_file_becomes_a_solved_case() {
        let dir = temp_dir("ok");
        std::fs::write(dir.join("a.json"), JSON).expect("write");
        std::fs::write(dir.join("b.dat"), DAT).expect("write");
        std::fs::write(dir.join("c.mtx"), MTX_M).expect("write");
        std::fs::write(dir.join("c_q.mtx"), MTX_Q).expect("write");
        std::fs::create_dir_all(dir.join("d")).expect("mkdir");
        std::fs::write(dir.join("d/M.mtx"), MTX_M).expect("write");
        std::fs::write(dir.join("d/q.mtx"), MTX_Q).expect("write");
        std::fs::write(dir.join("README.md"), "not a problem").expect("write");
        let cases = cases(&dir).expect("the directory reads");
        let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["lcp/user/a.json", "lcp/user/b.dat", "lcp/user/c.mtx", "lcp/user/d"]);
        let ctx = Context::builtin();
        for c in &cases {
            let checks = c.run(&ctx);
            assert_eq!(checks.len(), 1, "{}", c.id);
            assert_eq!(checks[0].status, CheckStatus::Pass, "{}: {}", c.id, checks[0].observed);
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn an_unreadable_file_is_an_error_naming_it() {
        let dir = temp_dir("bad");
        std::fs::write(dir.join("good.json"), JSON).expect("write");
        std::fs::write(dir.join("broken.dat"), "2\n2 0\n0 x\n").expect("write");
        match cases(&dir) {
            Err(ProblemDirError::Unreadable { file, .. }) => {
                assert_eq!(file.file_name().and_then(|f| f.to_str()), Some("broken.dat"));
            }
            other => panic!("expected Unreadable, got {other:?}"),
        }
        let msg = cases(&dir).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("broken.dat"), "{msg}");
        let empty = temp_dir("empty");
        assert!(matches!(cases(&empty), Err(ProblemDirError::Empty(_))));
        assert!(matches!(cases(&dir.join("absent")), Err(ProblemDirError::ReadDir { .. })));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::remove_dir_all(&empty).ok();
    }
}
