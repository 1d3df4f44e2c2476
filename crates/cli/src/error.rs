//! Errors of the command line: every one is bad input or usage (exit 2, one line on stderr).

use std::process::ExitCode;

use clap::error::ErrorKind;

/// A bad-input error, already phrased as "file: what is wrong".
#[derive(Debug)]
pub struct CliError(pub String);

impl CliError {
    /// The message on a single line.
    pub fn one_line(&self) -> String {
        self.0.replace(['\n', '\r'], " ")
    }
}

impl From<signorini_lcp::FormatError> for CliError {
    fn from(e: signorini_lcp::FormatError) -> Self {
        CliError(e.to_string())
    }
}

/// Prints help and version as clap does (exit 0); every usage error becomes one line (exit 2).
pub fn clap_exit(e: &clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            eprintln!("signorini: a subcommand is required (solve, info, convert, contact, simulate, fc, solvers); see `signorini --help`");
            ExitCode::from(2)
        }
        _ => {
            let rendered = e.render().to_string();
            let text: Vec<&str> = rendered
                .lines()
                .map(str::trim)
                .take_while(|l| !l.starts_with("Usage:"))
                .filter(|l| !l.is_empty())
                .collect();
            let joined = text.join(" ");
            let first = joined.strip_prefix("error: ").unwrap_or(&joined);
            let first = if first.is_empty() { "invalid command line" } else { first };
            eprintln!("signorini: {first} (see `signorini --help`)");
            ExitCode::from(2)
        }
    }
}
