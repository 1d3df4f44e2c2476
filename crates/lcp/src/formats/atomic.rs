//! Crash-safe output: every file this workspace writes goes to a temporary name beside its
//! target and is renamed over it once complete, so a reader (or a run killed half-way) never
//! sees a truncated file; and an output that would land in a missing folder or overwrite one of
//! the run's own inputs is refused with an error that says so.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Why an output file could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutputError {
    /// The folder the file should go into does not exist (it is not created silently).
    #[error("{path}: cannot write: folder {folder} does not exist")]
    MissingFolder {
        /// The output file.
        path: String,
        /// Its folder.
        folder: String,
    },
    /// The output is one of the inputs of the same run.
    #[error("{path}: refusing to overwrite an input of this run (write the output elsewhere)")]
    OntoInput {
        /// The output file.
        path: String,
    },
    /// The file system refused.
    #[error("{path}: cannot write: {message}")]
    Io {
        /// The output file.
        path: String,
        /// The system's message.
        message: String,
    },
}

impl OutputError {
    /// The reason without the path (for callers that name the path themselves).
    pub fn reason(&self) -> String {
        match self {
            OutputError::MissingFolder { folder, .. } => format!("folder {folder} does not exist"),
            OutputError::OntoInput { .. } => "refusing to overwrite an input of this run".into(),
            OutputError::Io { message, .. } => message.clone(),
        }
    }
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

/// The folder of `path` (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Checks that `path` can be an output: its folder exists and it is none of `inputs` (compared
/// after resolving links and `..`; an input that does not exist cannot be overwritten).
pub fn check_output(path: &Path, inputs: &[&Path]) -> Result<(), OutputError> {
    let folder = folder_of(path);
    if !folder.is_dir() {
        return Err(OutputError::MissingFolder { path: shown(path), folder: shown(folder) });
    }
    if let Ok(target) = path.canonicalize() {
        if inputs.iter().filter_map(|i| i.canonicalize().ok()).any(|i| i == target) {
            return Err(OutputError::OntoInput { path: shown(path) });
        }
    }
    Ok(())
}

/// Makes sure the output folder `dir` exists: an existing folder is used as is, a missing one is
/// created when its parent exists, and a missing parent is an error (a mistyped `--out` path is
/// not created silently).
pub fn create_output_dir(dir: &Path) -> Result<(), OutputError> {
    if dir.is_dir() {
        return Ok(());
    }
    let parent = folder_of(dir);
    if !parent.is_dir() {
        return Err(OutputError::MissingFolder { path: shown(dir), folder: shown(parent) });
    }
    std::fs::create_dir(dir)
        .or_else(|e| if dir.is_dir() { Ok(()) } else { Err(e) })
        .map_err(|e| OutputError::Io { path: shown(dir), message: e.to_string() })
}

/// The temporary name `path` is written under before the rename.
fn temporary(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    folder_of(path).join(format!(".{name}.{}.tmp", std::process::id()))
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename: the file
/// is either the old one or the complete new one, never a truncated mix.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    check_output(path, &[])?;
    let tmp = temporary(path);
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(|e| OutputError::Io { path: shown(path), message: e.to_string() })
}

/// Writes `path` by calling `write` on a temporary name in the same folder and renaming it
/// over `path` when `write` succeeds: [`write_atomic`] for writers that need a path (an HDF5
/// library). The temporary file is removed on failure.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), OutputError> {
    check_output(path, &[])?;
    let tmp = temporary(path);
    let result = write(&tmp).and_then(|()| std::fs::rename(&tmp, path).map_err(|e| e.to_string()));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(|message| OutputError::Io { path: shown(path), message })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("signorini-atomic-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("temp dir");
        d
    }

    #[test]
    fn writes_replace_the_file_and_leave_no_temporary() {
        let d = dir("replace");
        let p = d.join("out.json");
        write_atomic(&p, b"first").expect("write");
        write_atomic(&p, b"second").expect("rewrite");
        assert_eq!(std::fs::read(&p).expect("read"), b"second");
        let names: Vec<String> = std::fs::read_dir(&d)
            .expect("list")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["out.json"]);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_missing_folder_and_an_input_are_refused() {
        let d = dir("refuse");
        let missing = d.join("no/such/folder/out.json");
        let e = write_atomic(&missing, b"x").expect_err("missing folder");
        assert!(matches!(e, OutputError::MissingFolder { .. }), "{e}");
        assert!(e.to_string().contains("does not exist"), "{e}");
        let input = d.join("in.json");
        std::fs::write(&input, "{}").expect("input");
        let same = d.join(".").join("in.json");
        let e = check_output(&same, &[&input]).expect_err("onto input");
        assert!(matches!(e, OutputError::OntoInput { .. }), "{e}");
        assert!(check_output(&d.join("other.json"), &[&input]).is_ok());
        assert!(create_output_dir(&d.join("fresh")).is_ok());
        assert!(d.join("fresh").is_dir());
        let e = create_output_dir(&d.join("a/b")).expect_err("missing parent");
        assert!(e.to_string().contains("does not exist"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }
}
