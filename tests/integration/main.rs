//! The one integration-test binary: runs the real `arena` executable in temporary folders.

mod external;
mod skynet_cli;
mod support;
