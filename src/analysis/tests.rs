//! Tests of the analysis.
