//! `hippo-bench`: retrieval (LoCoMo), latency and dream benchmarks.

mod dream;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("dream") => std::process::exit(dream::main(&args[1..])),
        _ => {
            eprintln!("usage: hippo-bench <locomo|latency|dream> [options]");
            std::process::exit(2);
        }
    }
}
