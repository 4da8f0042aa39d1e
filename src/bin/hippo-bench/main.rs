//! `hippo-bench`: retrieval quality (LoCoMo), retrieval latency, and dream benchmarks.
//!
//! ```text
//! hippo-bench locomo --data FILE [--convs A-B] [--mode e2e|ranking] [--dreams nightly|session]
//!                    [--sample-every N] [--no-ranking] [--dump FILE] [--json]
//! hippo-bench latency [--sizes 1000,10000,100000] [--queries N] [--json]
//! hippo-bench writes [--sizes 1000,10000,100000] [--calls N] [--fill] [--data FILE] [--json]
//!                    [--corpus OUT]
//! hippo-bench near [--size N] [--every K] [--data FILE] [--json]
//! hippo-bench precision [--set FILE] [--show] [--json]
//! hippo-bench year [--days N] [--latency] [--show] [--json]
//! hippo-bench dream --data FILE [--limit N] [--dry-run] [--show]
//! hippo-bench structured [--queries N]
//! hippo-bench pairs --data tests/data/model_pairs.json [--record]
//! ```
//! `locomo` and `pairs` measure a real embedding model when `HIPPO_EMBED=openai` and its
//! variables are set (see `model.rs`; built with `--features model-bench`).
//! With `--json`, the last line of output is one JSON object (see each subcommand).

mod alloc;
mod args;
mod baseline;
mod corpus;
mod dream;
mod e2e;
mod latency;
mod locomo;
mod model;
mod near;
mod pairs;
mod precision;
mod structured;
mod writes;
mod year;
mod year_data;

#[global_allocator]
static ALLOCATOR: alloc::CountingAllocator = alloc::CountingAllocator;

fn main() {
    let mut argv = std::env::args().skip(1);
    let command = argv.next().unwrap_or_default();
    if command == "dream" {
        let rest: Vec<String> = argv.collect();
        std::process::exit(dream::main(&rest));
    }
    let args = args::Args::parse(argv.collect());
    let outcome = match command.as_str() {
        "locomo" => locomo::run(&args),
        "latency" => latency::run(&args),
        "precision" => precision::run(&args),
        "structured" => structured::run(&args),
        "year" => year::run(&args),
        "pairs" => pairs::run(&args),
        "writes" => writes::run(&args),
        "near" => near::run(&args),
        _ => Err(format!(
            "usage: hippo-bench <locomo|latency|writes|near|precision|year|dream|structured|pairs> [options] \
             (unknown command {command:?})"
        )),
    };
    if let Err(message) = outcome {
        eprintln!("hippo-bench: {message}");
        std::process::exit(2);
    }
}
