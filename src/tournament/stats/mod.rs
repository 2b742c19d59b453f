//! A tournament's statistics: pure functions of integer counters, with no files and no text, so
//! each figure can be tested on its own and the fits reworked without touching what prints them.
//!
//! [`tally`] counts results as matches arrive; [`ratings`] fits ratings (Plackett-Luce, which is
//! Bradley-Terry for two seats) and Wilson intervals; [`standings`] turns a tally into the typed
//! summary a run reports; [`gsprt`] holds the generalized sequential probability ratio test's
//! statistics (LLR, bounds, Elo estimate), apart from the runner that plays its pairs
//! (`tournament/sprt.rs`).

pub(crate) mod gsprt;
pub(crate) mod ratings;
pub(crate) mod standings;
pub(crate) mod tally;
