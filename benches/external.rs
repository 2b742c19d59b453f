//! The cost of external bots: the harness's per-turn round trip against the raw pipe round trip
//! between two processes, and matches per second against the bare cost of spawning and reaping
//! two processes; then what the sandbox costs: the round trip and the spawn, set-up and reap of
//! a pair of bots with and without it, the referee's turn on the CPU clock against the wall
//! clock, and a read of a bot's CPU time. Run with
//! `cargo bench --bench external`; figures in `docs/external-bots.md` and `docs/security.md`.
//!
//! A ratio means something only if both of its series saw the same machine: the series it
//! compares are interleaved (ABAB, in blocks), and the bench pins itself and its bots to one CPU
//! (`BENCH_PIN=off` does not), since a round trip within one core and one across cores differ
//! tenfold and which one an unpinned series gets is chance. It prints which it did.
//!
//! `external --sandbox` measures only what the sandbox costs (the last part), pinned.
//!
//! `external --pairs [--gap-ms N] [--only off|auto]` measures only the pairs (each after N idle
//! milliseconds, as a match's play spaces a tournament's bot starts), unpinned (pin it with
//! `taskset`); `--only` starts the pairs of one series alone, for a profiler.
//!
//! `external --matches off|auto|floor` plays only short matches (without or with the sandbox) or
//! spawn-and-reap pairs, pinned, for a profiler (`perf stat`, `perf record`) to look at alone.
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
/// Turns of one series before the next takes its turn.
const BLOCK: usize = 500;

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
    if let Some(mode) = args.iter().position(|a| a == "--matches").and_then(|i| args.get(i + 1)) {
        let floor = mode == "floor";
        let mode = if mode == "off" { SandboxMode::Off } else { SandboxMode::Auto };
        pin_to_one_cpu();
        let times: Vec<Duration> = (0..MATCHES)
            .map(|_| {
                let start = Instant::now();
                if floor {
                    spawn_and_reap(&exe);
                } else {
                    play_match(&exe, mode, TurnClock::Cpu, false);
                }
                start.elapsed()
            })
            .collect();
        report_ms(&format!("short match, sandbox {mode}"), &times);
        return;
    }
    if std::env::args().any(|a| a == "--pairs") {
        let gap = args.iter().position(|a| a == "--gap-ms").and_then(|i| args.get(i + 1));
        let gap = Duration::from_millis(gap.map_or(0, |ms| ms.parse().expect("--gap-ms <ms>")));
        let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1));
        let only = only.map(|mode| match mode.as_str() {
            "off" => SandboxMode::Off,
            "auto" => SandboxMode::Auto,
            _ => panic!("--only off|auto"),
        });
        let (off, on) = pairs(&exe, gap, only);
        for (name, times) in [("no sandbox", &off), ("sandbox", &on)] {
            if !times.is_empty() {
                report_ms(&format!("pair spawn+set-up+reap, {name}"), times);
            }
        }
        return;
    }
    // Before the pinning, which leaves this process one core.
    let load = load_average();
    if std::env::args().any(|a| a == "--sandbox") {
        let pinned = pin_to_one_cpu();
        println!(
            "{load}; {}",
            pinned.map_or("unpinned".into(), |cpu| format!("pinned to CPU {cpu}"))
        );
        return sandbox_costs(&exe);
    }
    let pinned = pin_to_one_cpu();
    println!("external bots, {TURNS} turns per round-trip series, {MATCHES} matches per series");
    println!(
        "series interleaved (ABAB: blocks of {BLOCK} turns, one match or pair at a time), {}",
        pinned.map_or_else(
            || "unpinned (BENCH_PIN=off): a round trip may cross cores".to_string(),
            |cpu| format!("pinned to CPU {cpu} with every bot (BENCH_PIN=off to unpin)")
        )
    );
    println!("{load}");
    let [raw, raw_stopped, harness, pondering] = interleaved(
        WARM_UP + TURNS,
        BLOCK,
        [
            &mut raw_round_trip(&exe, false),
            &mut raw_round_trip(&exe, true),
            &mut harness_round_trip(&exe, false),
            &mut harness_round_trip(&exe, true),
        ],
    );
    let [raw, raw_stopped, harness, pondering] =
        [&raw, &raw_stopped, &harness, &pondering].map(|series| &series[WARM_UP..]);
    report("raw pipe round trip", raw);
    report("the same, stopped between turns", raw_stopped);
    report("harness round trip (act)", harness);
    report("the same, not stopped between turns", pondering);
    let ratio = |a: &[Duration], b: &[Duration]| median(a).as_secs_f64() / median(b).as_secs_f64();
    println!(
        "harness median / raw median: {:.2}x (target < 2x; {:.2}x with ponder); harness p99 {:.1} \
         us (target < 200 us)",
        ratio(harness, raw),
        ratio(pondering, raw),
        micros(percentile(harness, 99)),
    );
    println!(
        "the stop between turns alone (SIGSTOP after the answer, SIGCONT after the next input): \
         {:+.1} us on the raw pipe; harness / raw, both stopped: {:.2}x",
        micros(median(raw_stopped)) - micros(median(raw)),
        ratio(harness, raw_stopped),
    );

    // Also the warm-up: the bench's executable in the page cache, the sandbox's checks done.
    let turns = play_match(&exe, SandboxMode::Auto, TurnClock::Cpu, false);
    let (mut spawn_cpu, mut off_cpu) = (Duration::ZERO, Duration::ZERO);
    let [spawn, off, off_wall, off_ponder, on] = interleaved(
        MATCHES,
        1,
        [
            &mut || spawn_cpu += cpu_used(|| spawn_and_reap(&exe)),
            &mut || {
                off_cpu += cpu_used(|| {
                    play_match(&exe, SandboxMode::Off, TurnClock::Cpu, false);
                });
            },
            &mut || {
                play_match(&exe, SandboxMode::Off, TurnClock::Wall, false);
            },
            &mut || {
                play_match(&exe, SandboxMode::Off, TurnClock::Cpu, true);
            },
            &mut || {
                play_match(&exe, SandboxMode::Auto, TurnClock::Cpu, false);
            },
        ],
    );
    let per_second = |times: &[Duration]| 1.0 / median(times).as_secs_f64();
    report_ms("spawn + reap of two processes alone", &spawn);
    report_ms(&format!("short match ({turns} actions), no sandbox"), &off);
    report_ms("the same on the wall clock", &off_wall);
    report_ms("the same, not stopped between turns", &off_ponder);
    report_ms(&format!("short match ({turns} actions), sandbox"), &on);
    println!(
        "short matches per second / spawn-and-reap pairs per second: {:.2}x without the sandbox \
         (target >= 0.7x; {:.2}x on the wall clock, {:.2}x with ponder), {:.2}x with it ({:.0} and \
         {:.0} matches/s, {:.0} pairs/s)",
        per_second(&off) / per_second(&spawn),
        per_second(&off_wall) / per_second(&spawn),
        per_second(&off_ponder) / per_second(&spawn),
        per_second(&on) / per_second(&spawn),
        per_second(&off),
        per_second(&on),
        per_second(&spawn),
    );
    println!(
        "on CPU time (arena's and the bots' together, which a busy machine does not stretch): \
         {:.2} ms per short match without the sandbox, {:.2} ms per spawn-and-reap pair: {:.2}x",
        off_cpu.as_secs_f64() * 1e3 / MATCHES as f64,
        spawn_cpu.as_secs_f64() * 1e3 / MATCHES as f64,
        spawn_cpu.as_secs_f64() / off_cpu.as_secs_f64(),
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
    let (pairs_off, pairs_on) = pairs(exe, Duration::ZERO, None);
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
    spawn_echo_with(exe, ExternalOptions { sandbox: Some(mode), ..ExternalOptions::default() })
}

fn spawn_echo_with(exe: &Path, options: ExternalOptions) -> ExternalBot<Skynet> {
    let command = vec![exe.display().to_string(), "__echo".to_string()];
    let identity = BotIdentity { game: "skynet", role: "virus", seed: 1 };
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
/// `gap`: an idle pause before each pair, as a match's play spaces a tournament's bot starts.
/// `only`: every pair in this mode (for a profiler), as many as the two series together.
fn pairs(exe: &Path, gap: Duration, only: Option<SandboxMode>) -> (Vec<Duration>, Vec<Duration>) {
    let view = skynet().view(0);
    let mut times = (Vec::new(), Vec::new());
    for i in 0..2 * MATCHES {
        std::thread::sleep(gap);
        let alternate = if i / 10 % 2 == 0 { SandboxMode::Off } else { SandboxMode::Auto };
        let mode = only.unwrap_or(alternate);
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

/// Reads of a running bot's CPU time (one that ponders: a stopped bot's is the reading taken
/// as it was stopped).
fn cpu_time_reads(exe: &Path, mode: SandboxMode) -> Vec<Duration> {
    let options = ExternalOptions { sandbox: Some(mode), ponder: true, ..Default::default() };
    let mut bot = spawn_echo_with(exe, options);
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

/// Steps of `N` series taken in turn, `block` steps of one then `block` of the next (ABAB...),
/// `steps` of each in all, so that a shared machine's slow phases fall on every series; the time
/// of each step, per series.
fn interleaved<const N: usize>(
    steps: usize,
    block: usize,
    mut series: [&mut dyn FnMut(); N],
) -> [Vec<Duration>; N] {
    let mut times: [Vec<Duration>; N] = std::array::from_fn(|_| Vec::with_capacity(steps));
    for _ in 0..steps.div_ceil(block) {
        for (step, times) in series.iter_mut().zip(&mut times) {
            for _ in 0..block.min(steps - times.len()) {
                let start = Instant::now();
                step();
                times.push(start.elapsed());
            }
        }
    }
    times
}

/// Pins the bench, and so every process it starts, to the CPU it runs on (unless
/// `BENCH_PIN=off`): a round trip between two processes on one core costs a few microseconds,
/// across cores a wake-up of tens, and which one a series gets unpinned is chance. Returns the
/// CPU.
fn pin_to_one_cpu() -> Option<usize> {
    use nix::sched::{CpuSet, sched_getcpu, sched_setaffinity};
    if std::env::var("BENCH_PIN").is_ok_and(|v| v == "off") {
        return None;
    }
    let cpu = sched_getcpu().ok()?;
    let mut set = CpuSet::new();
    set.set(cpu).ok()?;
    sched_setaffinity(nix::unistd::Pid::from_raw(0), &set).ok()?;
    Some(cpu)
}

/// How busy the machine is, for the figures' context.
fn load_average() -> String {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let figures: Vec<&str> = load.split_whitespace().take(3).collect();
    format!("{cores} cores, load average {}", figures.join(" "))
}

/// The CPU time `work` costs this process and the children it reaps meanwhile (every bot of a
/// match is reaped by its end).
fn cpu_used(work: impl FnOnce()) -> Duration {
    use nix::sys::resource::{UsageWho, getrusage};
    let total = || {
        [UsageWho::RUSAGE_SELF, UsageWho::RUSAGE_CHILDREN]
            .map(|who| {
                let usage = getrusage(who).expect("getrusage");
                let micros = |t: nix::sys::time::TimeVal| {
                    Duration::from_secs(t.tv_sec() as u64)
                        + Duration::from_micros(t.tv_usec() as u64)
                };
                micros(usage.user_time()) + micros(usage.system_time())
            })
            .into_iter()
            .sum::<Duration>()
    };
    let before = total();
    work();
    total().saturating_sub(before)
}

/// One turn line written and the answer read over plain blocking pipes: the floor; `stopped`:
/// the bot is stopped (`SIGSTOP`) after its answer and continued (`SIGCONT`) once the next
/// input is written, as the harness does between turns.
fn raw_round_trip(exe: &Path, stopped: bool) -> impl FnMut() {
    use nix::sys::signal::{Signal, kill};
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
    /// Continues the bot when the series is dropped, so that it reads its end of input.
    struct Continue(nix::unistd::Pid);
    impl Drop for Continue {
        fn drop(&mut self) {
            let _ = kill(self.0, Signal::SIGCONT);
        }
    }
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let guard = Continue(pid);
    // The child is reaped when the bench ends.
    std::mem::forget(child);
    move || {
        let _ = &guard;
        stdin.write_all(turn.as_bytes()).expect("turn written");
        stdin.flush().expect("flushed");
        if stopped {
            kill(pid, Signal::SIGCONT).expect("continued");
        }
        line.clear();
        stdout.read_line(&mut line).expect("an answer");
        if stopped {
            kill(pid, Signal::SIGSTOP).expect("stopped");
        }
    }
}

/// The same exchange through `ExternalBot::act`, as the referee calls it, with no sandbox
/// (`ponder`: the bot is not stopped between its turns).
fn harness_round_trip(exe: &Path, ponder: bool) -> impl FnMut() {
    let options =
        ExternalOptions { sandbox: Some(SandboxMode::Off), ponder, ..ExternalOptions::default() };
    let mut bot = spawn_echo_with(exe, options);
    let view = skynet().view(0);
    let mut decision = 0;
    move || {
        bot.act(&view, &context(Instant::now(), decision)).expect("an answer");
        decision += 1;
    }
}

/// Spawning two bot processes and reaping them, with nothing in between: the floor of a match.
fn spawn_and_reap(exe: &Path) {
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

/// A whole match of the example Rust bot against itself, through `matches::play`, on `clock`
/// (`ponder`: its bots are not stopped between their turns); its actions.
fn play_match(exe: &Path, mode: SandboxMode, clock: TurnClock, ponder: bool) -> usize {
    static SEED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let spec = BotSpec::Command(vec![exe.display().to_string(), "__skynet".to_string()]);
    let mut player = Player::new(spec);
    player.external.sandbox = Some(mode);
    player.external.ponder = ponder;
    let players: BTreeMap<String, Player> =
        ["virus", "agent"].iter().map(|role| (role.to_string(), player.clone())).collect();
    let spec = MatchSpec {
        game: GameId::Skynet,
        variant: None,
        options: BTreeMap::new(),
        map: MapSource::Default,
        players,
        seed: SEED.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        limits: LimitOverrides { clock: Some(clock), ..LimitOverrides::default() },
    };
    let played = arena::matches::play(&spec, &SUPERVISOR).expect("a match");
    assert_eq!(played.summary.termination, arena::bot::Termination::Normal);
    played.summary.turns
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
