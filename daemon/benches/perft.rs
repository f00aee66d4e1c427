//! Perft benchmark (filled with the rules core).
fn main() {}
