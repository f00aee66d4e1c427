//! End-to-end tests of bugbridge.
