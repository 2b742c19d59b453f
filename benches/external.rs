//! The cost of external bots: the harness's per-turn round trip against the raw pipe round trip
//! between two processes, and matches per second against the bare cost of spawning and reaping
//! two processes; then what the sandbox costs: the round trip and the spawn, set-up and reap of
//! a pair of bots with and without it, the referee's turn on the CPU clock against the wall
//! clock, and a read of a bot's CPU time. Run with
//! `cargo bench --bench external`; figures in `docs/external-bots.md` and `docs/security.md`.
//!
//! The bench executable is its own bot: run as `external __echo` it answers every turn input with
//! a fixed line, and as `external __skynet` it plays the example Rust Skynet bot.

#[path = "../bots/skynet_bot.rs"]
mod skynet_bot;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arena::bot::external::{BotIdentity, ExternalBot, ExternalOptions, SandboxMode, sandbox};
use arena::bot::{Bot, BotSpec, Supervisor, TurnClock, TurnContext};
use arena::game::Game;
use arena::game::Setup;
use arena::games::GameId;
use arena::games::skynet::Skynet;
use arena::matches::{LimitOverrides, MapSource, MatchSpec, Player};
use arena::registry::GameDef;

const TURNS: usize = 20_000;
const WARM_UP: usize = 1_000;
const MATCHES: usize = 100;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("__echo") => return echo_bot(),
        Some("__skynet") => {
            let role = std::env::var("ARENA_ROLE").unwrap_or_else(|_| "virus".into());
            let _ = skynet_bot::play(&role, std::io::stdin().lock(), std::io::stdout().lock());
            return;
        }
        _ => {}
    }
    let exe = std::env::current_exe().expect("the bench knows its path");
    if std::env::args().any(|a| a == "--pairs") {
        let (off, on) = pairs(&exe);
        report_ms("pair spawn+set-up+reap, no sandbox", &off);
        report_ms("pair spawn+set-up+reap, sandbox", &on);
        return;
    }
    println!("external bots, {TURNS} turns per round-trip series, {MATCHES} matches");
    let raw = raw_round_trips(&exe);
    let harness = harness_round_trips(&exe, SandboxMode::Off);
    let raw_again = raw_round_trips(&exe);
    report("raw pipe round trip", &raw);
    report("harness round trip (act)", &harness);
    report("raw pipe round trip (again)", &raw_again);
    let floor = median(&raw).min(median(&raw_again));
    println!(
        "harness median / raw median: {:.2}x (target < 2x); harness p99 {:.1} us (target < 200 us)",
        median(&harness).as_secs_f64() / floor.as_secs_f64(),
        micros(percentile(&harness, 99)),
    );

    let spawn = spawn_and_reap(&exe);
    let (matches, turns) = play_matches(&exe);
    println!(
        "spawn + reap of two processes alone: {:.2} ms per pair ({:.0} pairs/s)",
        spawn.as_secs_f64() * 1e3 / MATCHES as f64,
        MATCHES as f64 / spawn.as_secs_f64()
    );
    println!(
        "short matches, two fresh external processes each ({turns} actions per match): {:.2} ms per match ({:.0} matches/s)",
        matches.as_secs_f64() * 1e3 / MATCHES as f64,
        MATCHES as f64 / matches.as_secs_f64()
    );
    sandbox_costs(&exe);
}

/// The sandbox against none, in the same run: the round trip, a pair's spawn + set-up + reap,
/// and the CPU time read.
fn sandbox_costs(exe: &Path) {
    let missing = sandbox::missing(&ExternalOptions::default());
    println!();
    if missing.is_empty() {
        println!("sandbox: every layer available");
    } else {
        let names: Vec<&str> = missing.iter().map(|m| m.feature).collect();
        println!("sandbox: without {}", names.join(", "));
    }
    let (off, on) = interleaved_round_trips(exe);
    report("round trip, no sandbox", &off);
    report("round trip, sandbox", &on);
    println!(
        "sandboxed median / unsandboxed median: {:.2}x (target <= 1.1x)",
        median(&on).as_secs_f64() / median(&off).as_secs_f64()
    );
    let (pairs_off, pairs_on) = pairs(exe);
    report_ms("pair spawn+set-up+reap, no sandbox", &pairs_off);
    report_ms("pair spawn+set-up+reap, sandbox", &pairs_on);
    println!(
        "sandboxed pair median - unsandboxed pair median: {:+.2} ms (target <= 2 ms)",
        (median(&pairs_on).as_secs_f64() - median(&pairs_off).as_secs_f64()) * 1e3
    );
    let [wall, cpu, bare] = clock_round_trips(exe);
    report("referee turn, wall clock", &wall);
    report("referee turn, cpu clock", &cpu);
    report("exchange alone, wall clock", &bare);
    println!(
        "cpu clock median / wall clock median: {:.2}x (target <= 1.2x); / exchange alone: {:.2}x",
        median(&cpu).as_secs_f64() / median(&wall).as_secs_f64(),
        median(&cpu).as_secs_f64() / median(&bare).as_secs_f64()
    );
    for mode in [SandboxMode::Auto, SandboxMode::Off] {
        let reads = cpu_time_reads(exe, mode);
        let source = if mode == SandboxMode::Off { "process tree" } else { "sandbox" };
        report(&format!("cpu_time read ({source})"), &reads);
    }
}

fn spawn_echo(exe: &Path, mode: SandboxMode) -> ExternalBot<Skynet> {
    let command = vec![exe.display().to_string(), "__echo".to_string()];
    let identity = BotIdentity { game: "skynet", role: "virus", seed: 1 };
    let options = ExternalOptions { sandbox: Some(mode), ..ExternalOptions::default() };
    ExternalBot::<Skynet>::spawn(&command, &identity, options, &SUPERVISOR)
}

static SUPERVISOR: std::sync::LazyLock<Supervisor> = std::sync::LazyLock::new(Supervisor::new);

/// Round trips with an unsandboxed and a sandboxed echo bot, both running, in alternate series
/// of a thousand turns (so that the shared machine's slow phases fall on both).
fn interleaved_round_trips(exe: &Path) -> (Vec<Duration>, Vec<Duration>) {
    let mut bots = [spawn_echo(exe, SandboxMode::Off), spawn_echo(exe, SandboxMode::Auto)];
    let view = skynet().view(0);
    let mut times = [Vec::with_capacity(TURNS), Vec::with_capacity(TURNS)];
    for series in 0..(WARM_UP + TURNS) / 500 {
        for (bot, times) in bots.iter_mut().zip(&mut times) {
            for i in 0..500 {
                let start = Instant::now();
                bot.act(&view, &context(start, (series * 500 + i) as u32)).expect("an answer");
                if series * 500 >= WARM_UP {
                    times.push(start.elapsed());
                }
            }
        }
    }
    for bot in &mut bots {
        bot.finish();
    }
    let [off, on] = times;
    (off, on)
}

/// Pairs of echo bots started, asked one turn each (so both run) and finished, without and
/// with the sandbox in alternate blocks of ten pairs (as a tournament starts bots one after
/// another, and so that slow phases of a shared machine fall on both); the time of each pair.
fn pairs(exe: &Path) -> (Vec<Duration>, Vec<Duration>) {
    let view = skynet().view(0);
    let mut times = (Vec::new(), Vec::new());
    for i in 0..2 * MATCHES {
        let mode = if i / 10 % 2 == 0 { SandboxMode::Off } else { SandboxMode::Auto };
        let start = Instant::now();
        let mut bots = [spawn_echo(exe, mode), spawn_echo(exe, mode)];
        for bot in &mut bots {
            bot.act(&view, &context(start, 0)).expect("an answer");
        }
        for bot in &mut bots {
            bot.finish();
        }
        let time = start.elapsed();
        if mode == SandboxMode::Off { times.0.push(time) } else { times.1.push(time) }
    }
    times
}

/// Reads of a running bot's CPU time.
fn cpu_time_reads(exe: &Path, mode: SandboxMode) -> Vec<Duration> {
    let mut bot = spawn_echo(exe, mode);
    bot.act(&skynet().view(0), &context(Instant::now(), 0)).expect("an answer");
    let mut times = Vec::with_capacity(TURNS);
    for _ in 0..TURNS {
        let start = Instant::now();
        let cpu = bot.cpu_time();
        times.push(start.elapsed());
        assert!(cpu.is_some(), "the CPU time of a running bot is known");
    }
    bot.finish();
    times
}

fn context(start: Instant, decision: u32) -> TurnContext {
    TurnContext { decision, ..TurnContext::wall(start, Duration::from_secs(5)) }
}

/// A turn of 5 s on `clock` (on the CPU clock, a wall-clock cap of 51 s, as the referee sets).
fn clock_context(start: Instant, decision: u32, clock: TurnClock) -> TurnContext {
    let mut ctx = context(start, decision);
    if clock == TurnClock::Cpu {
        ctx.clock = TurnClock::Cpu;
        ctx.deadline = start + Duration::from_secs(51);
        ctx.hard_deadline = ctx.deadline;
    }
    ctx
}

/// The referee's turn with an echo bot (sandbox `auto`) on each clock, in alternate series of
/// 500 turns: its CPU time read, the exchange, its CPU time read again (the referee reads it on
/// both clocks, for the replay); and, as the baseline of before the CPU clock, the exchange
/// alone on the wall clock.
fn clock_round_trips(exe: &Path) -> [Vec<Duration>; 3] {
    let mut bots = [
        spawn_echo(exe, SandboxMode::Auto),
        spawn_echo(exe, SandboxMode::Auto),
        spawn_echo(exe, SandboxMode::Auto),
    ];
    let view = skynet().view(0);
    let mut times: [Vec<Duration>; 3] = Default::default();
    for series in 0..(WARM_UP + TURNS) / 500 {
        for (k, (bot, times)) in bots.iter_mut().zip(&mut times).enumerate() {
            let clock = if k == 1 { TurnClock::Cpu } else { TurnClock::Wall };
            for i in 0..500 {
                let start = Instant::now();
                let ctx = clock_context(start, (series * 500 + i) as u32, clock);
                if k == 2 {
                    bot.act(&view, &ctx).expect("an answer");
                } else {
                    let before = Bot::cpu_time(bot);
                    bot.act(&view, &ctx).expect("an answer");
                    std::hint::black_box((before, Bot::cpu_time(bot)));
                }
                if series * 500 >= WARM_UP {
                    times.push(start.elapsed());
                }
            }
        }
    }
    for bot in &mut bots {
        bot.finish();
    }
    times
}

fn report_ms(name: &str, times: &[Duration]) {
    println!(
        "{name:<36} median {:>6.2} ms   p90 {:>6.2} ms",
        median(times).as_secs_f64() * 1e3,
        percentile(times, 90).as_secs_f64() * 1e3,
    );
}

/// Reads the Skynet init block, then answers every line with a fixed cut.
fn echo_bot() {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    let mut line = String::new();
    let _ = input.read_line(&mut line);
    let counts: Vec<usize> = line.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    let skip = counts.get(1).copied().unwrap_or(0) + counts.get(2).copied().unwrap_or(0);
    for _ in 0..skip {
        line.clear();
        let _ = input.read_line(&mut line);
    }
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if out.write_all(b"0 1\n").and_then(|()| out.flush()).is_err() {
                    return;
                }
            }
        }
    }
}

fn skynet() -> Skynet {
    let setup = Setup {
        variant: "ep2".into(),
        options: BTreeMap::new(),
        map: Skynet::default_map("ep2"),
        seed: 1,
    };
    Skynet::new_game(&setup).expect("the default map loads").0
}

/// Writes a turn line and reads the answer over plain blocking pipes: the floor.
fn raw_round_trips(exe: &Path) -> Vec<Duration> {
    let mut child = Command::new(exe)
        .arg("__echo")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the echo bot starts");
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let view = skynet().view(0);
    stdin.write_all(Skynet::init_input(&view).as_bytes()).expect("init written");
    let turn = Skynet::turn_input(&view);
    let mut line = String::new();
    let mut times = Vec::with_capacity(TURNS);
    for i in 0..WARM_UP + TURNS {
        let start = Instant::now();
        stdin.write_all(turn.as_bytes()).expect("turn written");
        stdin.flush().expect("flushed");
        line.clear();
        stdout.read_line(&mut line).expect("an answer");
        if i >= WARM_UP {
            times.push(start.elapsed());
        }
    }
    drop(stdin);
    child.wait().expect("reaped");
    times
}

/// The same exchange through `ExternalBot::act`, as the referee calls it.
fn harness_round_trips(exe: &Path, mode: SandboxMode) -> Vec<Duration> {
    let mut bot = spawn_echo(exe, mode);
    let view = skynet().view(0);
    let mut times = Vec::with_capacity(TURNS);
    for i in 0..WARM_UP + TURNS {
        let start = Instant::now();
        bot.act(&view, &context(start, i as u32)).expect("an answer");
        if i >= WARM_UP {
            times.push(start.elapsed());
        }
    }
    bot.finish();
    times
}

/// Spawning two bot processes and reaping them, with nothing in between.
fn spawn_and_reap(exe: &Path) -> Duration {
    let start = Instant::now();
    for _ in 0..MATCHES {
        let children: Vec<_> = (0..2)
            .map(|_| {
                Command::new(exe)
                    .arg("__skynet")
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("a bot starts")
            })
            .collect();
        for mut child in children {
            drop(child.stdin.take());
            child.wait().expect("reaped");
        }
    }
    start.elapsed()
}

/// Whole matches of the example Rust bot against itself, through `matches::play`.
fn play_matches(exe: &Path) -> (Duration, usize) {
    let spec = BotSpec::Command(vec![exe.display().to_string(), "__skynet".to_string()]);
    let players: BTreeMap<String, Player> = ["virus", "agent"]
        .iter()
        .map(|role| (role.to_string(), Player::new(spec.clone())))
        .collect();
    let supervisor = Supervisor::new();
    let mut turns = 0;
    let start = Instant::now();
    for seed in 0..MATCHES as u64 {
        let spec = MatchSpec {
            game: GameId::Skynet,
            variant: None,
            options: BTreeMap::new(),
            map: MapSource::Default,
            players: players.clone(),
            seed,
            limits: LimitOverrides::default(),
        };
        let played = arena::matches::play(&spec, &supervisor).expect("a match");
        assert_eq!(played.summary.termination, arena::bot::Termination::Normal);
        turns = played.summary.turns;
    }
    (start.elapsed(), turns)
}

fn median(times: &[Duration]) -> Duration {
    percentile(times, 50)
}

fn percentile(times: &[Duration], p: usize) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort_unstable();
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn report(name: &str, times: &[Duration]) {
    println!(
        "{name:<30} median {:>7.1} us   p99 {:>7.1} us   max {:>8.1} us",
        micros(median(times)),
        micros(percentile(times, 99)),
        micros(*times.iter().max().unwrap_or(&Duration::ZERO)),
    );
}
