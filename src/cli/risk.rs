//! `arena risk ...`: Risk's own tools.

use std::io::Write;
use std::path::PathBuf;

use crate::error::{Error, Result, exit};
use crate::games::risk::{BoardFile, PathsReport, RiskMap, paths_report};

#[derive(clap::Args, Debug)]
pub(super) struct RiskArgs {
    #[command(subcommand)]
    command: RiskCommand,
}

#[derive(clap::Subcommand, Debug)]
enum RiskCommand {
    /// The homework's path questions on a board: shortest path, cheapest attack path and its
    /// cost, whether FROM can fortify TO and whether FROM can attack TO.
    Paths {
        /// A board file (TOML; see docs/risk.md).
        #[arg(long)]
        board: PathBuf,
        /// The source territory, by id or name.
        #[arg(long)]
        from: String,
        /// The target territory, by id or name.
        #[arg(long)]
        to: String,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

pub(super) fn run(args: RiskArgs, out: &mut dyn Write) -> Result<i32> {
    match args.command {
        RiskCommand::Paths { board, from, to, json } => {
            let file = BoardFile::read(&board)?;
            let report = paths_report(&board, &file, &from, &to)?;
            let text = if json {
                format!("{}\n", serde_json::to_string(&report).expect("a report serializes"))
            } else {
                render(&report, &file.map)
            };
            out.write_all(text.as_bytes()).map_err(Error::stdout)?;
            Ok(exit::OK)
        }
    }
}

fn render(report: &PathsReport, map: &RiskMap) -> String {
    let name = |t: usize| format!("{} {}", t, map.territories[t].name);
    let path = |p: &Option<Vec<usize>>| match p {
        Some(p) => p.iter().map(|&t| name(t)).collect::<Vec<_>>().join(" -> "),
        None => "none".to_string(),
    };
    let yes = |b: bool| if b { "yes" } else { "no" };
    let mut s = format!("from {} to {} on {}\n", name(report.from), name(report.to), map.name);
    s += &format!(
        "shortest path: {} ({} territories)\n",
        path(&report.shortest_path),
        report.shortest_path.as_ref().map_or(0, Vec::len)
    );
    s += &format!("cheapest attack path: {}", path(&report.cheapest_attack_path));
    if let Some(c) = report.attack_cost {
        s += &format!(" (cost {c})");
    }
    s += "\n";
    s += &format!(
        "can fortify: {}\ncan attack: {}\n",
        yes(report.can_fortify),
        yes(report.can_attack)
    );
    s
}
