//! The one integration-test binary: runs the real `arena` executable in temporary folders.

mod cli;
mod support;
mod tournament;
