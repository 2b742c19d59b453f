//! `arena init GAME [--out FILE]`: a commented arena file for a game that runs as it is, the
//! quickest start of a tournament of one's own. Each game registers its file (`GameDef::INIT`,
//! its folder's `init.toml`): maps are generated where the game has a generator; a game without
//! one (Risk) gets its default map written beside the arena file.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::error::{Error, Result, exit};
use crate::games::GameId;
use crate::registry::GameDef;

#[derive(Args, Debug)]
pub(super) struct InitArgs {
    /// The game: skynet, painters, spiders or risk.
    game: GameId,
    /// The arena file to write (default: GAME.toml in the current folder); never overwritten.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Writes `text` to `path` unless something is there already.
fn write_new(path: &Path, text: &str) -> Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::write(path, e))?;
    file.write_all(text.as_bytes()).map_err(|e| Error::write(path, e))
}

pub(super) fn run(args: InitArgs, out: &mut dyn Write) -> Result<i32> {
    let game = args.game;
    let path = args.out.unwrap_or_else(|| PathBuf::from(format!("{}.toml", game.name())));
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let name: String =
        stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '-' }).collect();
    let (template, map) = crate::with_game!(game, D => (D::INIT, D::default_map(D::VARIANTS[0])));
    // Nothing is written unless every file can be.
    let map_file = template.contains("\"MAP\"").then(|| format!("{name}-{}", map.name));
    for file in std::iter::once(path.clone()).chain(map_file.iter().map(|f| path.with_file_name(f)))
    {
        if file.exists() {
            return Err(Error::Usage(format!(
                "`{}` exists: arena init never overwrites a file (choose another --out)",
                file.display()
            )));
        }
    }
    let mut text = template.replace("\"NAME\"", &format!("{name:?}"));
    let mut written = Vec::new();
    if let Some(map_file) = map_file {
        let map_path = path.with_file_name(&map_file);
        write_new(&map_path, &map.text)?;
        written.push(map_path);
        text = text.replace("\"MAP\"", &format!("{map_file:?}"));
    }
    write_new(&path, &text)?;
    written.push(path.clone());
    for file in &written {
        writeln!(out, "wrote {}", file.display()).map_err(Error::stdout)?;
    }
    writeln!(out, "run it: arena run {}", path.display()).map_err(Error::stdout)?;
    Ok(exit::OK)
}
