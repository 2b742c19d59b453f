//! The one integration-test binary: runs the real `arena` executable in temporary folders.

mod cli;
mod external;
mod help;
mod painters;
mod protocols;
mod risk;
mod sandbox;
mod skynet;
mod spiders;
mod support;
mod tournament;
