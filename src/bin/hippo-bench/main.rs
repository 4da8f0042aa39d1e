//! `hippo-bench`: retrieval (LoCoMo), latency and dream benchmarks.
fn main() {
    eprintln!("usage: hippo-bench <locomo|latency|dream> [options]");
    std::process::exit(2);
}
