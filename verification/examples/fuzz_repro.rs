//! Replays a fuzz input through a harness: `cargo run -p signorini-verification --example
//! fuzz_repro -- HARNESS FILE` (a reproducer from `fuzz/artifacts/<target>/`).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(name), Some(file)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: fuzz_repro HARNESS FILE");
        std::process::exit(2);
    };
    let Some((_, harness)) =
        signorini_verification::fuzz::HARNESSES.iter().find(|(n, _)| n == name)
    else {
        eprintln!("unknown harness {name}");
        std::process::exit(2);
    };
    let Ok(data) = std::fs::read(file) else {
        eprintln!("cannot read {file}");
        std::process::exit(2);
    };
    harness(&data);
    println!("{name}: {file}: no invariant broken");
}
