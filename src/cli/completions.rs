//! `arena completions SHELL` and `arena man`: shell completions and manual pages, generated from
//! the same clap definitions as the parser, so they cannot drift from it.

use std::io::Write;
use std::path::PathBuf;

use clap::CommandFactory;

use crate::error::{Error, Result};

#[derive(clap::Args, Debug)]
pub(super) struct CompletionsArgs {
    /// The shell to complete for.
    shell: clap_complete::Shell,
}

#[derive(clap::Args, Debug)]
pub(super) struct ManArgs {
    /// Write one page per command (`arena.1`, `arena-play.1`, ...) into this folder instead of
    /// printing the top-level page.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

pub(super) fn completions(args: CompletionsArgs, out: &mut dyn Write) -> Result<i32> {
    let mut cmd = super::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "arena", &mut buf);
    out.write_all(&buf).map_err(Error::stdout)?;
    Ok(0)
}

pub(super) fn man(args: ManArgs, out: &mut dyn Write) -> Result<i32> {
    let cmd = super::Cli::command();
    match args.dir {
        None => {
            let mut buf = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut buf).map_err(Error::stdout)?;
            out.write_all(&buf).map_err(Error::stdout)?;
        }
        Some(dir) => {
            std::fs::create_dir_all(&dir).map_err(|e| Error::write(&dir, e))?;
            clap_mangen::generate_to(cmd, &dir).map_err(|e| Error::write(&dir, e))?;
            let mut pages: Vec<String> = std::fs::read_dir(&dir)
                .map_err(|e| Error::read(&dir, e))?
                .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
                .filter(|n| n.ends_with(".1"))
                .collect();
            pages.sort();
            writeln!(out, "wrote {} manual pages to {}", pages.len(), dir.display())
                .map_err(Error::stdout)?;
        }
    }
    Ok(0)
}
