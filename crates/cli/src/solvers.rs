//! `signorini solvers [--json]`: every solver of the registry with what it is for and its
//! parameters (key, default, meaning), read from the registry's own documentation, so that the
//! list cannot fall behind the code.

use std::fmt::Write as _;

use serde_json::{json, Value};
use signorini_lcp::Registry;

use crate::error::CliError;
use crate::Done;

/// Shown under the command's `--help`.
const SOLVERS_HELP: &str = "\
Exit codes:
  0  listed
  2  bad usage, or an output that cannot be written: one line on stderr
  3  internal error (a bug in signorini): one line on stderr; please report it";

/// Arguments of `signorini solvers`.
#[derive(Debug, clap::Args)]
#[command(after_help = SOLVERS_HELP)]
pub struct SolversArgs {
    /// Print one JSON array: [{name, summary, parameters: [{key, default, doc}]}, ...].
    #[arg(long)]
    pub json: bool,
}

/// Runs the subcommand.
pub fn run(args: &SolversArgs) -> Result<Done, CliError> {
    let registry = Registry::builtin();
    let stdout = if args.json {
        let list = describe(&registry);
        serde_json::to_string_pretty(&list).map_err(|e| CliError(format!("solvers: {e}")))? + "\n"
    } else {
        text(&registry)
    };
    Ok(Done { stdout, code: 0 })
}

/// The registry as JSON values, in registration order.
fn describe(registry: &Registry) -> Value {
    Value::Array(
        registry
            .entries()
            .iter()
            .map(|e| {
                let params: Vec<Value> = e
                    .keys
                    .iter()
                    .map(|k| json!({ "key": k.key, "default": k.default, "doc": k.doc }))
                    .collect();
                json!({ "name": e.name, "summary": e.summary, "parameters": params })
            })
            .collect(),
    )
}

fn text(registry: &Registry) -> String {
    let mut s = String::new();
    for e in registry.entries() {
        let _ = writeln!(s, "{}\n    {}", e.name, e.summary);
        for k in &e.keys {
            let _ = writeln!(s, "    {}={}  {}", k.key, k.default, k.doc);
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "Select one with --solver NAME[:key=value,...], e.g. --solver pgs:omega=1.3,max_iter=500."
    );
    s
}
