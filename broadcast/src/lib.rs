//! The outbound side of bugbridge: the MQTT publisher and the HTTP viewer and API.
//!
//! This crate owns the published schema and knows nothing about chess rules.
//!
//! # Layout
//!
//! To be filled as the publishers land.
