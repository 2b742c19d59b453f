//! `arena league`: a pool of bots that plays on with no fixed number of games — until a number
//! of matches, a time, or Ctrl-C — each next match where it tells most ([`matchmaking`]), bots
//! joining and leaving while it runs (an edit of the arena file, `arena league add` or `retire`).
//!
//! It is a schedule on the one match engine ([`super::engine`]) and writes the results folder a
//! tournament writes (`matches.csv` rows of the same identities: a pair's `m`-th meeting is the
//! round robin's game `m / orders`), plus `league.jsonl`, its journal: every pool change and every
//! decided match, appended (and flushed) before the match is played. A league killed with `kill
//! -9` resumes from the journal: the decided matches without a row are played again, and
//! matchmaking, rebuilt from the journal and the rows, decides on as it would have. Decision `n`
//! waits for the results of the decisions up to `n - window` and uses no later one, so what is
//! decided does not depend on which match ended first: the league is the same at any
//! concurrency up to the window (`[league] window`, default 8), and a killed-and-resumed league
//! plays the same rows as one that was not killed.
//!
//! A pool change (the arena file edited while the league runs) stops the engine's segment once
//! the matches in flight end, carries the folder over as `arena run` does (a changed bot's rows
//! archived, [`super::update`]), journals the change and goes on with the new pool.

pub(crate) mod matchmaking;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use self::matchmaking::{Matchmaking, Pick};
use super::config::Arena;
use super::engine::{
    Event, Events, Flow, Job, Leaderboard, Pool, Schedule as EngineSchedule, Start, Unit, Warning,
    threads,
};
use super::results::matches::{drop_torn_line, read_rows};
use super::results::meta::Kind;
use super::results::replays::kept_ids;
use super::results::{Folder, MATCHES_FILE, Recorder, corrupt, write_atomically, write_summaries};
use super::run::{arena_key, meta_of, results_dir};
use super::schedule::{Planned, Shard};
use super::stats::standings::Standings;
use super::stats::tally::MatchPlacing;
use super::update::prepare;
use crate::bot::Supervisor;
use crate::error::{Error, Result};
use crate::matches::PlayedMatch;
use crate::seed::{SeedKey, game_seed, match_id};

/// The league's journal in its results folder.
pub(crate) const JOURNAL_FILE: &str = "league.jsonl";

/// How a league is asked to go.
#[derive(Clone, Debug, Default)]
pub struct LeagueOptions {
    /// Stop deciding matches once the league holds this many (the rows in its folder, those of
    /// every earlier run included); `None`: no such limit.
    pub matches: Option<u64>,
    /// Stop deciding matches after this long (this run).
    pub minutes: Option<f64>,
    /// Matches in flight; `None` (or 0) takes the arena's setting, else the default.
    pub concurrency: Option<usize>,
    /// The results folder; `None` is `output/name`.
    pub out: Option<PathBuf>,
    /// Who hears the league's events.
    pub events: Events,
    /// Starts the external bots; stopping it ends the league.
    pub supervisor: Supervisor,
    /// The arena file, read again when it changes while the league runs (bots added, removed or
    /// edited); `None`: the pool stays as it started.
    pub watch: Option<PathBuf>,
}

/// What `arena league` did (`--json` prints it).
#[derive(Clone, Debug, Serialize)]
pub struct LeagueReport {
    pub arena: String,
    pub results: PathBuf,
    /// Matches in the folder at the end.
    pub matches: u64,
    /// Matches this run played.
    pub played: u64,
    /// The pool changes this run made, in order (`bot `v7` joined`, ...).
    pub changes: Vec<String>,
    pub standings: Standings,
    pub warnings: Vec<Warning>,
}

/// One line of the journal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Entry {
    /// A bot joins the pool (new, back, or changed) before decision `at`.
    Join { bot: String, at: u64 },
    /// A bot leaves the pool before decision `at`.
    Leave { bot: String, at: u64 },
    /// Decision `n`: game `game` with these bots in its seats.
    Decide { n: u64, game: u64, seats: Vec<String> },
}

/// The journal read back: its entries, a torn last line dropped.
fn read_journal(path: &Path) -> Result<Vec<Entry>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    drop_torn_line(path)?;
    let file = std::fs::File::open(path).map_err(|e| Error::read(path, e))?;
    let mut entries = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| Error::read(path, e))?;
        let entry = serde_json::from_str(&line)
            .map_err(|e| corrupt(path, Some(i as u64 + 1), format!("not a journal entry: {e}")))?;
        entries.push(entry);
    }
    Ok(entries)
}

/// What the league knows while it runs, under one lock.
struct Live {
    mm: Matchmaking,
    /// The next decision's number.
    next: u64,
    /// Decided, not void, and no result yet.
    expected: BTreeSet<u64>,
    /// Results not yet given to matchmaking, by decision.
    arrived: BTreeMap<u64, MatchPlacing>,
    /// Results of the decisions below this are given to matchmaking.
    applied: u64,
    /// The units the engine may hand out (set when the league closes).
    closing: Option<u64>,
    /// Why it closed: the arena file changed.
    edited: bool,
    journal: std::fs::File,
    /// Decisions this run may still make (`--matches`).
    budget: Option<u64>,
}

/// A segment of the league (one pool) as the engine plays it: units `0..replays.len()` are the
/// decided matches without a row, then one unit per new decision.
struct Segment<'a> {
    arena: &'a Arena,
    /// The folder's secret, which the match seeds are drawn with.
    key: &'a SeedKey,
    replays: Vec<(u64, Pick)>,
    window: u64,
    deadline: Option<Instant>,
    watch: Option<(PathBuf, Option<SystemTime>)>,
    journal_path: PathBuf,
    live: Mutex<Live>,
    changed: Condvar,
    /// Per unit handed out, its decision and the bots of its seats (members).
    decisions: Mutex<BTreeMap<u64, (u64, Vec<usize>)>>,
    /// The results folder (its live report and rating history).
    dir: PathBuf,
    events: &'a Events,
    /// The matches in the folder so far, and when the leaderboard was last shown.
    shown: Mutex<(u64, Instant)>,
}

/// The leaderboard is shown, `ratings.csv` extended and `report.html` rewritten after this many
/// matches, or this long, whichever comes first.
const SHOW_EVERY: u64 = 10;
const SHOW_AFTER: Duration = Duration::from_secs(3);
/// How often the live report reloads itself in a browser, in seconds.
const RELOAD_SECONDS: u32 = 5;

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl Segment<'_> {
    fn job(&self, n: u64, pick: &Pick, live: &Live) -> Job {
        let names: Vec<&str> =
            pick.seats.iter().map(|&s| live.mm.members()[s].name.as_str()).collect();
        let seats: Vec<usize> = names
            .iter()
            .map(|name| self.arena.bot_index(name).expect("a member of the pool is in the arena"))
            .collect();
        let map = (pick.game % self.arena.maps.len() as u64) as usize;
        let mut label: Vec<&str> = names.clone();
        label.sort_by_key(|name| self.arena.bot_index(name));
        Job {
            planned: Planned {
                id: match_id(pick.game, &names),
                game: pick.game,
                pairing: n as usize,
                seats,
                map,
                seed: game_seed(self.key, self.arena.seed, pick.game),
            },
            map: self.arena.maps[map].clone(),
            label: label.join(" vs "),
        }
    }

    fn close(&self, live: &mut Live, at: u64) {
        if live.closing.is_none() {
            live.closing = Some(at);
        }
        self.changed.notify_all();
    }

    /// Decides the next match for unit `unit`, or `None` when the league closes.
    fn decide(&self, unit: u64) -> Result<Option<Job>> {
        let mut live = self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        loop {
            if live.closing.is_some_and(|c| unit >= c) {
                return Ok(None);
            }
            let out_of_time = self.deadline.is_some_and(|d| Instant::now() >= d);
            let edited = self.watch.as_ref().is_some_and(|(path, seen)| modified(path) != *seen);
            if out_of_time || live.budget == Some(0) || edited {
                live.edited |= edited;
                self.close(&mut live, unit);
                return Ok(None);
            }
            // The results up to `n - window`: all of them, and no later one.
            let n = live.next;
            let due = (n + 1).saturating_sub(self.window);
            if live.expected.range(..due).next().is_some() {
                live = self
                    .changed
                    .wait_timeout(live, Duration::from_millis(200))
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .0;
                continue;
            }
            let ready: Vec<u64> = live.arrived.range(..due).map(|(&d, _)| d).collect();
            for d in ready {
                let placing = live.arrived.remove(&d).expect("listed");
                live.mm.result(placing);
            }
            live.applied = due;
            let Some(pick) = live.mm.next(n) else {
                self.close(&mut live, unit);
                return Ok(None);
            };
            let names: Vec<String> =
                pick.seats.iter().map(|&s| live.mm.members()[s].name.clone()).collect();
            let entry = Entry::Decide { n, game: pick.game, seats: names };
            let line = serde_json::to_string(&entry).expect("an entry serializes") + "\n";
            live.journal
                .write_all(line.as_bytes())
                .and_then(|()| live.journal.flush())
                .map_err(|e| Error::write(&self.journal_path, e))?;
            live.mm.decided(&pick.seats);
            live.expected.insert(n);
            live.next += 1;
            if let Some(b) = &mut live.budget {
                *b -= 1;
            }
            self.decisions
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(unit, (n, pick.seats.clone()));
            return Ok(Some(self.job(n, &pick, &live)));
        }
    }
}

impl Segment<'_> {
    /// Tells the reporter the standings, and writes them where a browser sees them: the
    /// summaries, a line per bot of `ratings.csv`, and a `report.html` that reloads itself.
    fn show(&self, matches: u64, standings: Standings) -> Result<()> {
        append_history(&self.dir, matches, &standings)?;
        write_summaries(&self.dir, &standings)?;
        crate::view::report::write_report_live(&self.dir, Some(RELOAD_SECONDS))?;
        self.events.send(&Event::Leaderboard(Box::new(Leaderboard { matches, standings })));
        Ok(())
    }
}

/// Appends the standings' ratings to `ratings.csv`.
fn append_history(dir: &Path, matches: u64, standings: &Standings) -> Result<()> {
    use crate::view::report::history::HISTORY_FILE;
    let path = dir.join(HISTORY_FILE);
    let mut text = String::new();
    if !path.exists() {
        text.push_str("matches,bot,elo,elo_low,elo_high,games\n");
    }
    for b in standings.bots.iter().filter(|b| b.games > 0 && b.elo.is_finite()) {
        let margin = if b.elo_margin.is_finite() { b.elo_margin } else { 0.0 };
        text.push_str(&format!(
            "{matches},{},{:.1},{:.1},{:.1},{}\n",
            b.bot,
            b.elo,
            b.elo - margin,
            b.elo + margin,
            b.games
        ));
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| Error::write(&path, e))?;
    file.write_all(text.as_bytes()).map_err(|e| Error::write(&path, e))
}

impl EngineSchedule for Segment<'_> {
    fn units(&self) -> u64 {
        let live = self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        live.closing.unwrap_or(u64::MAX)
    }

    fn jobs(&self, unit: u64) -> Result<Vec<Job>> {
        if let Some((n, pick)) = self.replays.get(unit as usize) {
            self.decisions
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(unit, (*n, pick.seats.clone()));
            let live = self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            return Ok(vec![self.job(*n, pick, &live)]);
        }
        Ok(self.decide(unit)?.into_iter().collect())
    }

    fn done(&self, unit: u64, played: &[PlayedMatch]) -> Flow {
        let (n, seats) =
            self.decisions.lock().unwrap_or_else(std::sync::PoisonError::into_inner)[&unit].clone();
        let mut live = self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(p) = played.first() {
            live.expected.remove(&n);
            live.arrived.insert(n, placing_of(&seats, &p.summary));
        }
        self.changed.notify_all();
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            let at = live.next.max(unit + 1);
            self.close(&mut live, at);
        }
        let mut shown = self.shown.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        shown.0 += 1;
        let due = shown.0 % SHOW_EVERY == 0 || shown.1.elapsed() >= SHOW_AFTER;
        if due {
            shown.1 = Instant::now();
            let standings = live.mm.standings_with(live.arrived.values());
            drop(live);
            // Under `shown`'s lock: one writer of the folder's summaries at a time.
            if let Err(e) = self.show(shown.0, standings) {
                self.events.send(&Event::Warning(Warning::new(
                    super::engine::WarningKind::Live,
                    format!("the live report was not written: {e}"),
                )));
            }
        }
        Flow::Continue
    }

    fn abandon(&self, _unit: u64) {
        let mut live = self.live.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        live.closing = Some(0);
        self.changed.notify_all();
    }
}

/// The counters' view of a result, its seats' bots being members of the league.
fn placing_of(seats: &[usize], s: &crate::replay::MatchSummary) -> MatchPlacing {
    MatchPlacing {
        bots: seats.to_vec(),
        scores: s.scores.clone(),
        ranks: s.ranks.clone(),
        termination: s.termination,
        culprit: s.culprit.map(|seat| seats[seat]),
    }
}

/// The default results folder of a league.
pub(crate) fn league_dir(arena: &Arena) -> PathBuf {
    results_dir(arena, Shard::all())
}

/// A bot joining or leaving the pool, as read back from the journal or as just written to it:
/// a leaver's decided games become void, since its rows leave the tables with it.
fn apply_pool_change(
    mm: &mut Matchmaking,
    arena: &Arena,
    decided: &BTreeMap<u64, (u64, Vec<String>)>,
    void: &mut BTreeSet<u64>,
    entry: &Entry,
) {
    match entry {
        Entry::Join { bot, .. } => {
            let roles = arena.bots.iter().find(|b| b.name == *bot).map(|b| b.roles.clone());
            mm.join(bot, roles.unwrap_or_default());
        }
        Entry::Leave { bot, .. } => {
            mm.retire(bot);
            mm.forget_results_of(bot);
            void.extend(
                decided.iter().filter(|(_, (_, seats))| seats.contains(bot)).map(|(&n, _)| n),
            );
        }
        Entry::Decide { .. } => {}
    }
}

/// Runs (or resumes) a league until its budget, its time, or Ctrl-C.
pub fn league(arena: &Arena, opts: &LeagueOptions) -> Result<LeagueReport> {
    let Some(settings) = arena.league else {
        return Err(Error::Usage(format!(
            "arena `{}` is not a league (`format = \"league\"`): play it with `arena run`",
            arena.name
        )));
    };
    let dir = opts.out.clone().unwrap_or_else(|| league_dir(arena));
    let started = Instant::now();
    let deadline = opts.minutes.map(|m| started + Duration::from_secs_f64(m.max(0.0) * 60.0));
    let mut arena = arena.clone();
    let mut changes = Vec::new();
    let mut warnings = Vec::new();
    let mut played_total = 0;
    let key = arena_key(&arena, &dir)?;
    loop {
        let seen = opts.watch.as_ref().map(|p| (p.clone(), modified(p)));
        let meta = meta_of(&arena, 0, Shard::all(), Kind::League, &key);
        let (lock, update) = prepare(&dir, &meta, false, Shard::all(), &key)?;
        let journal_path = dir.join(JOURNAL_FILE);
        let entries = read_journal(&journal_path)?;
        let mut journal = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&journal_path)
            .map_err(|e| Error::write(&journal_path, e))?;

        // Matchmaking as the journal left it, then the pool's changes since.
        let mut mm = Matchmaking::new(arena.roles.clone(), settings.min_games, arena.seed);
        let mut decided: BTreeMap<u64, (u64, Vec<String>)> = BTreeMap::new();
        let mut void: BTreeSet<u64> = BTreeSet::new();
        let mut next = 0;
        for entry in &entries {
            match entry {
                Entry::Join { .. } | Entry::Leave { .. } => {
                    apply_pool_change(&mut mm, &arena, &decided, &mut void, entry);
                }
                Entry::Decide { n, game, seats } => {
                    let members: Option<Vec<usize>> = seats.iter().map(|s| mm.index(s)).collect();
                    let members = members.ok_or_else(|| {
                        corrupt(
                            &journal_path,
                            None,
                            format!("decision {n} names a bot that never joined"),
                        )
                    })?;
                    mm.decided(&members);
                    decided.insert(*n, (*game, seats.clone()));
                    next = n + 1;
                }
            }
        }
        let mut pool_changes: Vec<Entry> = Vec::new();
        let changed: BTreeSet<String> = update
            .as_ref()
            .map(|u| u.changed.iter().map(|c| c.bot.clone()).collect())
            .unwrap_or_default();
        for m in mm.members().to_vec() {
            let in_arena = arena.bot_index(&m.name).is_some();
            if m.active && (!in_arena || changed.contains(&m.name)) {
                pool_changes.push(Entry::Leave { bot: m.name.clone(), at: next });
            }
        }
        for b in &arena.bots {
            let active = mm.index(&b.name).is_some_and(|i| mm.members()[i].active);
            if !active || changed.contains(&b.name) {
                pool_changes.push(Entry::Join { bot: b.name.clone(), at: next });
            }
        }
        for entry in &pool_changes {
            let line = serde_json::to_string(entry).expect("an entry serializes") + "\n";
            journal.write_all(line.as_bytes()).map_err(|e| Error::write(&journal_path, e))?;
            apply_pool_change(&mut mm, &arena, &decided, &mut void, entry);
            match entry {
                Entry::Join { bot, .. } => changes.push(format!("bot `{bot}` joined")),
                Entry::Leave { bot, .. } if arena.bot_index(bot).is_none() => {
                    changes.push(format!("bot `{bot}` retired"));
                }
                _ => {}
            }
        }
        journal.flush().map_err(|e| Error::write(&journal_path, e))?;

        // The rows: results of decisions (by id, the latest decision of that identity).
        let mut by_id: BTreeMap<u64, u64> = BTreeMap::new();
        for (&n, (game, seats)) in &decided {
            if !void.contains(&n) {
                let names: Vec<&str> = seats.iter().map(String::as_str).collect();
                by_id.insert(match_id(*game, &names), n);
            }
        }
        let matches_path = dir.join(MATCHES_FILE);
        let kept = kept_ids(&dir)?;
        let mut with_row = BTreeSet::new();
        let mut arrived: BTreeMap<u64, MatchPlacing> = BTreeMap::new();
        let mut rows = 0u64;
        if matches_path.exists() {
            drop_torn_line(&matches_path)?;
            read_rows(&matches_path, arena.roles.len(), |line, row| {
                let names: Vec<&str> = row.seats.iter().map(|s| s.bot.as_str()).collect();
                let n =
                    by_id.get(&row.id).copied().filter(|_| match_id(row.game, &names) == row.id);
                let Some(n) = n else {
                    return Err(corrupt(
                        &matches_path,
                        Some(line),
                        format!("match {} is not one the league's journal decided", row.id),
                    ));
                };
                let members: Vec<usize> =
                    names.iter().map(|s| mm.index(s).expect("a decided bot")).collect();
                let placing = MatchPlacing {
                    bots: members.clone(),
                    scores: row.seats.iter().map(|s| s.score).collect(),
                    ranks: row.seats.iter().map(|s| s.rank).collect(),
                    termination: row.termination,
                    culprit: row
                        .culprit
                        .as_deref()
                        .and_then(|c| names.iter().position(|s| *s == c).map(|seat| members[seat])),
                };
                if arrived.insert(n, placing).is_some() {
                    return Err(corrupt(
                        &matches_path,
                        Some(line),
                        format!("match {} is recorded more than once", row.id),
                    ));
                }
                if kept.contains(&row.id) {
                    with_row.insert(row.id);
                }
                rows += 1;
                Ok(())
            })?;
        }
        let replays: Vec<(u64, Pick)> = decided
            .iter()
            .filter(|&(n, _)| !void.contains(n) && !arrived.contains_key(n))
            .map(|(&n, (game, seats))| {
                let seats = seats.iter().map(|s| mm.index(s).expect("decided")).collect();
                (n, Pick { seats, game: *game })
            })
            .collect();
        let expected: BTreeSet<u64> = replays.iter().map(|(n, _)| *n).collect();
        let budget = opts.matches.map(|m| m.saturating_sub(rows + replays.len() as u64));
        let to_play = budget.map_or(0, |b| b + replays.len() as u64);
        let segment = Segment {
            arena: &arena,
            key: &key,
            replays,
            window: settings.window.max(1),
            deadline,
            watch: seen,
            journal_path: journal_path.clone(),
            live: Mutex::new(Live {
                mm,
                next,
                expected,
                arrived,
                applied: 0,
                closing: None,
                edited: false,
                journal,
                budget,
            }),
            changed: Condvar::new(),
            decisions: Mutex::new(BTreeMap::new()),
            dir: dir.clone(),
            events: &opts.events,
            shown: Mutex::new((rows, Instant::now())),
        };
        let recorder =
            Recorder::open(&dir, arena.roles.len(), arena.replays, arena.analysis, &|id| {
                with_row.contains(&id)
            })?;
        let pool = Pool {
            arena: &arena,
            supervisor: &opts.supervisor,
            events: &opts.events,
            concurrency: threads(opts.concurrency, &arena, u64::from(u32::MAX)),
            to_play,
            unit: Unit::Match,
        };
        opts.events.send(&Event::Started(Start {
            arena: arena.name.clone(),
            command: "league",
            results: dir.clone(),
            planned: opts.matches.unwrap_or(0),
            shard: None,
            in_shard: opts.matches.unwrap_or(0),
            resumed: rows,
            to_play,
            unit: Unit::Match,
            concurrency: pool.concurrency,
            update: update.filter(|u| !u.is_empty()).map(Box::new),
        }));
        let played = pool.play(&segment, &recorder, Vec::new())?;
        recorder.finish(&dir)?;
        played_total += played.units;
        warnings.extend(played.warnings);
        let live = segment.live.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        drop(lock);
        if live.edited
            && let Some(path) = &opts.watch
        {
            // The pool changed: read the arena again and go on with it.
            match Arena::load(path) {
                Ok(edited) => arena = edited,
                Err(e) => return Err(e),
            }
            continue;
        }
        break;
    }
    let folder = Folder::open(&dir)?;
    let standings = Standings::of(&folder.tally()?);
    if played_total > 0 {
        append_history(&dir, standings.matches, &standings)?;
    }
    write_summaries(&dir, &standings)?;
    crate::view::report::write_report(&dir)?;
    Ok(LeagueReport {
        arena: arena.name.clone(),
        results: dir,
        matches: standings.matches,
        played: played_total,
        changes,
        standings,
        warnings,
    })
}

/// Appends a bot to a league's arena file (`arena league add`): a `[[bots]]` table at its end,
/// which a running league picks up. The file is checked as a whole before it is written.
pub fn add_bot(path: &Path, name: &str, spec: &str, roles: &[String]) -> Result<()> {
    let text = crate::game::read_input(path).map_err(|e| Error::read(path, e))?;
    let quote = |s: &str| toml_string(s);
    let mut table = format!("\n[[bots]]\nname = {}\nspec = {}\n", quote(name), quote(spec));
    if !roles.is_empty() {
        let list: Vec<String> = roles.iter().map(|r| quote(r)).collect();
        table += &format!("roles = [{}]\n", list.join(", "));
    }
    let edited = format!(
        "{}{}{table}",
        text,
        if text.ends_with('\n') || text.is_empty() { "" } else { "\n" }
    );
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    Arena::parse(&edited, path, &super::config::Files::Disk(base))?;
    write_atomically(path, edited.as_bytes())
}

/// Removes a bot's `[[bots]]` table from a league's arena file (`arena league retire`); its
/// matches stay on disk (archived), and a running league picks the change up.
pub fn retire_bot(path: &Path, name: &str) -> Result<()> {
    let text = crate::game::read_input(path).map_err(|e| Error::read(path, e))?;
    // The file in blocks, each from a header line (`[...]` at the start of a line) to the next.
    let mut starts: Vec<usize> = vec![0];
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with('[') {
            starts.push(at);
        }
        at += line.len();
    }
    starts.push(text.len());
    starts.dedup();
    let mut found = None;
    for w in starts.windows(2) {
        let block = &text[w[0]..w[1]];
        if !block.trim_start().starts_with("[[bots]]") {
            continue;
        }
        let body = block.trim_start().trim_start_matches("[[bots]]");
        let named = toml::from_str::<toml::Table>(body)
            .ok()
            .and_then(|t| t.get("name").and_then(|n| n.as_str().map(String::from)));
        if named.as_deref() == Some(name) {
            found = Some((w[0], w[1]));
        }
    }
    let Some((from, to)) = found else {
        return Err(Error::Usage(format!(
            "`{}` has no `[[bots]]` table named `{name}`",
            path.display()
        )));
    };
    let edited = format!("{}{}", &text[..from], &text[to..]);
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    Arena::parse(&edited, path, &super::config::Files::Disk(base))?;
    write_atomically(path, edited.as_bytes())
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
