//! `signorini solvers [--json]`: every solver of the registry with what it is for and its
//! parameters (key, default, meaning), read from the registry's own documentation, so that the
//! list cannot fall behind the code. `--fc` lists the frictional-contact solvers of
//! `signorini fc` (signorini-friction's registry) the same way.

use std::fmt::Write as _;

use serde_json::{json, Value};
use signorini_friction::FcRegistry;
use signorini_lcp::{ParamDoc, Registry};

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
    /// List the frictional-contact solvers of `signorini fc` instead of the LCP solvers.
    #[arg(long)]
    pub fc: bool,
}

/// One listed solver: name, summary, parameters.
type Listed<'a> = (&'a str, &'a str, &'a [ParamDoc]);

/// Runs the subcommand.
pub fn run(args: &SolversArgs) -> Result<Done, CliError> {
    let lcp = Registry::builtin();
    let fc = FcRegistry::builtin();
    let entries: Vec<Listed> = if args.fc {
        fc.entries().iter().map(|e| (e.name.as_str(), e.summary.as_str(), &e.keys[..])).collect()
    } else {
        lcp.entries().iter().map(|e| (e.name.as_str(), e.summary.as_str(), &e.keys[..])).collect()
    };
    let stdout = if args.json {
        let list = describe(&entries);
        serde_json::to_string_pretty(&list).map_err(|e| CliError(format!("solvers: {e}")))? + "\n"
    } else {
        text(&entries, args.fc)
    };
    Ok(Done { stdout, code: 0 })
}

/// The registry as JSON values, in registration order.
fn describe(entries: &[Listed]) -> Value {
    Value::Array(
        entries
            .iter()
            .map(|(name, summary, keys)| {
                let params: Vec<Value> = keys
                    .iter()
                    .map(|k| {
                        json!({
                            "key": k.key, "default": k.default, "kind": k.kind,
                            "range": k.range, "doc": k.doc
                        })
                    })
                    .collect();
                json!({ "name": name, "summary": summary, "parameters": params })
            })
            .collect(),
    )
}

fn text(entries: &[Listed], fc: bool) -> String {
    let mut s = String::new();
    for (name, summary, keys) in entries {
        let _ = writeln!(s, "{name}\n    {summary}");
        for k in keys.iter() {
            let range = if k.range.is_empty() {
                k.kind.clone()
            } else {
                format!("{}, {}", k.kind, k.range)
            };
            let _ = writeln!(s, "    {}={}  {} ({range})", k.key, k.default, k.doc);
        }
        s.push('\n');
    }
    if fc {
        let _ = writeln!(
            s,
            "Select one with signorini fc FILE --solver NAME[:key=value,...], e.g. --solver nsgs:local=proj."
        );
    } else {
        let _ = writeln!(
            s,
            "Select one with --solver NAME[:key=value,...], e.g. --solver pgs:omega=1.3,max_iter=500.\n\
             Every solver also takes the common keys tol (0 < tol <= 1e-2), max_iter (>= 1) and\n\
             time_limit (seconds); a spec string's value wins over --tol, --max-iter, --time-limit,\n\
             and giving both with different values is refused.\n\
             Frictional-contact solvers (signorini fc): signorini solvers --fc."
        );
    }
    s
}
