//! `signorini`: solve, inspect and convert LCP files from the command line.
//!
//! Exit codes: 0 solved (or command done), 1 a solve ended with any other status, 2 bad input
//! or usage (or an output that cannot be written), with one line on stderr naming the file and
//! what is wrong, 3 an internal error (a panic: a bug). One module per subcommand.

mod contact;
mod convert;
mod error;
mod fc;
mod info;
mod simulate;
mod solve;
mod solvers;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::error::CliError;

/// Exit codes, shown under every command's `--help`.
const EXIT_CODES: &str = "\
Exit codes:
  0  solved (or the command did what it was asked)
  1  a solve ended with another status (max_iterations, infeasible, numerical_failure, ...)
  2  bad input or usage, or an output that cannot be written: one line on stderr naming the
     file and what is wrong
  3  internal error (a bug in signorini): one line on stderr; please report it";

/// The exit code of a panic (an internal error), distinct from bad input (2).
const EXIT_INTERNAL_ERROR: i32 = 3;

/// Research-grade solvers for linear complementarity problems and unilateral contact.
#[derive(Debug, Parser)]
#[command(name = "signorini", version, about, propagate_version = true, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Solve an LCP file and report z, w and the solver-independent residual.
    Solve(solve::SolveArgs),
    /// Matrix-class diagnostics of an LCP file.
    Info(info::InfoArgs),
    /// Convert an LCP file between formats (json, dat, mtx).
    Convert(convert::ConvertArgs),
    /// Detect the contacts of a scene, assemble W and b, solve the contact LCP.
    Contact(contact::ContactArgs),
    /// Simulate a scene with a time-stepping, event-driven or penalty scheme.
    Simulate(simulate::SimulateArgs),
    /// Solve a frictional-contact problem with the exact Coulomb cone (Siconos .dat, JSON,
    /// FCLIB local) and report r, u and the Siconos error recomputed from r.
    Fc(fc::FcArgs),
    /// List every registered LCP solver: what it is for and its parameters with defaults.
    Solvers(solvers::SolversArgs),
}

/// What a subcommand hands back: text for stdout and the exit code.
pub(crate) struct Done {
    /// Printed to stdout as is.
    pub stdout: String,
    /// 0 or 1 (2 is an error).
    pub code: u8,
}

fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        // A panic inside the HDF5 decoder unwinds into a typed error (bad input, exit 2).
        if signorini_lcp::formats::fclib::decoder_panic_is_guarded() {
            return;
        }
        let location = info.location().map(|l| format!(" at {}:{}", l.file(), l.line()));
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".into());
        let line = format!("{message}{}", location.unwrap_or_default()).replace('\n', " ");
        eprintln!("signorini: internal error (please report): {line}");
        std::process::exit(EXIT_INTERNAL_ERROR);
    }));
}

fn run(cli: Cli) -> Result<Done, CliError> {
    match cli.command {
        Command::Solve(args) => solve::run(&args),
        Command::Info(args) => info::run(&args),
        Command::Convert(args) => convert::run(&args),
        Command::Contact(args) => contact::run(&args),
        Command::Simulate(args) => simulate::run(&args),
        Command::Fc(args) => fc::run(&args),
        Command::Solvers(args) => solvers::run(&args),
    }
}

fn main() -> ExitCode {
    install_panic_hook();
    // Lets the tests reach the panic hook (exit 3) without a bug to trigger it.
    if std::env::var_os("SIGNORINI_INTERNAL_TEST_PANIC").is_some() {
        panic!("SIGNORINI_INTERNAL_TEST_PANIC is set");
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return error::clap_exit(&e),
    };
    match run(cli) {
        Ok(done) => {
            let mut out = std::io::stdout().lock();
            match out.write_all(done.stdout.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => ExitCode::from(done.code),
                // A closed pipe (e.g. `| head`) is the reader's choice, not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(done.code),
                Err(e) => {
                    eprintln!("signorini: cannot write to stdout: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Err(e) => {
            eprintln!("signorini: {}", e.one_line());
            ExitCode::from(2)
        }
    }
}
