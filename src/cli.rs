//! The command line: raw arguments become validated library calls here, and errors become exit
//! codes. `main.rs` only calls [`main`].

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::bot::BotSpec;
use crate::error::{Error, Result};
use crate::games::{GameDef, GameId};
use crate::matches::{LimitOverrides, MapSource, MatchSpec, PlayedMatch, Player};

#[derive(Parser, Debug)]
#[command(
    name = "arena",
    version,
    about = "A referee engine and tournament harness for turn-based graph games"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play one match and print who won, how, and in how many turns.
    Play(Box<PlayArgs>),
    /// Print a replay, or verify it against the rules with --verify.
    Replay(ReplayArgs),
    /// List the built-in bots of each game.
    Bots,
    /// Run a game's solver: `arena solve GAME ARGS...` (`arena solve GAME --help`).
    #[command(disable_help_flag = true)]
    Solve {
        game: GameId,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Run a tournament: `arena run [ARENA.toml]` (no file: the built-in default arena).
    Run(crate::tournament::RunArgs),
    /// Merge the results folders of a sharded run: `arena merge DIR...`.
    Merge(crate::tournament::MergeArgs),
    /// Test a candidate against a baseline until an SPRT decides (exit 0 = H1, 1 = H0, 3 = none).
    Sprt(crate::tournament::SprtArgs),
    /// Risk tools: `arena risk paths --board B.toml --from X --to Y [--json]`.
    #[command(disable_help_flag = true)]
    Risk {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Print a seeded random map: `arena gen GAME --seed S [--KEY VALUE]...` (e.g. --nodes 50).
    Gen {
        game: GameId,
        #[arg(long)]
        variant: Option<String>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Generator settings as `--key value` or `--key=value`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        params: Vec<String>,
    },
}

#[derive(Args, Debug)]
struct PlayArgs {
    game: GameId,
    /// The game's variant (skynet: ep2, ep1).
    #[arg(long)]
    variant: Option<String>,
    /// A map file; without it the game's embedded default map is played.
    #[arg(long, conflicts_with = "generate")]
    map: Option<PathBuf>,
    /// Play a generated map: generator settings `key=value,key=value` (the map's seed is --seed).
    #[arg(long = "gen", value_name = "KEY=VALUE,...")]
    generate: Option<String>,
    /// A bot for a role: `ROLE=SPEC`, SPEC a built-in name or `cmd:COMMAND ARGS...`. Repeatable.
    #[arg(long = "bot", value_name = "ROLE=SPEC")]
    bots: Vec<String>,
    /// A game option `KEY=VALUE`. Repeatable.
    #[arg(long = "opt", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// The match seed: the same seed gives the same match.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    external: crate::bot::process::ExternalArgs,
    /// Write the replay (JSON Lines) to this file.
    #[arg(long)]
    replay: Option<PathBuf>,
    /// Print the result as one JSON object instead of words.
    #[arg(long)]
    json: bool,
}

/// Time limit overrides, in milliseconds.
#[derive(Args, Debug, Clone, Copy)]
pub struct LimitArgs {
    /// The limit of each seat's first decision, in ms.
    #[arg(long)]
    first_turn_ms: Option<u64>,
    /// The limit of every later decision, in ms.
    #[arg(long)]
    turn_ms: Option<u64>,
    /// Slack added to every limit before an answer counts as late, in ms.
    #[arg(long)]
    grace_ms: Option<u64>,
    /// A time bank per seat, in ms.
    #[arg(long)]
    bank_ms: Option<u64>,
}

impl From<LimitArgs> for LimitOverrides {
    fn from(a: LimitArgs) -> LimitOverrides {
        LimitOverrides {
            first_turn_ms: a.first_turn_ms,
            per_turn_ms: a.turn_ms,
            grace_ms: a.grace_ms,
            bank_ms: a.bank_ms,
        }
    }
}

#[derive(Args, Debug)]
struct ReplayArgs {
    file: PathBuf,
    /// Play the actions through the rules again and check the recorded result.
    #[arg(long)]
    verify: bool,
}

/// Runs the command line; returns the exit code.
pub fn main() -> i32 {
    init_logging();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match run(cli) {
        Ok(code) => code,
        // A reader that stopped reading (`arena ... | head`) is not an error worth a word.
        Err(e) if e.is_broken_pipe() => 0,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ARENA_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ =
        tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}

fn run(cli: Cli) -> Result<i32> {
    crate::bot::process::install_interrupt_handler();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        Command::Play(args) => play(*args, &mut out),
        Command::Replay(args) => replay(args, &mut out),
        Command::Bots => {
            list_bots(&mut out).map_err(stdout_error)?;
            Ok(0)
        }
        Command::Run(args) => crate::tournament::run_command(args, &mut out),
        Command::Merge(args) => crate::tournament::merge_command(args, &mut out),
        Command::Sprt(args) => crate::tournament::sprt_command(args, &mut out),
        Command::Solve { game, args } => crate::with_game!(game, D => D::solve(&args, &mut out)),
        Command::Risk { args } => crate::games::risk::command(&args, &mut out),
        Command::Gen { game, variant, seed, params } => {
            let mut params = parse_flag_params(&params)?;
            // After the first game setting clap hands everything over, `--seed` included.
            let seed = match params.remove("seed") {
                Some(s) => s.parse().map_err(|_| Error::Usage(format!("bad --seed `{s}`")))?,
                None => seed,
            };
            let variant = params.remove("variant").or(variant);
            let map = crate::with_game!(game, D => {
                let variant = crate::games::resolve_variant::<D>(variant.as_deref())?;
                D::generate_map(&variant, &params, seed)?
            });
            out.write_all(map.text.as_bytes()).map_err(stdout_error)?;
            Ok(0)
        }
    }
}

fn stdout_error(e: std::io::Error) -> Error {
    Error::Io { context: "failed to write to stdout".into(), source: e }
}

/// Splits `KEY=VALUE`.
pub fn key_value(s: &str, what: &str) -> Result<(String, String)> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(Error::Usage(format!("{what} `{s}` is not KEY=VALUE"))),
    }
}

/// Reads `--key value` / `--key=value` pairs.
fn parse_flag_params(words: &[String]) -> Result<BTreeMap<String, String>> {
    let mut params = BTreeMap::new();
    let mut it = words.iter();
    while let Some(w) = it.next() {
        let flag = w.strip_prefix("--").ok_or_else(|| {
            Error::Usage(format!("expected a `--key value` setting, found `{w}`"))
        })?;
        let (key, value) = match flag.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => {
                let v =
                    it.next().ok_or_else(|| Error::Usage(format!("`--{flag}` needs a value")))?;
                (flag.to_string(), v.clone())
            }
        };
        params.insert(key, value);
    }
    Ok(params)
}

fn play(args: PlayArgs, out: &mut dyn Write) -> Result<i32> {
    let mut players = BTreeMap::new();
    for b in &args.bots {
        let (role, spec) = key_value(b, "--bot")?;
        let spec: BotSpec = spec.parse().map_err(|e| Error::Usage(format!("--bot {b}: {e}")))?;
        let player = Player { external: args.external.options(), ..Player::new(spec) };
        if players.insert(role.clone(), player).is_some() {
            return Err(Error::Usage(format!("two bots for role `{role}`")));
        }
    }
    let mut options = BTreeMap::new();
    for o in &args.options {
        let (k, v) = key_value(o, "--opt")?;
        options.insert(k, v);
    }
    let map = match (&args.map, &args.generate) {
        (Some(path), _) => MapSource::File(path.clone()),
        (None, Some(settings)) => {
            let mut params = BTreeMap::new();
            for kv in settings.split(',').filter(|s| !s.trim().is_empty()) {
                let (k, v) = key_value(kv, "--gen")?;
                params.insert(k, v);
            }
            MapSource::Generated { params, seed: args.seed }
        }
        (None, None) => MapSource::Default,
    };
    let spec = MatchSpec {
        game: args.game,
        variant: args.variant.clone(),
        options,
        map,
        players,
        seed: args.seed,
        limits: args.limits.into(),
    };
    let played = crate::matches::play(&spec)?;
    for w in &played.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(path) = &args.replay {
        crate::replay::write_file(&played, path)?;
    }
    if args.json {
        let json = serde_json::to_string(&played.summary).expect("a summary serializes");
        writeln!(out, "{json}").map_err(stdout_error)?;
    } else {
        describe(&played, out).map_err(stdout_error)?;
    }
    Ok(0)
}

/// The result of a match in words.
fn describe(played: &PlayedMatch, out: &mut dyn Write) -> std::io::Result<()> {
    let h = &played.header;
    let s = &played.summary;
    let seats: Vec<String> = h.seats.iter().map(|s| format!("{}={}", s.role, s.bot)).collect();
    writeln!(
        out,
        "{} {} on {} (seed {}): {}",
        h.game,
        h.variant,
        h.map.name,
        h.seed,
        seats.join(" ")
    )?;
    match &s.winner {
        Some(role) => write!(out, "{role} wins")?,
        None => write!(out, "draw")?,
    }
    write!(out, " after {} actions: {}", s.turns, s.reason)?;
    if let Some(role) = &s.culprit_role {
        write!(out, " [{} by {role}]", s.termination)?;
    }
    writeln!(out)?;
    let scores: Vec<String> =
        h.seats.iter().map(|seat| format!("{}={}", seat.role, s.scores[seat.seat])).collect();
    writeln!(out, "scores: {}", scores.join(" "))?;
    for (seat, report) in s.reports.iter().enumerate() {
        if !report.stderr_tail.is_empty() && s.culprit == Some(seat) {
            writeln!(out, "last stderr lines of {}:", h.seats[seat].role)?;
            for line in &report.stderr_tail {
                writeln!(out, "  {line}")?;
            }
        }
    }
    Ok(())
}

fn replay(args: ReplayArgs, out: &mut dyn Write) -> Result<i32> {
    if args.verify {
        let verified = crate::replay::verify(&args.file)?;
        writeln!(
            out,
            "{}: verified, {} actions, {}",
            args.file.display(),
            verified.turns,
            verified.summary.reason
        )
        .map_err(stdout_error)?;
        return Ok(0);
    }
    let r = crate::replay::read(&args.file)?;
    let h = &r.header;
    writeln!(out, "{} {} on {} (seed {})", h.game, h.variant, h.map.name, h.seed)
        .map_err(stdout_error)?;
    for (i, a) in r.actions.iter().enumerate() {
        writeln!(out, "{:>4} {:<8} {}", i + 1, a.role, a.action).map_err(stdout_error)?;
    }
    let s = &r.result;
    writeln!(out, "{} ({}): {}", s.winner.as_deref().unwrap_or("draw"), s.termination, s.reason)
        .map_err(stdout_error)?;
    Ok(0)
}

fn list_bots(out: &mut dyn Write) -> std::io::Result<()> {
    for &game in GameId::ALL {
        crate::with_game!(game, D => {
            writeln!(out, "{} ({}): {}", D::NAME, D::VARIANTS.join(", "), D::SUMMARY)?;
            for b in D::bots() {
                writeln!(out, "  {:<12} [{}] {}", b.name, b.roles.join(", "), b.summary)?;
            }
        });
    }
    Ok(())
}
