//! The one integration-test binary: runs the real `arena` executable in temporary folders.

mod bad_inputs;
mod browser;
mod check;
mod cli;
mod clock;
mod codingame;
mod confinement;
mod debug_loop;
mod docs;
mod external;
mod fuzz;
mod help;
mod layers;
mod league;
mod painters;
mod protocols;
mod risk;
mod sandbox;
mod separating;
mod skynet;
mod spiders;
mod sprt;
mod support;
mod tournament;
mod viewer;
mod viewer_analysis;
