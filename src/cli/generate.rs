//! `arena gen GAME`: a seeded random map in the game's text format.
//!
//! The subcommands and their flags are built from each game's settings table
//! ([`GameDef::GENERATOR`]), so `arena gen GAME --help` lists every setting with its range and
//! default, and a new game's generator needs nothing here. The game itself checks the values.

use std::collections::BTreeMap;
use std::io::Write;

use clap::{Arg, ArgMatches, Command, FromArgMatches};

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
    cmd
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
        Ok(GenGame {
            game,
            variant: sub.get_one::<String>("variant").cloned(),
            seed: *sub.get_one::<u64>("seed").expect("the seed has a default"),
            params,
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
    let GenGame { game, variant, seed, params } = args.game;
    let map = crate::with_game!(game, D => {
        let variant = resolve_variant::<D>(variant.as_deref())?;
        D::generate_map(&variant, &params, seed)?
    });
    out.write_all(map.text.as_bytes()).map_err(Error::stdout)?;
    Ok(exit::OK)
}
