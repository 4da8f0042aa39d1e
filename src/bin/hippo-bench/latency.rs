pub fn run(_args: &crate::args::Args) -> Result<(), String> {
    Err("latency: not yet".into())
}
