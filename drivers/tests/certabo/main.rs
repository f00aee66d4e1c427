//! Certabo and Sentio codecs and calibration, driven by the peers' test fixtures
//! (`shared/data/certabo/frames`, read in place: GPL material is never copied here).

mod fixtures;
mod garbage;
