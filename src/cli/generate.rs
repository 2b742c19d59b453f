//! `arena gen GAME`: a seeded random map in the game's text format; with `--separating`, maps
//! that separate strategies ([`crate::analysis::separating`]).
//!
//! The subcommands and their flags are built from each game's settings table
//! ([`GameDef::GENERATOR`]), so `arena gen GAME --help` lists every setting with its range and
//! default, and a new game's generator needs nothing here. The game itself checks the values.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use clap::{Arg, ArgMatches, Command, FromArgMatches};

use crate::analysis::separating::{self, Search, SearchReport};
use crate::error::{Error, Result, exit};
use crate::games::GameId;
use crate::registry::{GameDef, resolve_variant};

#[derive(clap::Args, Debug)]
pub(super) struct GenArgs {
    #[command(subcommand)]
    game: GenGame,
}

/// One game's generator call: the game, its variant, the seed and the settings given.
#[derive(Debug)]
struct GenGame {
    game: GameId,
    variant: Option<String>,
    seed: u64,
    /// Only the settings on the command line: the game applies its own defaults.
    params: BTreeMap<String, String>,
    /// `--separating` and its flags, for the games that have them.
    separating: Option<Separating>,
}

/// The flags of `--separating`.
#[derive(Debug)]
struct Separating {
    against: Vec<String>,
    opponent: Option<String>,
    count: usize,
    max_candidates: u64,
    /// Candidates tried at once.
    jobs: usize,
    out: Option<PathBuf>,
    json: bool,
}

fn has_generator(game: GameId) -> bool {
    crate::with_game!(game, D => !D::GENERATOR.is_empty())
}

fn command<D: GameDef>() -> Command {
    let mut cmd = Command::new(D::NAME)
        .about(format!("A seeded random {} map ({})", D::NAME, D::SUMMARY))
        .arg(
            Arg::new("seed")
                .long("seed")
                .value_name("SEED")
                .value_parser(clap::value_parser!(u64))
                .default_value("1")
                .help("The generator's seed: the same seed and settings give the same map"),
        )
        .arg(
            Arg::new("variant")
                .long("variant")
                .value_name("VARIANT")
                .value_parser(clap::builder::PossibleValuesParser::new(D::VARIANTS))
                .help(format!("The variant [default: {}]", D::VARIANTS[0])),
        );
    for s in D::GENERATOR {
        cmd = cmd.arg(Arg::new(s.key).long(s.key).value_name("VALUE").help(format!(
            "{}: {} [default: {}]",
            capitalised(s.help),
            s.range,
            s.default
        )));
    }
    match D::NAME.parse::<GameId>() {
        Ok(game) if separating::games().contains(&game) => separating_args(cmd, game),
        _ => cmd,
    }
}

/// The flags of `--separating`, on the games with an exact solver.
fn separating_args(cmd: Command, game: GameId) -> Command {
    let (against, opponent) = separating::defaults(game).unwrap_or_default();
    let needs = |arg: Arg| arg.requires("separating");
    cmd.arg(Arg::new("separating").long("separating").action(clap::ArgAction::SetTrue).help(
        "Search generated maps for ones that separate strategies: the exact solver gives the \
         first role a value that every --against bot, playing it against --opponent, falls \
         short of (settings not given are drawn per candidate, and a setting given as LOW..HIGH \
         is drawn from that range)",
    ))
    .arg(needs(
        Arg::new("against")
            .long("against")
            .value_name("BOT")
            .num_args(1..)
            .action(clap::ArgAction::Append)
            .help(format!("Built-in bots that must fall short [default: {}]", against.join(" "))),
    ))
    .arg(needs(
        Arg::new("opponent")
            .long("opponent")
            .value_name("BOT")
            .help(format!("The built-in bot they play against [default: {opponent}]")),
    ))
    .arg(needs(
        Arg::new("count")
            .long("count")
            .value_name("N")
            .value_parser(clap::value_parser!(u64).range(1..=100_000))
            .default_value("1")
            .help("How many maps to find (more than one needs --out)"),
    ))
    .arg(needs(
        Arg::new("max-candidates")
            .long("max-candidates")
            .value_name("N")
            .value_parser(clap::value_parser!(u64).range(1..))
            .default_value("100000")
            .help("Give up after drawing this many candidates"),
    ))
    .arg(needs(
        Arg::new("concurrency")
            .short('j')
            .long("concurrency")
            .value_name("N")
            .value_parser(clap::value_parser!(u64).range(1..=1024))
            .help(
                "Candidates tried at once, one thread each [default: the number of cores]; the \
                 maps found are the same for any N",
            ),
    ))
    .arg(needs(
        Arg::new("out")
            .long("out")
            .value_name("DIR")
            .value_parser(clap::value_parser!(PathBuf))
            .help("Write each map found to DIR/<game>-separating-<candidate>.txt"),
    ))
    .arg(needs(
        Arg::new("json")
            .long("json")
            .action(clap::ArgAction::SetTrue)
            .help("Print one JSON document (the maps found, with their texts)"),
    ))
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

impl FromArgMatches for GenGame {
    fn from_arg_matches(matches: &ArgMatches) -> std::result::Result<Self, clap::Error> {
        let Some((name, sub)) = matches.subcommand() else {
            return Err(clap::Error::new(clap::error::ErrorKind::MissingSubcommand));
        };
        let game: GameId = name
            .parse()
            .map_err(|_| clap::Error::new(clap::error::ErrorKind::InvalidSubcommand))?;
        let settings = crate::with_game!(game, D => D::GENERATOR);
        let params = settings
            .iter()
            .filter_map(|s| sub.get_one::<String>(s.key).map(|v| (s.key.to_string(), v.clone())))
            .collect();
        let flag = |name: &str| sub.try_get_one::<bool>(name).ok().flatten() == Some(&true);
        let separating = flag("separating").then(|| Separating {
            against: sub.get_many::<String>("against").into_iter().flatten().cloned().collect(),
            opponent: sub.get_one::<String>("opponent").cloned(),
            count: *sub.get_one::<u64>("count").expect("a default") as usize,
            max_candidates: *sub.get_one::<u64>("max-candidates").expect("a default"),
            jobs: sub
                .get_one::<u64>("concurrency")
                .map_or_else(crate::tournament::machine_load::cores, |&j| j as usize),
            out: sub.get_one::<PathBuf>("out").cloned(),
            json: flag("json"),
        });
        Ok(GenGame {
            game,
            variant: sub.get_one::<String>("variant").cloned(),
            seed: *sub.get_one::<u64>("seed").expect("the seed has a default"),
            params,
            separating,
        })
    }

    fn update_from_arg_matches(
        &mut self,
        matches: &ArgMatches,
    ) -> std::result::Result<(), clap::Error> {
        *self = GenGame::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Subcommand for GenGame {
    fn augment_subcommands(cmd: Command) -> Command {
        let cmd = cmd.subcommand_required(true);
        GameId::ALL
            .iter()
            .filter(|&&g| has_generator(g))
            .fold(cmd, |cmd, &g| cmd.subcommand(crate::with_game!(g, D => command::<D>())))
    }

    fn augment_subcommands_for_update(cmd: Command) -> Command {
        GenGame::augment_subcommands(cmd)
    }

    fn has_subcommand(name: &str) -> bool {
        name.parse::<GameId>().is_ok_and(has_generator)
    }
}

pub(super) fn run(args: GenArgs, out: &mut dyn Write) -> Result<i32> {
    let GenGame { game, variant, seed, params, separating } = args.game;
    if let Some(sep) = separating {
        let search = Search {
            game,
            variant,
            fixed: params,
            against: sep.against.clone(),
            opponent: sep.opponent.clone(),
            count: sep.count,
            seed,
            max_candidates: sep.max_candidates,
            jobs: sep.jobs,
        };
        return run_separating(&search, &sep, out);
    }
    let map = crate::with_game!(game, D => {
        let variant = resolve_variant::<D>(variant.as_deref())?;
        D::generate_map(&variant, &params, seed)?
    });
    out.write_all(map.text.as_bytes()).map_err(Error::stdout)?;
    Ok(exit::OK)
}

/// `--separating`: searches, writes the maps found, and reports them.
fn run_separating(search: &Search, sep: &Separating, out: &mut dyn Write) -> Result<i32> {
    if search.count > 1 && sep.out.is_none() {
        return Err(Error::Usage("--count above 1 needs --out DIR to write the maps to".into()));
    }
    if let Some(dir) = &sep.out {
        std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
    }
    let report = separating::search(search, |tried, found| {
        if tried % 50 == 0 {
            eprint!("\r{tried} candidates, {found} found");
        }
    })?;
    let p = &report.passed_over;
    eprintln!(
        "\r{} candidates, {} found; passed over: {} refused by the generator, {} unsettled, {} \
         lost for the first role, {} where a named bot reached the value",
        report.candidates,
        report.found.len(),
        p.refused,
        p.unsettled,
        p.lost,
        p.bot_reached
    );
    if let Some(dir) = &sep.out {
        for f in &report.found {
            let path = dir.join(&f.map.name);
            std::fs::write(&path, &f.map.text).map_err(|e| Error::write(&path, e))?;
        }
    }
    let text = if sep.json {
        format!("{}\n", serde_json::to_string(&report).expect("a report serializes"))
    } else if let Some(dir) = &sep.out {
        separating_text(&report, dir)
    } else {
        report.found.iter().map(|f| f.map.text.clone()).collect()
    };
    out.write_all(text.as_bytes()).map_err(Error::stdout)?;
    if report.found.len() < search.count {
        // Like an SPRT that stops without a verdict: the search ran, but did not get there.
        eprintln!(
            "found {} of {} separating maps in {} candidates; allow more with --max-candidates \
             or fix fewer settings",
            report.found.len(),
            search.count,
            report.candidates
        );
        return Ok(exit::UNDECIDED);
    }
    Ok(exit::OK)
}

fn separating_text(r: &SearchReport, dir: &std::path::Path) -> String {
    let mut s = String::new();
    for f in &r.found {
        let results: Vec<String> =
            f.results.iter().map(|b| format!("{} scores {}", b.bot, b.score)).collect();
        s += &format!(
            "{}: {} ({})\n",
            dir.join(&f.map.name).display(),
            crate::cli::analyze::value_text(&Some(f.value.clone())),
            results.join(", ")
        );
    }
    s + &format!(
        "{} separating map(s) in {} candidates: {} as {} fall short against {}\n",
        r.found.len(),
        r.candidates,
        r.against.join(", "),
        r.role,
        r.opponent
    )
}
