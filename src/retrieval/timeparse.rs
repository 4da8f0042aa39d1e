//! timeparse
