//! Shared helpers of bugbridge's end-to-end tests.
