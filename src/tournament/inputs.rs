//! The inputs that decide a run's results, written out field by field, and their fingerprint.
//!
//! A results folder may be resumed or merged only with rows of the same inputs, so the
//! fingerprint must change exactly when a result could: not when a type elsewhere gains a field,
//! not with the concurrency or the output folder. So it is not a serialization of the arena:
//! [`RunInputs`] lists the inputs here, each by its own name, and a change to this list is a
//! change of [`INPUTS_VERSION`]. They come in two parts, so a change can be named and a later
//! league can keep the matches a change does not touch:
//!
//! - the **plan** ([`PlanInputs`]): the game, its variant and options, the roles, every map (name
//!   and content), the format (a gauntlet's candidate by name), the games per pairing and the
//!   master seed;
//! - each **bot** ([`BotInputs`]): its name, spec, the roles it plays, what it runs (the hashes of
//!   the files its spec names, or the arena version of a built-in bot), its time limits as they
//!   apply (the game's defaults, the arena's `[limits]`, its own), and a hash of its `external`
//!   settings that change what the bot does (see [`external_digest`]).
//!
//! Each part has a fingerprint of its own; the run's fingerprint is that of the version, the
//! plan's part and the bots' parts in arena order. `meta.json` keeps the inputs in clear (the
//! `external` settings as their hash: an `env` may hold secrets), so a refused resume says what
//! changed, and `arena merge` rebuilds the schedule to check every row against it.
//! `docs/tournaments.md` ("Resume") documents the list; the golden test
//! `the_shipped_arenas_keep_their_fingerprints` pins the parts of every shipped arena.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::bot_files::{BotFile, BotFingerprint};
use super::config::Arena;
use super::results::matches::{IdSet, MatchRow};
use super::schedule::{Format, Plan, Planned, Schedule, Shard};
use crate::bot::external::ExternalOptions;
use crate::bot::{BotSpec, TimeLimits};
use crate::registry::GameDef;
use crate::seed::SeedKey;

/// The version of the list of inputs: a change to what [`RunInputs`] holds, or to how it is
/// hashed, or to what they plan, is a new version (and a new results format). 2: match ids are
/// drawn from each match's identity (its game and its seats' bots by name), not from positions
/// in the bot list. 3: match seeds are drawn with the folder's secret key, whose id the plan
/// records (`seed_key`).
pub(crate) const INPUTS_VERSION: u32 = 3;

/// Everything that decides a run's results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInputs {
    /// [`INPUTS_VERSION`] when written.
    pub version: u32,
    pub plan: PlanInputs,
    /// In arena order: a bot's index is its place here.
    pub bots: Vec<BotInputs>,
}

/// The plan's part: what every match shares, and what decides who meets where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanInputs {
    pub game: String,
    pub variant: String,
    pub options: BTreeMap<String, String>,
    /// The game's roles, in seat order.
    pub roles: Vec<String>,
    pub maps: Vec<MapInput>,
    /// `round-robin` or `gauntlet`.
    pub format: String,
    /// A gauntlet's candidate, by name (when it has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate: Option<String>,
    /// A gauntlet's candidates, by name, when it has several.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
    pub games_per_pairing: u64,
    pub seed: u64,
    /// The id of the secret key the match seeds are drawn with ([`SeedKey::id`]); absent in the
    /// inputs of an arena file alone ([`Arena::fingerprint`]), before a folder gives its key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_key: Option<String>,
    /// A league's `min_games` and `window`: they decide which matches it plays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub league: Option<[u64; 2]>,
}

/// A map: its name in results and the hash of its text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapInput {
    pub name: String,
    pub sha256: String,
}

/// One bot's part.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotInputs {
    pub name: String,
    /// The spec as the arena file gives it (`cmd:python3 bots/x.py`).
    pub spec: String,
    /// The roles it plays, in the game's role order.
    pub roles: Vec<String>,
    /// A built-in bot: the arena version it is compiled into.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena_version: Option<String>,
    /// The files the spec names and the hashes of their content.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<BotFile>,
    /// Its time limits as they apply to every seat it takes.
    pub limits: LimitInputs,
    /// [`external_digest`] of its `external` settings.
    pub external: String,
}

impl BotInputs {
    /// What the bot runs, as `arena` compares builds of a bot.
    pub(crate) fn identity(&self) -> BotFingerprint {
        BotFingerprint {
            bot: self.name.clone(),
            spec: self.spec.clone(),
            arena_version: self.arena_version.clone(),
            files: self.files.clone(),
        }
    }
}

/// Time limits as they apply, in ms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitInputs {
    pub first_turn_ms: u64,
    pub turn_ms: u64,
    pub grace_ms: u64,
    pub bank_ms: u64,
    /// `cpu` or `wall`.
    pub clock: String,
    /// The wall-clock cap of a CPU-clock turn; absent: the default of the turn's limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_cap_ms: Option<u64>,
}

impl LimitInputs {
    fn of(l: &TimeLimits) -> LimitInputs {
        let ms = |d: std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        LimitInputs {
            first_turn_ms: ms(l.first_turn),
            turn_ms: ms(l.per_turn),
            grace_ms: ms(l.grace),
            bank_ms: ms(l.bank),
            clock: l.clock.as_str().to_string(),
            wall_cap_ms: l.wall_cap.map(ms),
        }
    }
}

/// The first 16 hex digits of the SHA-256 of a value's compact JSON (struct fields in
/// declaration order, maps in key order: the same value always gives the same text).
fn digest(value: &impl Serialize) -> String {
    let text = serde_json::to_vec(value).expect("inputs serialize");
    hex(&Sha256::digest(&text))[..16].to_string()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The hash of the `external` settings that change what a bot does or how it is held during a
/// match. Every field is named, so a field added to [`ExternalOptions`] does not compile here
/// until it is placed: in the hash (it can change a result: then raise [`INPUTS_VERSION`]) or
/// left out with its reason.
pub(crate) fn external_digest(external: &ExternalOptions) -> String {
    let ExternalOptions {
        max_line,
        // What is kept of stderr for the record, not what the bot does.
        stderr_lines: _,
        stderr_turn_bytes: _,
        stderr_match_bytes: _,
        workdir,
        sandbox,
        files,
        network,
        max_processes,
        // After the end of the match: how long a bot has to exit.
        kill_grace_ms: _,
        address_space_mb,
        memory_mb,
        cpu_seconds,
        ponder,
        // Whether a crash leaves a core file, not whether it crashes.
        core_dumps: _,
        env,
    } = external;
    #[derive(Serialize)]
    struct Held<'a> {
        max_line: usize,
        workdir: Option<&'a std::path::Path>,
        sandbox: Option<&'static str>,
        files: &'a [std::path::PathBuf],
        network: bool,
        max_processes: u32,
        address_space_mb: Option<u64>,
        // Left out while unset, so that the digests of arenas that do not use them stay.
        #[serde(skip_serializing_if = "Option::is_none")]
        memory_mb: Option<u64>,
        cpu_seconds: Option<u64>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        ponder: bool,
        env: &'a BTreeMap<String, String>,
    }
    digest(&Held {
        max_line: *max_line,
        workdir: workdir.as_deref(),
        sandbox: sandbox.map(crate::bot::external::SandboxMode::as_str),
        files,
        network: *network,
        max_processes: *max_processes,
        address_space_mb: *address_space_mb,
        memory_mb: *memory_mb,
        cpu_seconds: *cpu_seconds,
        ponder: *ponder,
        env,
    })
}

impl RunInputs {
    /// The inputs of a validated arena.
    pub fn of(arena: &Arena) -> RunInputs {
        let defaults = crate::with_game!(arena.game, D => D::default_limits(&arena.variant));
        let plan = PlanInputs {
            game: arena.game.to_string(),
            variant: arena.variant.clone(),
            options: arena.options.clone(),
            roles: arena.roles.clone(),
            maps: arena
                .maps
                .iter()
                .map(|m| MapInput { name: m.name.clone(), sha256: hex(&Sha256::digest(&m.text)) })
                .collect(),
            format: match arena.format {
                _ if arena.league.is_some() => "league",
                Format::RoundRobin => "round-robin",
                Format::Gauntlet { .. } => "gauntlet",
            }
            .to_string(),
            candidate: match &arena.format {
                Format::Gauntlet { candidates } if candidates.len() == 1 => {
                    Some(arena.bots[candidates[0]].name.clone())
                }
                _ => None,
            },
            candidates: match &arena.format {
                Format::Gauntlet { candidates } if candidates.len() > 1 => {
                    candidates.iter().map(|&c| arena.bots[c].name.clone()).collect()
                }
                _ => Vec::new(),
            },
            games_per_pairing: arena.games_per_pairing,
            seed: arena.seed,
            seed_key: None,
            league: arena.league.map(|l| [l.min_games, l.window]),
        };
        let bots = arena
            .bots
            .iter()
            .map(|b| {
                let limits = arena.limits.or(&b.limits).apply(defaults);
                BotInputs {
                    name: b.name.clone(),
                    spec: b.spec.to_string(),
                    roles: b.roles.clone(),
                    arena_version: b.files.arena_version.clone(),
                    files: b.files.files.clone(),
                    limits: LimitInputs::of(&limits),
                    external: match b.spec {
                        // A built-in bot runs in arena's process: no settings of its own.
                        BotSpec::Builtin(_) => String::new(),
                        _ => external_digest(&b.external),
                    },
                }
            })
            .collect();
        RunInputs { version: INPUTS_VERSION, plan, bots }
    }

    /// These inputs, their match seeds drawn with `key`.
    pub(crate) fn keyed(mut self, key: &SeedKey) -> RunInputs {
        self.plan.seed_key = Some(key.id());
        self
    }

    /// The fingerprint of the plan's part.
    pub fn plan_fingerprint(&self) -> String {
        digest(&(self.version, &self.plan))
    }

    /// The fingerprint of bot `i`'s part.
    pub fn bot_fingerprint(&self, i: usize) -> String {
        digest(&(self.version, &self.bots[i]))
    }

    /// The run's fingerprint: the version, the plan's part and every bot's, in arena order.
    pub fn fingerprint(&self) -> String {
        let bots: Vec<(&str, String)> = (0..self.bots.len())
            .map(|i| (self.bots[i].name.as_str(), self.bot_fingerprint(i)))
            .collect();
        digest(&(self.version, self.plan_fingerprint(), bots))
    }

    /// The schedule these inputs plan, its seeds drawn with `key`: the same as the arena's
    /// they were made from.
    pub(crate) fn schedule(&self, key: &SeedKey) -> Schedule {
        let mut candidates: Vec<usize> = self
            .plan
            .candidate
            .iter()
            .chain(&self.plan.candidates)
            .filter_map(|c| self.bots.iter().position(|b| b.name == *c))
            .collect();
        candidates.sort_unstable();
        let format = if candidates.is_empty() {
            Format::RoundRobin
        } else {
            Format::Gauntlet { candidates }
        };
        let bot_roles: Vec<Vec<String>> = self.bots.iter().map(|b| b.roles.clone()).collect();
        let names: Vec<String> = self.bots.iter().map(|b| b.name.clone()).collect();
        Schedule::new(Plan {
            format: &format,
            names: &names,
            roles: &self.plan.roles,
            bot_roles: &bot_roles,
            games_per_pairing: self.plan.games_per_pairing,
            maps: self.plan.maps.len(),
            seed: self.plan.seed,
            key,
        })
    }

    /// How a recorded row differs from match `m`, the match its id plans (its game number, each
    /// seat's role and bot, its map, its seed), if it does: a row edited or moved between folders
    /// must not be counted as the match it names. Resume and merge both ask this.
    pub(crate) fn row_differs(&self, m: &Planned, row: &MatchRow) -> Option<String> {
        self.row_differs_on(m, Some(&self.plan.maps[m.map].name), row)
    }

    /// [`RunInputs::row_differs`] with the map's name given (`None`: not checked — an SPRT's
    /// generated map, named by the generator).
    pub(crate) fn row_differs_on(
        &self,
        m: &Planned,
        map: Option<&str>,
        row: &MatchRow,
    ) -> Option<String> {
        if row.game != m.game {
            return Some(format!(
                "is recorded as game {}, but its id plans game {}",
                row.game, m.game
            ));
        }
        for (seat, (recorded, &bot)) in row.seats.iter().zip(&m.seats).enumerate() {
            let (role, name) = (&self.plan.roles[seat], &self.bots[bot].name);
            if recorded.role != *role || recorded.bot != *name {
                return Some(format!(
                    "is recorded with `{}` as {} in seat {seat}, but its id plans `{name}` as \
                     {role}",
                    recorded.bot, recorded.role
                ));
            }
        }
        if let Some(map) = map
            && row.map != map
        {
            return Some(format!("is recorded on map `{}`, but its id plans `{map}`", row.map));
        }
        if row.seed != m.seed {
            return Some(format!(
                "is recorded with seed {}, but its id plans {}",
                row.seed, m.seed
            ));
        }
        None
    }

    /// What differs between `old` (a folder's) and these inputs, one line each: the plan's
    /// settings, bots added or gone, and per bot what changed. Empty when nothing does.
    pub(crate) fn changes_from(&self, old: &RunInputs) -> Vec<Change> {
        let mut changes = Vec::new();
        if old.version != self.version {
            changes.push(Change::Version { old: old.version, new: self.version });
        }
        let (o, n) = (&old.plan, &self.plan);
        let plan = [
            ("game", o.game != n.game),
            ("variant", o.variant != n.variant),
            ("options", o.options != n.options),
            ("roles", o.roles != n.roles),
            ("maps", o.maps != n.maps),
            (
                "format",
                (&o.format, &o.candidate, &o.candidates)
                    != (&n.format, &n.candidate, &n.candidates),
            ),
            ("games_per_pairing", o.games_per_pairing != n.games_per_pairing),
            ("seed", o.seed != n.seed),
            ("seed_key", o.seed_key != n.seed_key),
        ];
        for (setting, differs) in plan {
            if differs {
                changes.push(Change::Plan(setting));
            }
        }
        for b in &self.bots {
            match old.bots.iter().find(|o| o.name == b.name) {
                None => changes.push(Change::BotAdded(b.name.clone())),
                Some(o) if o != b => {
                    let what: Vec<&'static str> = [
                        ("spec", o.spec != b.spec),
                        ("roles", o.roles != b.roles),
                        ("files", (&o.arena_version, &o.files) != (&b.arena_version, &b.files)),
                        ("limits", o.limits != b.limits),
                        ("external", o.external != b.external),
                    ]
                    .into_iter()
                    .filter_map(|(what, differs)| differs.then_some(what))
                    .collect();
                    changes.push(Change::Bot { name: b.name.clone(), what });
                }
                Some(_) => {}
            }
        }
        for o in &old.bots {
            if !self.bots.iter().any(|b| b.name == o.name) {
                changes.push(Change::BotGone(o.name.clone()));
            }
        }
        let order = |bots: &[BotInputs]| bots.iter().map(|b| b.name.clone()).collect::<Vec<_>>();
        if changes.is_empty() && order(&old.bots) != order(&self.bots) {
            changes.push(Change::BotOrder);
        }
        changes
    }
}

/// Checks the rows of a folder against the plan they claim to belong to: the one check of a
/// resume and of a merge, so both refuse a row with the same words.
pub(crate) struct RowCheck<'a> {
    inputs: &'a RunInputs,
    schedule: Schedule,
    /// The schedule's indices of the rows counted.
    seen: IdSet,
}

impl<'a> RowCheck<'a> {
    /// A check of rows of the plan of `inputs`, played with `key`.
    pub(crate) fn new(inputs: &'a RunInputs, key: &SeedKey) -> RowCheck<'a> {
        let schedule = inputs.schedule(key);
        let seen = IdSet::new(schedule.total());
        RowCheck { inputs, schedule, seen }
    }

    /// The schedule the rows are checked against.
    pub(crate) fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Why `row`, read from a folder of `shard`, cannot be counted as the match its game and
    /// seats name (the error's message), or `None` when it can; a row counted once is a
    /// duplicate after.
    pub(crate) fn problem(&mut self, shard: Shard, row: &MatchRow) -> Option<String> {
        let id = row.id;
        let seats: Vec<&str> = row.seats.iter().map(|s| s.bot.as_str()).collect();
        let described: Vec<String> = row
            .seats
            .iter()
            .enumerate()
            .map(|(seat, s)| format!("`{}` as {} in seat {seat}", s.bot, s.role))
            .collect();
        let described = described.join(", ");
        let problem = match self.schedule.find(row.game, &seats) {
            None => Some(format!(
                "is not in the schedule: the plan has no game {} with {described}",
                row.game
            )),
            Some(index) if !self.schedule.shard_holds(shard, index) => {
                Some(format!("is not in shard {shard}"))
            }
            Some(index) => {
                let m = self.schedule.get(index);
                if m.id != id {
                    Some(format!(
                        "is recorded with game {} and {described}: that is match {}, not the \
                         one its id plans",
                        row.game, m.id
                    ))
                } else if !self.seen.insert(index) {
                    Some("is recorded more than once".to_string())
                } else {
                    self.inputs.row_differs(&m, row)
                }
            }
        };
        problem.map(|p| {
            format!(
                "match {id} {p}: the row is not this plan's (edited, or copied from another \
                 folder); rerun with --fresh to start over"
            )
        })
    }

    pub(crate) fn into_seen(self) -> IdSet {
        self.seen
    }
}

impl Arena {
    /// The fingerprint of everything that decides the results (not the concurrency or the output
    /// folder), the content of the bots' files included: resuming or merging checks it, so rows
    /// of different configs or of different builds of a bot never mix. What goes in is
    /// [`RunInputs`], in two parts, the plan's and each bot's.
    pub fn fingerprint(&self) -> String {
        RunInputs::of(self).fingerprint()
    }
}

/// One difference between two runs' inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    Version {
        old: u32,
        new: u32,
    },
    /// A setting of the plan (`seed`, `maps`, ...).
    Plan(&'static str),
    BotAdded(String),
    BotGone(String),
    /// A bot's part: which of `spec`, `roles`, `files`, `limits`, `external`.
    Bot {
        name: String,
        what: Vec<&'static str>,
    },
    /// The same bots in another order (match ids follow the order).
    BotOrder,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Change::Version { old, new } => write!(f, "inputs version {old}, now {new}"),
            Change::Plan(setting) => write!(f, "`{setting}` changed"),
            Change::BotAdded(name) => write!(f, "bot `{name}` added"),
            Change::BotGone(name) => write!(f, "bot `{name}` removed"),
            Change::Bot { name, what } => write!(f, "bot `{name}`: {} changed", what.join(", ")),
            Change::BotOrder => write!(f, "the bots are listed in another order"),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::tournament::config::Files;

    const ARENA: &str = r#"
name = "t"
game = "skynet"
seed = 7
games_per_pairing = 2
[maps]
generate = { seeds = [3, 4], params = { nodes = 12 } }
[[bots]]
name = "a"
spec = "random"
[[bots]]
name = "b"
spec = "greedy"
roles = ["virus"]
limits = { turn_ms = 50 }
"#;

    fn inputs(text: &str) -> RunInputs {
        let arena =
            Arena::parse(text, Path::new("t.toml"), &Files::Disk(PathBuf::new())).expect("valid");
        RunInputs::of(&arena)
    }

    #[test]
    fn each_part_changes_with_its_own_inputs_and_nothing_else() {
        let base = inputs(ARENA);
        assert_eq!(base.fingerprint(), inputs(ARENA).fingerprint(), "stable");
        // Settings that change no result.
        for unrelated in
            ["concurrency = 3", "output = \"elsewhere\"", "replays = \"all\"", "analysis = true"]
        {
            let other = inputs(&ARENA.replace("seed = 7", &format!("seed = 7\n{unrelated}")));
            assert_eq!(other, base, "{unrelated}");
        }
        // The seed is the plan's: every bot's part stays.
        let seeded = inputs(&ARENA.replace("seed = 7", "seed = 8"));
        assert_ne!(seeded.plan_fingerprint(), base.plan_fingerprint());
        assert_eq!(seeded.bot_fingerprint(0), base.bot_fingerprint(0));
        assert_ne!(seeded.fingerprint(), base.fingerprint());
        assert_eq!(seeded.changes_from(&base), vec![Change::Plan("seed")]);
        // A bot's limit is its own: the plan's part and the other bot's stay.
        let slower = inputs(&ARENA.replace("turn_ms = 50", "turn_ms = 60"));
        assert_eq!(slower.plan_fingerprint(), base.plan_fingerprint());
        assert_eq!(slower.bot_fingerprint(0), base.bot_fingerprint(0));
        assert_ne!(slower.bot_fingerprint(1), base.bot_fingerprint(1));
        assert_eq!(
            slower.changes_from(&base),
            vec![Change::Bot { name: "b".into(), what: vec!["limits"] }]
        );
        assert_eq!(slower.bots[1].limits.turn_ms, 60);
        // The arena's limits apply to every bot that does not set its own.
        let arena_limits = inputs(&format!("{ARENA}[limits]\nfirst_turn_ms = 900\n"));
        assert_eq!(arena_limits.bots[0].limits.first_turn_ms, 900);
        assert_eq!(arena_limits.plan_fingerprint(), base.plan_fingerprint());
        // A bot added is named, and the others keep their parts.
        let more = inputs(&format!("{ARENA}[[bots]]\nname = \"c\"\nspec = \"solver\"\n"));
        assert_eq!(more.changes_from(&base), vec![Change::BotAdded("c".into())]);
        assert_eq!(more.bot_fingerprint(1), base.bot_fingerprint(1));
        assert_eq!(base.changes_from(&more), vec![Change::BotGone("c".into())]);
    }

    /// The fingerprints of every shipped arena, part by part, pinned in
    /// `tests/data/fingerprints.txt`: a field added to a type elsewhere, or a refactoring of the
    /// config, must not change them (every folder written before would stop resuming). The
    /// bots' programs are not read (`cmd:` interpreters differ between machines) and a built-in
    /// bot's arena version is pinned, so the table holds on any machine and any version; both
    /// are inputs all the same. A deliberate change of the inputs raises [`INPUTS_VERSION`] and
    /// rewrites the table: `ARENA_FINGERPRINTS_WRITE=1 cargo test --lib shipped_arenas`.
    #[test]
    fn the_shipped_arenas_keep_their_fingerprints() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut arenas: Vec<PathBuf> = std::fs::read_dir(root.join("arenas"))
            .expect("arenas/")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        arenas.sort();
        assert!(arenas.len() >= 10, "{arenas:?}");
        let mut table = String::from(
            "# The fingerprints of the shipped arenas (src/tournament/inputs.rs, golden test).\n",
        );
        for path in &arenas {
            let text = std::fs::read_to_string(path).expect("an arena file");
            let arena = Arena::parse_unprepared(&text, path, &Files::Disk(root.join("arenas")))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mut inputs = RunInputs::of(&arena);
            for bot in &mut inputs.bots {
                if bot.arena_version.is_some() {
                    bot.arena_version = Some("VERSION".into());
                }
            }
            let name = path.file_name().expect("a name").to_string_lossy();
            table += &format!("{name} plan {}\n", inputs.plan_fingerprint());
            for (i, bot) in inputs.bots.iter().enumerate() {
                table += &format!("{name} bot {} {}\n", bot.name, inputs.bot_fingerprint(i));
            }
            table += &format!("{name} run {}\n", inputs.fingerprint());
        }
        let golden = root.join("tests/data/fingerprints.txt");
        if std::env::var_os("ARENA_FINGERPRINTS_WRITE").is_some() {
            std::fs::write(&golden, &table).expect("write the table");
        }
        let pinned = std::fs::read_to_string(&golden).unwrap_or_default();
        let changed: Vec<String> = table
            .lines()
            .filter(|line| !pinned.lines().any(|p| p == *line))
            .map(String::from)
            .collect();
        assert!(
            changed.is_empty() && pinned == table,
            "fingerprints differ from tests/data/fingerprints.txt (every results folder of these \
             arenas would stop resuming): {changed:#?}"
        );
    }

    #[test]
    fn the_schedule_rebuilt_from_the_inputs_is_the_arenas() {
        let text = ARENA.replace("seed = 7", "seed = 7\nformat = \"gauntlet\"\ncandidate = \"b\"");
        let arena = Arena::parse(&text, Path::new("t.toml"), &Files::Disk(PathBuf::new())).unwrap();
        let key = SeedKey::generate().unwrap();
        let (ours, theirs) = (arena.schedule(&key), RunInputs::of(&arena).schedule(&key));
        assert_eq!(ours.total(), theirs.total());
        for id in 0..ours.total() {
            assert_eq!(ours.get(id), theirs.get(id));
        }
    }

    #[test]
    fn external_settings_that_change_nothing_are_not_in_the_hash() {
        let base = ExternalOptions::default();
        let quiet = ExternalOptions { stderr_lines: 3, kill_grace_ms: 1, ..base.clone() };
        assert_eq!(external_digest(&quiet), external_digest(&base));
        let capped = ExternalOptions { cpu_seconds: Some(5), ..base.clone() };
        assert_ne!(external_digest(&capped), external_digest(&base));
        let env = ExternalOptions {
            env: [("DEPTH".to_string(), "3".to_string())].into(),
            ..base.clone()
        };
        assert_ne!(external_digest(&env), external_digest(&base));
    }
}
