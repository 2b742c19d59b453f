//! `arena solve GAME`: a game's exact solver, for the games that have one. The solvers return
//! typed reports; this file renders them as text or, with `--json`, as one JSON document.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use crate::error::{Error, Result, exit};
use crate::game::MapText;
use crate::games::painters::solve::{Answers, solve_input};
use crate::games::skynet::Skynet;
use crate::games::skynet::solve::{Answer, Solution};
use crate::games::spiders::Spiders;
use crate::games::spiders::map::parse_map;
use crate::games::spiders::solve::{Report, Verdict};
use crate::games::spiders::solver::Policy;
use crate::registry::GameDef;

#[derive(clap::Args, Debug)]
pub(super) struct SolveArgs {
    #[command(subcommand)]
    game: SolveGame,
}

#[derive(clap::Subcommand, Debug)]
enum SolveGame {
    /// Skynet Episode 2: can the virus force a win against a perfect agent? Prints a winning
    /// first cut.
    Skynet(SkynetArgs),
    /// Painters' Duel: reads a Kick Start input (T, then per case `S RA PA RB PB C` and C lines
    /// `R P`) or a board file as `arena gen painters` writes it (one case), and prints `Case #x:
    /// y` for each case, y the best score Alma can guarantee.
    Painters(PaintersArgs),
    /// Greedy Spiders: does the defender win with perfect play (or against the paper's greedy
    /// spiders)? Prints a winning first move. Exit code 3 when the search runs out of time.
    Spiders(SpidersArgs),
}

#[derive(clap::Args, Debug)]
struct SkynetArgs {
    /// The map (either format); without it, the embedded default map.
    #[arg(long)]
    map: Option<PathBuf>,
    /// The variant; only ep2 is solved exactly.
    #[arg(long, default_value = "ep2")]
    variant: String,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
struct PaintersArgs {
    /// The Kick Start input or board file; `-` or nothing reads stdin.
    file: Option<String>,
    /// Also print nodes and time per case on stderr.
    #[arg(long)]
    stats: bool,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("board").required(true).args(["map", "path"])))]
struct SpidersArgs {
    /// The map file (graph format or path notation).
    #[arg(long)]
    map: Option<PathBuf>,
    /// A path in the paper's notation instead of a file, e.g. 'F B S B S B F'.
    #[arg(long)]
    path: Option<String>,
    /// How the spiders play.
    #[arg(long, value_enum, default_value = "optimal")]
    spiders: SpiderPlay,
    /// A game option, KEY=VALUE (all_must_move, defender_may_pass); may be repeated.
    #[arg(long = "opt", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// The search's time budget, in milliseconds.
    #[arg(long, default_value_t = 60_000)]
    time_ms: u64,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum SpiderPlay {
    /// Every spider round is considered: perfect play.
    #[value(alias = "perfect", alias = "adversary")]
    Optimal,
    /// The paper's greedy spiders.
    Greedy,
}

pub(super) fn run(args: SolveArgs, out: &mut dyn Write) -> Result<i32> {
    match args.game {
        SolveGame::Skynet(a) => skynet(a, out),
        SolveGame::Painters(a) => painters(a, out),
        SolveGame::Spiders(a) => spiders(a, out),
    }
}

fn read_map(path: &PathBuf) -> Result<MapText> {
    Ok(MapText {
        name: path.display().to_string(),
        text: crate::game::read_input(path).map_err(|e| Error::read(path, e))?,
    })
}

fn print(out: &mut dyn Write, text: &str) -> Result<()> {
    out.write_all(text.as_bytes()).map_err(Error::stdout)
}

fn json(value: &impl Serialize) -> String {
    format!("{}\n", serde_json::to_string(value).expect("a report serializes"))
}

fn skynet(args: SkynetArgs, out: &mut dyn Write) -> Result<i32> {
    let map = match &args.map {
        Some(path) => read_map(path)?,
        None => Skynet::default_map("ep2"),
    };
    let solution = crate::games::skynet::solve::solve(&args.variant, &map)?;
    for w in &solution.warnings {
        eprintln!("warning: {w}");
    }
    print(out, &if args.json { json(&solution) } else { skynet_text(&solution) })?;
    Ok(exit::OK)
}

fn skynet_text(s: &Solution) -> String {
    let verdict = match s.answer {
        Answer::VirusWins { first_cut: [a, b] } => {
            format!("the virus forces a win; winning first cut: {a} {b}")
        }
        Answer::VirusHasWon => "the virus has already won: the agent can reach no gateway".into(),
        Answer::AgentWins => "the agent wins against any virus (perfect play)".into(),
    };
    format!("{}: {verdict} ({} positions, {:.2} ms)\n", s.map, s.positions, s.millis)
}

fn painters(args: PaintersArgs, out: &mut dyn Write) -> Result<i32> {
    let (name, text) = match args.file.as_deref() {
        None | Some("-") => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Error::Io { context: "failed to read stdin".into(), source: e })?;
            ("stdin".to_string(), text)
        }
        Some(path) => (
            path.to_string(),
            crate::game::read_input(path.as_ref()).map_err(|e| Error::read(path, e))?,
        ),
    };
    let answers = solve_input(&name, &text)?;
    if args.stats {
        painters_stats(&answers);
    }
    print(out, &if args.json { json(&answers) } else { painters_text(&answers) })?;
    Ok(exit::OK)
}

fn painters_text(answers: &Answers) -> String {
    answers.cases.iter().map(|c| format!("Case #{}: {}\n", c.case, c.value)).collect()
}

fn painters_stats(answers: &Answers) {
    for c in &answers.cases {
        eprintln!(
            "case {}: S={} value {}: {} nodes, {} path nodes, {} table hits, {:.3} ms",
            c.case, c.size, c.value, c.nodes, c.path_nodes, c.table_hits, c.millis
        );
    }
    eprintln!("{} cases in {:.3} ms", answers.cases.len(), answers.millis);
}

/// `--path`'s notation, with errors about the argument rather than a map file.
fn parse_path_argument(notation: &str) -> Result<crate::games::spiders::SpiderMap> {
    if notation.trim().is_empty() {
        return Err(Error::Usage(
            "argument `--path`: empty (expected a path such as `F B S B F`)".into(),
        ));
    }
    let usage =
        |message: String| Error::Usage(format!("argument `--path` `{notation}`: {message}"));
    parse_map("--path", notation).map_err(|e| match e {
        crate::game::SetupError::Map { message, .. } => usage(message),
        other => usage(other.to_string()),
    })
}

fn spiders(args: SpidersArgs, out: &mut dyn Write) -> Result<i32> {
    let map_text = match (&args.map, &args.path) {
        (Some(path), _) => read_map(path)?,
        (None, Some(notation)) => MapText { name: "--path".into(), text: notation.clone() },
        (None, None) => unreachable!("clap requires --map or --path"),
    };
    let mut options = std::collections::BTreeMap::new();
    for kv in &args.options {
        let (k, v) = super::key_value(kv, "--opt")?;
        options.insert(k, v);
    }
    let options = Spiders::options(&options)?;
    let map = match (&args.map, &args.path) {
        (None, Some(notation)) => parse_path_argument(notation)?,
        _ => parse_map(&map_text.name, &map_text.text)?,
    };
    let policy = match args.spiders {
        SpiderPlay::Optimal => Policy::Optimal,
        SpiderPlay::Greedy => Policy::Greedy,
    };
    let time = Duration::from_millis(args.time_ms);
    let report = crate::games::spiders::solve::solve(&map_text.name, &map, options, policy, time)?;
    print(out, &if args.json { json(&report) } else { spiders_text(&report) })?;
    // A verdict the search could not reach in its time is "undecided", as for `arena sprt`.
    Ok(if report.verdict == Verdict::Unknown { exit::UNDECIDED } else { exit::OK })
}

fn spiders_text(r: &Report) -> String {
    let against = match r.against {
        Policy::Optimal => "perfect spiders",
        Policy::Greedy => "greedy spiders",
    };
    let searched = format!("searched {} positions in {:.3} s\n", r.positions, r.seconds);
    match &r.verdict {
        Verdict::AlreadyWon => {
            "defender wins: no spider can reach a fly (no move needed)\n".to_string()
        }
        Verdict::Unknown => format!(
            "unknown: the search ran out of time after {} ms ({} positions)\n",
            r.time_limit_ms, r.positions
        ),
        Verdict::DefenderWins { first_move: [a, b] } => {
            format!("defender wins against {against}\nwinning first move: {a} {b}\n{searched}")
        }
        Verdict::SpidersWin { example } => {
            let mut s = format!("spiders win against every defence ({against})\n");
            if let Some(e) = example {
                let [a, b] = e.cut;
                s += &format!("for example, after {a} {b} the spiders answer: {}\n", e.reply);
            }
            s + &searched
        }
    }
}
