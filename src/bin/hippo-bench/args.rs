//! `--name value` and `--flag` options.

use std::collections::HashMap;

pub struct Args {
    values: HashMap<String, String>,
    flags: Vec<String>,
}

impl Args {
    pub fn parse(raw: Vec<String>) -> Self {
        let mut values = HashMap::new();
        let mut flags = Vec::new();
        let mut i = 0;
        while i < raw.len() {
            let name = raw[i].trim_start_matches("--").to_string();
            match raw.get(i + 1).filter(|v| !v.starts_with("--")) {
                Some(value) => {
                    values.insert(name, value.clone());
                    i += 2;
                }
                None => {
                    flags.push(name);
                    i += 1;
                }
            }
        }
        Args { values, flags }
    }

    pub fn value(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    pub fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }

    /// A comma-separated list of numbers (`--sizes 1000,10000`), or `default` if absent.
    pub fn numbers(&self, name: &str, default: &str) -> Result<Vec<usize>, String> {
        self.value(name)
            .unwrap_or(default)
            .split(',')
            .map(|s| s.trim().parse().map_err(|_| format!("bad --{name} {s:?}")))
            .collect()
    }

    /// A number, or `default` if absent.
    pub fn number(&self, name: &str, default: usize) -> Result<usize, String> {
        self.value(name).map_or(Ok(default), |v| {
            v.parse().map_err(|_| format!("bad --{name} {v:?}"))
        })
    }

    /// An inclusive range "A-B" (or a single "A").
    pub fn range(&self, name: &str) -> Result<Option<(usize, usize)>, String> {
        let Some(text) = self.value(name) else {
            return Ok(None);
        };
        let bad = || format!("--{name} expects A-B, got {text:?}");
        let (a, b) = text.split_once('-').unwrap_or((text, text));
        let a: usize = a.trim().parse().map_err(|_| bad())?;
        let b: usize = b.trim().parse().map_err(|_| bad())?;
        Ok(Some((a.min(b), a.max(b))))
    }
}
