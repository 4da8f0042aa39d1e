//! Store implementations that live in the core: in memory (tests, npm, browser), and the one
//! backend test suite every store runs.
