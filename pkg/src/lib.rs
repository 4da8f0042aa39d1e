//! The npm package binding of Hippo (see issue: npm).
