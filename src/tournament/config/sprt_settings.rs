//! The SPRT's settings, defined once: [`SprtSettings`] is the arena file's `[sprt]` table (serde)
//! and `arena sprt`'s flags (clap) alike, the flags go over the table with [`SprtSettings::or`],
//! and [`SprtSettings::check`] turns the result into the test arena plays ([`SprtConfig`]: bot
//! indices, defaults filled in), as `LimitOverrides` does for time limits.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::registry::GameDef;
use crate::seed::sprt_map_seed;

use super::super::schedule::paired_configs;
use super::super::stats::gsprt::EloModel;
use super::ArenaBot;
use super::error::{ConfigError, Problem};

/// The largest |elo0| or |elo1| a test accepts: far beyond any useful bound, and short of the
/// scores of 0 and 1 where the hypotheses stop being distributions.
pub(crate) const MAX_SPRT_ELO: f64 = 1000.0;

/// The most pairs an SPRT may play (`sprt.max_pairs`).
pub(crate) const MAX_SPRT_PAIRS: u64 = 10_000_000;

/// The error rates when the settings do not give them.
const DEFAULT_ERROR_RATE: f64 = 0.05;

/// The pairs a test plays without `max_pairs`.
const DEFAULT_MAX_PAIRS: u64 = 100_000;

/// A sequential test's settings as the user gives them, in the arena file's `[sprt]` table or as
/// `arena sprt`'s flags (the same names, with dashes). Every one is optional here; what a test
/// cannot do without is named by [`SprtSettings::check`].
#[derive(Clone, Debug, Default, PartialEq, Deserialize, clap::Args)]
#[serde(deny_unknown_fields, expecting = "an [sprt] table (candidate, baseline, elo0, elo1, ...)")]
pub struct SprtSettings {
    /// The bot under test (a bot name of the arena).
    #[arg(long, value_name = "BOT")]
    pub candidate: Option<String>,
    /// The bot it is tested against (a bot name of the arena).
    #[arg(long, value_name = "BOT")]
    pub baseline: Option<String>,
    /// H0: the candidate is at most this many Elo stronger.
    #[arg(long, value_name = "ELO", allow_negative_numbers = true)]
    pub elo0: Option<f64>,
    /// H1: the candidate is at least this many Elo stronger (above elo0).
    #[arg(long, value_name = "ELO", allow_negative_numbers = true)]
    pub elo1: Option<f64>,
    /// The chance of accepting H1 when H0 holds, in (0, 0.5) (default 0.05).
    #[arg(long, value_name = "P")]
    pub alpha: Option<f64>,
    /// The chance of accepting H0 when H1 holds, in (0, 0.5) (default 0.05).
    #[arg(long, value_name = "P")]
    pub beta: Option<f64>,
    /// Stop without a verdict after this many game pairs (default 100000).
    #[arg(long, value_name = "PAIRS")]
    pub max_pairs: Option<u64>,
    /// How elo0 and elo1 are read: `normalized` (default) or `logistic`.
    #[arg(long, value_name = "MODEL")]
    pub elo_model: Option<EloModel>,
    /// `head-to-head`: candidate against baseline in role-swapped pairs (both play every role);
    /// `paired`: each against the same opponents in the same seats (default: paired when
    /// opponents are named).
    #[arg(long, value_name = "KIND")]
    pub kind: Option<SprtKindName>,
    /// A paired test's opponents, bot names of the arena (default: every bot but the candidate
    /// and the baseline).
    #[arg(long, value_name = "BOT", value_delimiter = ',')]
    pub opponents: Option<Vec<String>>,
    /// Where pairs are played: `generate` (a fresh map from the game's generator for every draw;
    /// the default where the game has one) or `cycle` (the arena's maps in turn).
    #[arg(long, value_name = "MAPS")]
    pub maps: Option<PairMapsName>,
}

/// The kinds of test, by the names the `[sprt]` table and `--kind` use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SprtKindName {
    HeadToHead,
    Paired,
}

impl std::str::FromStr for SprtKindName {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<SprtKindName, String> {
        match s {
            "head-to-head" => Ok(SprtKindName::HeadToHead),
            "paired" => Ok(SprtKindName::Paired),
            _ => Err(format!("`{s}` is not `head-to-head` or `paired`")),
        }
    }
}

/// Where a test's pairs are played, by the names the `[sprt]` table and `--maps` use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum PairMapsName {
    Generate,
    Cycle,
}

impl std::str::FromStr for PairMapsName {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<PairMapsName, String> {
        match s {
            "generate" => Ok(PairMapsName::Generate),
            "cycle" => Ok(PairMapsName::Cycle),
            _ => Err(format!("`{s}` is not `generate` or `cycle`")),
        }
    }
}

impl TryFrom<String> for PairMapsName {
    type Error = String;

    fn try_from(s: String) -> std::result::Result<PairMapsName, String> {
        s.parse()
    }
}

/// How a test pairs its games.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SprtKind {
    /// The candidate plays the baseline; a pair is one game in each seat order (role swap).
    HeadToHead,
    /// The candidate and the baseline each play the same seat against the same opponents on the
    /// same map with the same seed; a pair compares their results.
    Paired {
        /// The opponents (bot indices), in arena order.
        opponents: Vec<usize>,
    },
}

/// Where pair `j` of a test is played.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairMaps {
    /// The arena's maps in turn: draw `k` on map `k mod maps`.
    Cycle,
    /// A fresh map from the game's generator for every draw, seeded by the draw number.
    Generate { params: BTreeMap<String, String> },
}

/// A checked test of `candidate` against `baseline`: [`SprtSettings`] with the bots found and
/// every default filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct SprtConfig {
    pub kind: SprtKind,
    pub candidate: usize,
    pub baseline: usize,
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// Stop without a verdict after this many game pairs.
    pub max_pairs: u64,
    /// How elo0 and elo1 are read.
    pub elo_model: EloModel,
    pub maps: PairMaps,
}

/// What checking a test needs of the arena around it.
pub(super) struct TestContext<'a> {
    pub bots: &'a [ArenaBot],
    /// The game's roles, in seat order.
    pub roles: &'a [String],
    pub variant: &'a str,
    /// The arena's `[maps.generate]` settings, if it has them: a test's fresh maps use them.
    pub generator_params: Option<BTreeMap<String, String>>,
    /// The arena's master seed.
    pub seed: u64,
}

impl SprtSettings {
    /// `other`'s settings where it has them, else `self`'s.
    pub fn or(&self, other: &SprtSettings) -> SprtSettings {
        let o = other.clone();
        let s = self.clone();
        SprtSettings {
            candidate: o.candidate.or(s.candidate),
            baseline: o.baseline.or(s.baseline),
            elo0: o.elo0.or(s.elo0),
            elo1: o.elo1.or(s.elo1),
            alpha: o.alpha.or(s.alpha),
            beta: o.beta.or(s.beta),
            max_pairs: o.max_pairs.or(s.max_pairs),
            elo_model: o.elo_model.or(s.elo_model),
            kind: o.kind.or(s.kind),
            opponents: o.opponents.or(s.opponents),
            maps: o.maps.or(s.maps),
        }
    }

    /// The arena file's table (if any) with `flags` over it: a table of their own if the file has
    /// none and any flag is given.
    pub(super) fn over(file: Option<SprtSettings>, flags: &SprtSettings) -> Option<SprtSettings> {
        if *flags == SprtSettings::default() {
            return file;
        }
        Some(file.unwrap_or_default().or(flags))
    }

    /// The test these settings describe in the arena of `at`, or the first setting it cannot
    /// take, by its key (`sprt.elo1`).
    pub(super) fn check<D: GameDef>(self, at: TestContext<'_>) -> Result<SprtConfig, ConfigError> {
        let TestContext { bots, roles, variant, generator_params, seed } = at;
        fn given<T>(key: &str, value: Option<T>) -> Result<T, ConfigError> {
            value.ok_or_else(|| Problem::Missing.at(format!("sprt.{key}")))
        }
        let find = |key: &str, name: &str| {
            bots.iter()
                .position(|b| b.name == name)
                .ok_or_else(|| Problem::NoSuchBot(name.to_string()).at(format!("sprt.{key}")))
        };
        let candidate = find("candidate", &given("candidate", self.candidate)?)?;
        let baseline = find("baseline", &given("baseline", self.baseline)?)?;
        let (elo0, elo1) = (given("elo0", self.elo0)?, given("elo1", self.elo1)?);
        let alpha = self.alpha.unwrap_or(DEFAULT_ERROR_RATE);
        let beta = self.beta.unwrap_or(DEFAULT_ERROR_RATE);
        if candidate == baseline {
            return Err(Problem::BaselineIsCandidate.at("sprt.baseline"));
        }
        let kind_name = match (self.kind, &self.opponents) {
            (Some(k), _) => k,
            (None, Some(_)) => SprtKindName::Paired,
            (None, None) => SprtKindName::HeadToHead,
        };
        let kind = match kind_name {
            SprtKindName::HeadToHead => {
                if self.opponents.is_some() {
                    return Err(Problem::OpponentsOfHeadToHead.at("sprt.opponents"));
                }
                if roles.len() != 2 {
                    return Err(Problem::HeadToHeadSeats(roles.len()).at("sprt"));
                }
                for (key, i) in [("candidate", candidate), ("baseline", baseline)] {
                    if bots[i].roles.len() != roles.len() {
                        let problem = Problem::MustPlayEveryRole {
                            bot: bots[i].name.clone(),
                            roles: roles.to_vec(),
                        };
                        return Err(problem.at(format!("sprt.{key}")));
                    }
                }
                SprtKind::HeadToHead
            }
            SprtKindName::Paired => {
                let opponents = paired_opponents(self.opponents, bots, candidate, baseline, find)?;
                let bot_roles: Vec<Vec<String>> = bots.iter().map(|b| b.roles.clone()).collect();
                let configs = paired_configs(candidate, &opponents, &bot_roles, roles);
                if configs.is_empty() {
                    let problem = Problem::SeatsUnfilled {
                        candidate: bots[candidate].name.clone(),
                        roles: roles.to_vec(),
                    };
                    return Err(problem.at("sprt.opponents"));
                }
                for seats in &configs {
                    let seat =
                        seats.iter().position(|&b| b == candidate).expect("the candidate sits");
                    if !bots[baseline].roles.contains(&roles[seat]) {
                        let problem = Problem::BaselineMissesRole {
                            baseline: bots[baseline].name.clone(),
                            role: roles[seat].clone(),
                            candidate: bots[candidate].name.clone(),
                        };
                        return Err(problem.at("sprt.baseline"));
                    }
                }
                SprtKind::Paired { opponents }
            }
        };
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(Problem::EloOrder { elo0, elo1 }.at("sprt.elo1"));
        }
        for (key, v) in [("elo0", elo0), ("elo1", elo1)] {
            if v.abs() > MAX_SPRT_ELO {
                return Err(Problem::EloBeyondRange(v).at(format!("sprt.{key}")));
            }
        }
        for (key, v) in [("alpha", alpha), ("beta", beta)] {
            if !(v > 0.0 && v < 0.5) {
                return Err(Problem::ErrorRate(v).at(format!("sprt.{key}")));
            }
        }
        let max_pairs = match self.max_pairs {
            None => DEFAULT_MAX_PAIRS,
            Some(0) => return Err(Problem::NoPairs.at("sprt.max_pairs")),
            Some(n) if n > MAX_SPRT_PAIRS => {
                return Err(Problem::TooManyPairs(n).at("sprt.max_pairs"));
            }
            Some(n) => n,
        };
        // Fresh generated maps where the game has a generator: a pool that cycles repeats itself.
        let params = generator_params.unwrap_or_default();
        let can_generate = D::generate_map(variant, &params, sprt_map_seed(seed, 0));
        let maps = match (self.maps, can_generate) {
            (Some(PairMapsName::Cycle), _) | (None, Err(_)) => PairMaps::Cycle,
            (Some(PairMapsName::Generate) | None, Ok(_)) => PairMaps::Generate { params },
            (Some(PairMapsName::Generate), Err(e)) => {
                return Err(Problem::Setup(e).at("sprt.maps"));
            }
        };
        Ok(SprtConfig {
            kind,
            candidate,
            baseline,
            elo0,
            elo1,
            alpha,
            beta,
            max_pairs,
            elo_model: self.elo_model.unwrap_or_default(),
            maps,
        })
    }
}

/// A paired test's opponents by index, in arena order: the named ones, or every bot but the
/// candidate and the baseline.
fn paired_opponents(
    named: Option<Vec<String>>,
    bots: &[ArenaBot],
    candidate: usize,
    baseline: usize,
    find: impl Fn(&str, &str) -> Result<usize, ConfigError>,
) -> Result<Vec<usize>, ConfigError> {
    let opponents: Vec<usize> = match named {
        Some(names) => {
            let mut found = Vec::new();
            for name in &names {
                let i = find("opponents", name)?;
                if i == candidate || i == baseline {
                    return Err(Problem::OpponentUnderTest(name.clone()).at("sprt.opponents"));
                }
                if found.contains(&i) {
                    return Err(Problem::OpponentTwice(name.clone()).at("sprt.opponents"));
                }
                found.push(i);
            }
            found.sort_unstable();
            found
        }
        None => (0..bots.len()).filter(|&i| i != candidate && i != baseline).collect(),
    };
    if opponents.is_empty() {
        return Err(Problem::NoOpponents.at("sprt.opponents"));
    }
    Ok(opponents)
}
