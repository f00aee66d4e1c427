//! Notation: SAN with drops, BFEN and BPGN.
