//! `arena init GAME [--out FILE]`: a commented arena file for a game that runs as it is, the
//! quickest start of a tournament of one's own. Maps are generated where the game has a
//! generator; Risk, which has none, gets its classic map written beside the arena file.

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

const SKYNET: &str = r#"# A Skynet Revolution tournament (Episode 2): every virus bot against every agent bot.
# Run it with `arena run FILE`; results go to results/<name>/. Reference: docs/tournaments.md.
name = "NAME"
game = "skynet"
variant = "ep2"                # or "ep1"
games_per_pairing = 10         # game k of a pairing plays map k mod (number of maps)
seed = 1                       # the same seed plays the same matches

# [options]
# invalid_cut = "ignore"       # a cut of a missing link is a pass (docs/skynet.md)

[maps]
# files = ["maps/my_map.txt"]  # map files, relative to this file's folder
generate = { count = 10, params = { nodes = 30 } }   # `arena gen skynet --help` lists params

[[bots]]
name = "solver"                # a built-in bot (`arena bots` lists them)
roles = ["virus"]

[[bots]]
name = "greedy"
roles = ["virus"]

# [[bots]]
# name = "mine"
# spec = "cmd:python3 my_virus.py"   # an external bot, relative to the folder arena runs in
# roles = ["virus"]

[[bots]]
name = "cg-ep2"
roles = ["agent"]
"#;

const PAINTERS: &str = r#"# A Painters' Duel tournament: every pair of bots, each in both seats.
# Run it with `arena run FILE`; results go to results/<name>/. Reference: docs/tournaments.md.
name = "NAME"
game = "painters"
games_per_pairing = 10         # game k of a pairing plays map k mod (number of maps)
seed = 1                       # the same seed plays the same matches

[maps]
# files = ["boards/my_board.txt"]   # board files, relative to this file's folder
generate = { count = 10, params = { size = 6 } }   # `arena gen painters --help` lists params

[[bots]]
name = "search"                # a built-in bot (`arena bots` lists them)

[[bots]]
name = "greedy"

[[bots]]
name = "random"

# [[bots]]
# name = "mine"
# spec = "cmd:python3 my_painter.py"   # an external bot, relative to the folder arena runs in
"#;

const SPIDERS: &str = r#"# A Greedy Spiders tournament: every defender bot against every spiders bot.
# Run it with `arena run FILE`; results go to results/<name>/. Reference: docs/tournaments.md.
name = "NAME"
game = "spiders"
games_per_pairing = 10         # game k of a pairing plays map k mod (number of maps)
seed = 1                       # the same seed plays the same matches

# [options]
# all_must_move = true         # docs/spiders.md lists the options

[maps]
# files = ["maps/my_graph.txt"]   # map files, relative to this file's folder
generate = { count = 10, params = { nodes = 20 } }   # `arena gen spiders --help` lists params

[[bots]]
name = "emergency"             # a built-in bot (`arena bots` lists them)
roles = ["defender"]

[[bots]]
name = "paths"
roles = ["defender"]

[[bots]]
name = "greedy"
roles = ["spiders"]

[[bots]]
name = "random"
roles = ["spiders"]
"#;

const RISK: &str = r#"# A three-player Risk tournament: every group of three bots, the seats rotating.
# Run it with `arena run FILE`; results go to results/<name>/. Reference: docs/tournaments.md.
name = "NAME"
game = "risk"
games_per_pairing = 6          # per group of bots
seed = 1                       # the same seed plays the same matches

[options]
players = 3                    # 2 to 6 (two players add a neutral army)

[maps]
files = ["MAP"]                # the classic board, written beside this file by `arena init`

[[bots]]
name = "planner"               # a built-in bot (`arena bots` lists them)

[[bots]]
name = "greedy"

[[bots]]
name = "random"
"#;

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
    let template = match game {
        GameId::Skynet => SKYNET,
        GameId::Painters => PAINTERS,
        GameId::Spiders => SPIDERS,
        GameId::Risk => RISK,
    };
    // Nothing is written unless every file can be.
    let map_file = (game == GameId::Risk).then(|| format!("{name}-classic.txt"));
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
        let map = crate::games::risk::Risk::default_map("classic");
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
