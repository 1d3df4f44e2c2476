//! Progress bars for long runs (indicatif): shown on a terminal, hidden when stderr is not one
//! or under `CI=true`, so logs and pipes get only the results.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar of `len` steps named `prefix`, counting `unit`; hidden off a terminal and in CI.
pub fn bar(len: u64, prefix: &str, unit: &str) -> Result<ProgressBar, String> {
    let bar = ProgressBar::new(len);
    if !shown() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let template = format!(
        "{{prefix}} [{{bar:40}}] {{pos}}/{{len}} {unit}, {{elapsed}} ({{eta}} left) {{msg}}"
    );
    bar.set_style(
        ProgressStyle::with_template(&template).map_err(|e| e.to_string())?.progress_chars("=> "),
    );
    bar.set_prefix(prefix.to_string());
    Ok(bar)
}

/// True when a bar should be drawn: stderr is a terminal and `CI` is not `true`.
fn shown() -> bool {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    !ci && std::io::stderr().is_terminal()
}
