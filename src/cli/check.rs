//! `arena check SPEC --game G [--role R]`: a bot's compliance run before any tournament
//! (`crate::check`), printed as a checklist with the first failure's exchange, or as JSON.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::play::ExternalArgs;
use crate::bot::external::{ExternalOptions, sandbox};
use crate::bot::{BotSpec, Supervisor};
use crate::check::{CheckReport, CheckSpec, Exchange, Verdict};
use crate::error::{Error, Result, exit};
use crate::games::GameId;
use crate::matches::{LimitOverrides, MapSource, Player};

/// The kill grace of a check unless `--kill-grace-ms` says otherwise, in ms.
const CHECK_KILL_GRACE_MS: u64 = 1000;

#[derive(Args, Debug)]
pub(super) struct CheckArgs {
    /// The bot: `cmd:COMMAND ARGS...`, `cg:SOURCE` or a built-in name.
    spec: String,
    /// The game: skynet, painters, spiders or risk.
    #[arg(long)]
    game: GameId,
    /// The role the bot plays [default: the game's first role].
    #[arg(long)]
    role: Option<String>,
    /// The game's variant (skynet: ep2, ep1).
    #[arg(long)]
    variant: Option<String>,
    /// A map to play instead of the game's shipped maps. Repeatable.
    #[arg(long = "map", value_name = "FILE")]
    maps: Vec<PathBuf>,
    /// A game option `KEY=VALUE`. Repeatable.
    #[arg(long = "opt", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// The seed of every match (each map is played twice with it).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The resident memory the bot's processes together must stay under, in MiB (what the
    /// tournament will give it) [default: --address-space-mb, if given].
    #[arg(long, value_name = "MIB")]
    memory_mb: Option<u64>,
    #[command(flatten)]
    limits: LimitOverrides,
    #[command(flatten)]
    external: ExternalArgs,
    /// Print the result as one JSON object instead of a checklist.
    #[arg(long)]
    json: bool,
}

pub(super) fn run(args: CheckArgs, supervisor: &Supervisor, out: &mut dyn Write) -> Result<i32> {
    args.limits.check().map_err(|e| Error::Usage(format!("--{}: {e}", e.key.replace('_', "-"))))?;
    let external = args.external.options();
    external.check().map_err(|(setting, message)| {
        Error::Usage(format!("--{}: {message}", setting.replace('_', "-")))
    })?;
    let spec: BotSpec =
        args.spec.parse().map_err(|e| Error::Usage(format!("bot `{}`: {e}", args.spec)))?;
    // A bot gets a second to exit once its input ends (a match's default grace is shorter, so a
    // loaded machine does not make the check fail a bot that exits in good time).
    let external = ExternalOptions {
        kill_grace_ms: args.external.kill_grace_ms().unwrap_or(CHECK_KILL_GRACE_MS),
        ..external
    };
    let player = Player { external, ..Player::new(spec) };
    if !matches!(player.spec, BotSpec::Builtin(_))
        && let Some(warning) = sandbox::preflight([&player.external])?
    {
        eprintln!("warning: {warning}");
    }
    let mut options = BTreeMap::new();
    for o in &args.options {
        let (k, v) = super::key_value(o, "--opt")?;
        options.insert(k, v);
    }
    let spec = CheckSpec {
        game: args.game,
        variant: args.variant,
        options,
        role: args.role,
        player,
        maps: args.maps.into_iter().map(MapSource::File).collect(),
        seed: args.seed,
        limits: args.limits,
        memory_mib: args.memory_mb,
    };
    let report = crate::check::run(&spec, supervisor)?;
    if args.json {
        let json = serde_json::to_string(&report).expect("a check report serializes");
        writeln!(out, "{json}").map_err(Error::stdout)?;
    } else {
        print(&report, out).map_err(Error::stdout)?;
    }
    Ok(if report.passed { exit::OK } else { exit::CHECK_FAILED })
}

/// The checklist, then the first failure's exchange.
fn print(r: &CheckReport, out: &mut dyn Write) -> std::io::Result<()> {
    let opponents: Vec<String> =
        r.opponents.iter().map(|(role, bot)| format!("{role}={bot}")).collect();
    writeln!(out, "arena check {} as {} in {} {}", r.bot, r.role, r.game, r.variant)?;
    writeln!(
        out,
        "on {}, each played twice with seed {}, against {}",
        r.maps.join(", "),
        r.seed,
        opponents.join(" ")
    )?;
    writeln!(out)?;
    for c in &r.checks {
        let mark = match c.verdict {
            Verdict::Pass => "ok  ",
            Verdict::Fail => "FAIL",
            Verdict::Skip => " -  ",
        };
        writeln!(out, "  [{mark}] {}: {}", c.title, c.detail)?;
    }
    if let Some(e) = &r.first_failure {
        writeln!(out)?;
        print_exchange(e, out)?;
    }
    let failed = r.checks.iter().filter(|c| c.verdict == Verdict::Fail).count();
    writeln!(out)?;
    if failed == 0 {
        writeln!(out, "every check passed")
    } else {
        writeln!(out, "{failed} of {} checks failed", r.checks.len())
    }
}

fn print_exchange(e: &Exchange, out: &mut dyn Write) -> std::io::Result<()> {
    let when = match e.decision {
        Some(n) => format!("its decision {n}"),
        None => "after its last decision".to_string(),
    };
    writeln!(out, "first failure ({}) on {}, {when}:", e.check, e.map)?;
    if let Some(sent) = &e.sent {
        writeln!(out, "  sent:")?;
        for line in sent.lines() {
            writeln!(out, "    | {line}")?;
        }
    }
    writeln!(out, "  expected: {}", e.expected)?;
    writeln!(out, "  got: {}", e.got)?;
    if !e.stderr.is_empty() {
        writeln!(out, "  its last stderr lines:")?;
        for line in &e.stderr {
            writeln!(out, "    | {line}")?;
        }
    }
    Ok(())
}
