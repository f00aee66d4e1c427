//! The `bugbridge` binary.

fn main() {}
