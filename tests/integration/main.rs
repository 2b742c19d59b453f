//! The one integration-test binary: runs the real `arena` executable in temporary folders.

mod skynet_cli;
mod support;
mod tournament;
