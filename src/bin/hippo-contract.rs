//! `make contract`: writes the wire contract derived from the Rust types (src/contract.rs).
//! `--check` (run by `make test`): writes nothing and fails, naming the file and its first
//! differing line, when a checked-in file differs from what the Rust types give.
//! Run from the repository's root.

use hippo::contract::{
    components, declarations, first_difference, COMPONENTS_PATH, DECLARATIONS_PATH,
    HANDWRITTEN_PATH,
};
use std::process::ExitCode;

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
}

fn run(check: bool) -> Result<bool, String> {
    let declarations_now = read(DECLARATIONS_PATH)?;
    let outputs = [
        (COMPONENTS_PATH, components(&read(HANDWRITTEN_PATH)?)?),
        (DECLARATIONS_PATH, declarations(&declarations_now)?),
    ];
    let mut same = true;
    for (path, expected) in outputs {
        let actual = std::fs::read_to_string(path).unwrap_or_default();
        match first_difference(path, &expected, &actual) {
            None => {}
            Some(difference) if check => {
                eprintln!("{difference}");
                same = false;
            }
            Some(_) => {
                std::fs::write(path, expected).map_err(|e| format!("{path}: {e}"))?;
                println!("wrote {path}");
            }
        }
    }
    Ok(same)
}

fn main() -> ExitCode {
    let check = std::env::args().skip(1).any(|a| a == "--check");
    match run(check) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("hippo-contract: {message}");
            ExitCode::from(2)
        }
    }
}
