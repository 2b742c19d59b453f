//! `arena risk ...`: Risk's own tools.

use std::io::Write;

use crate::error::Result;

#[derive(clap::Args, Debug)]
pub(super) struct RiskArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

pub(super) fn run(args: RiskArgs, out: &mut dyn Write) -> Result<i32> {
    crate::games::risk::command(&args.args, out)
}
