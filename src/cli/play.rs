//! `arena play GAME`: one match, described in words or as JSON.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::bot::external::sandbox;
use crate::bot::external::{ExternalOptions, SandboxMode};
use crate::bot::{BotSpec, Supervisor};
use crate::error::{Error, Result, exit};
use crate::games::GameId;
use crate::matches::{LimitOverrides, MapSource, MatchSpec, PlayedMatch, Player};

#[derive(Args, Debug)]
pub(super) struct PlayArgs {
    /// The game: skynet, painters, spiders or risk.
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
    /// A bot for a role: `ROLE=SPEC`, SPEC a built-in name, `cmd:COMMAND ARGS...` or
    /// `cg:SOURCE` (a CodinGame source file: .py .js .c .cpp .java .rs ...). Repeatable.
    #[arg(long = "bot", value_name = "ROLE=SPEC")]
    bots: Vec<String>,
    /// A game option `KEY=VALUE`. Repeatable.
    #[arg(long = "opt", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// The match seed: the same seed gives the same match.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    limits: LimitOverrides,
    #[command(flatten)]
    external: ExternalArgs,
    /// Write the replay (JSON Lines) to this file.
    #[arg(long)]
    replay: Option<PathBuf>,
    /// Print the result as one JSON object instead of words.
    #[arg(long)]
    json: bool,
    /// Exit with code 5 when the match ended by a bot's fault (a timeout, crash, illegal
    /// action, ...), once the result and the replay are written.
    #[arg(long)]
    strict: bool,
}

/// How external bots run (they apply to every external seat).
#[derive(Args, Debug, Clone, Default)]
pub(super) struct ExternalArgs {
    /// The longest line an external bot may write, in bytes.
    #[arg(long, value_name = "BYTES")]
    max_line: Option<usize>,
    /// Grace period before TERM and before KILL at the end of a match, in ms.
    #[arg(long, value_name = "MS")]
    kill_grace_ms: Option<u64>,
    /// The working directory of external bots (default: the current directory).
    #[arg(long, value_name = "DIR")]
    workdir: Option<PathBuf>,
    /// An address-space limit for each process of an external bot, in MiB.
    #[arg(long, value_name = "MIB")]
    address_space_mb: Option<u64>,
    /// A memory limit for all of an external bot's processes together, in MiB (past it the bot
    /// ends with `memory_limit`).
    #[arg(long, value_name = "MIB")]
    memory_mb: Option<u64>,
    /// A CPU-time limit for all of an external bot's processes together, in seconds for the
    /// whole match (past it the bot ends with `cpu_limit`).
    #[arg(long, value_name = "SECONDS")]
    cpu_seconds: Option<u64>,
    /// Let external bots run between their turns (by default their processes are stopped from
    /// their answer to their next turn); what they use then counts in `--cpu-seconds`.
    #[arg(long)]
    ponder: bool,
    /// Run external bots in the sandbox: `auto` (every layer this machine offers), `require`
    /// (all of them, or refuse) or `off` (docs/security.md) [default: auto].
    #[arg(long, value_name = "MODE")]
    sandbox: Option<SandboxMode>,
    /// A file or folder external bots may read in the sandbox, besides the system, their
    /// program and the files their command line names. Repeatable.
    #[arg(long = "allow-read", value_name = "PATH")]
    allow_read: Vec<PathBuf>,
    /// Let external bots use the network (the sandbox gives them none).
    #[arg(long)]
    network: bool,
    /// How many processes and threads an external bot may have at once in the sandbox
    /// [default: 256].
    #[arg(long, value_name = "N")]
    max_processes: Option<u32>,
    /// Keep no external bot's stderr with its decisions in the replay (a smaller replay).
    #[arg(long)]
    no_stderr: bool,
}

impl ExternalArgs {
    /// `--kill-grace-ms`, when given.
    pub(super) fn kill_grace_ms(&self) -> Option<u64> {
        self.kill_grace_ms
    }

    pub(super) fn options(&self) -> ExternalOptions {
        let d = ExternalOptions::default();
        let options = ExternalOptions {
            max_line: self.max_line.unwrap_or(d.max_line),
            kill_grace_ms: self.kill_grace_ms.unwrap_or(d.kill_grace_ms),
            workdir: self.workdir.clone(),
            address_space_mb: self.address_space_mb,
            memory_mb: self.memory_mb,
            ponder: self.ponder,
            cpu_seconds: self.cpu_seconds,
            sandbox: self.sandbox,
            files: self.allow_read.clone(),
            network: self.network,
            max_processes: self.max_processes.unwrap_or(d.max_processes),
            ..d
        };
        if self.no_stderr { options.without_stderr() } else { options }
    }
}

pub(super) fn run(args: PlayArgs, supervisor: &Supervisor, out: &mut dyn Write) -> Result<i32> {
    args.limits.check().map_err(|e| Error::Usage(format!("--{}: {e}", e.key.replace('_', "-"))))?;
    args.external.options().check().map_err(|(setting, message)| {
        Error::Usage(format!("--{}: {message}", setting.replace('_', "-")))
    })?;
    let mut players = BTreeMap::new();
    for b in &args.bots {
        let (role, spec) = super::key_value(b, "--bot")?;
        let spec: BotSpec = spec.parse().map_err(|e| Error::Usage(format!("--bot {b}: {e}")))?;
        let player = Player { external: args.external.options(), ..Player::new(spec) };
        if players.insert(role.clone(), player).is_some() {
            return Err(Error::Usage(format!(
                "--bot {b}: a second bot for role `{role}` (give one --bot per role)"
            )));
        }
    }
    let externals = players.values().filter(|p| matches!(p.spec, BotSpec::Command(_)));
    if let Some(warning) = sandbox::preflight(externals.map(|p| &p.external))? {
        eprintln!("warning: {warning}");
    }
    let mut options = BTreeMap::new();
    for o in &args.options {
        let (k, v) = super::key_value(o, "--opt")?;
        options.insert(k, v);
    }
    let map = match (&args.map, &args.generate) {
        (Some(path), _) => MapSource::File(path.clone()),
        (None, Some(settings)) => {
            let mut params = BTreeMap::new();
            for kv in settings.split(',').filter(|s| !s.trim().is_empty()) {
                let (k, v) = super::key_value(kv, "--gen")?;
                params.insert(k, v);
            }
            MapSource::Generated { params, seed: args.seed }
        }
        (None, None) => MapSource::Default,
    };
    if let Some(variant) = &args.variant {
        crate::with_game!(args.game, D => crate::registry::resolve_variant::<D>(Some(variant)))
            .map_err(|e| Error::Usage(format!("argument `--variant`: {e}")))?;
    }
    let spec = MatchSpec {
        game: args.game,
        variant: args.variant.clone(),
        options,
        map,
        players,
        seed: args.seed,
        limits: args.limits,
    };
    let played = crate::matches::play(&spec, supervisor)?;
    for w in &played.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(path) = &args.replay {
        played.write_replay(path)?;
    }
    if args.json {
        let json = serde_json::to_string(&played.summary).expect("a summary serializes");
        writeln!(out, "{json}").map_err(Error::stdout)?;
    } else {
        describe(&played, out).map_err(Error::stdout)?;
    }
    let faulted = args.strict && played.summary.termination.is_fault();
    Ok(if faulted { exit::FAULTS } else { exit::OK })
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
