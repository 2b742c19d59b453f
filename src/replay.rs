//! The replay format, all of it: one match as JSON Lines. A [`Header`] (game, variant, options,
//! the map's full text, seed, seats), one [`ActionLine`] per action (seat, role, the action's
//! exact protocol text, the time it took), and the result last (a [`MatchSummary`] under
//! `"result"`). [`write`] and [`read`] are the two directions. [`walk`] plays the actions again
//! through the rules with the recorded seed, telling a [`Visitor`] what each did (as pgn-reader
//! walks a game for its visitors): [`verify`] checks the recorded result with it, and the viewer's
//! frames and the analysis are visitors too, so a replay the rules refuse gets the same message
//! from each.
//!
//! The field names are the format: files written by earlier versions must keep reading (the
//! tests keep some under `tests/data/replays/earlier/`), so a field may be added with a default but never
//! renamed. [`MatchSummary`] is also the record a tournament's row is made from.

#![warn(missing_docs)]

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use rand_chacha::ChaCha8Rng;

use crate::bot::{BotFailure, BotReport, Termination, TimeLimits, TurnLog};
use crate::error::{Error, Result};
use crate::game::{Game, MapText, Outcome, Seat, Setup, Status};
use crate::games::GameId;
use crate::referee::{MatchResult, Step};
use crate::registry::GameDef;
use crate::seed::rules_rng;

/// The version of the format, the header's `arena_replay`. Version 2 is version 1 with other
/// option defaults: a header names only the options given, so a replay of version 1 is set up
/// with the defaults of its day ([`GameDef::REPLAY_V1_OPTIONS`]) and verifies as it did.
pub const REPLAY_VERSION: u32 = 2;

/// The versions this build reads.
const READABLE_VERSIONS: std::ops::RangeInclusive<u32> = 1..=REPLAY_VERSION;

/// One seat of a played match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatInfo {
    /// The seat, from 0.
    pub seat: Seat,
    /// The role it played.
    pub role: String,
    /// The player's name.
    pub bot: String,
    /// The bot spec it ran.
    pub spec: String,
    /// The time limits it played under.
    pub limits: TimeLimits,
}

/// The first line of a replay: what is needed to play the match again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The replay format's version.
    pub arena_replay: u32,
    /// The game.
    pub game: GameId,
    /// Its variant.
    pub variant: String,
    /// Its options, as given.
    pub options: BTreeMap<String, String>,
    /// The map, whole, so the replay stands alone.
    pub map: MapText,
    /// The match's seed.
    pub seed: u64,
    /// Every seat, in order.
    pub seats: Vec<SeatInfo>,
}

impl Header {
    /// The setup of the match the header records: its options, and for a replay of an earlier
    /// version the defaults it was played under where they have changed since.
    pub fn setup<D: GameDef>(&self) -> Setup {
        let mut options = self.options.clone();
        if self.arena_replay == 1 {
            for &(key, value) in D::REPLAY_V1_OPTIONS {
                options.entry(key.to_string()).or_insert_with(|| value.to_string());
            }
        }
        Setup { variant: self.variant.clone(), options, map: self.map.clone(), seed: self.seed }
    }
}

/// Sets up the match a replay's header records and checks the header's seats against the game's
/// roles: where verifying, viewing and analysing a replay start. Errors name `path`.
pub fn game_of_header<D: GameDef>(path: &Path, h: &Header) -> Result<D::G> {
    let mismatch = |message: String| Error::ReplayMismatch { path: path.to_path_buf(), message };
    let (game, _) = D::new_game(&h.setup::<D>()).map_err(|e| header_error(path, h, e))?;
    let roles = game.roles();
    let recorded: Vec<&str> = h.seats.iter().map(|s| s.role.as_str()).collect();
    if roles != recorded {
        return Err(mismatch(format!("roles {roles:?}, the replay says {recorded:?}")));
    }
    for (i, s) in h.seats.iter().enumerate() {
        if s.seat != i {
            return Err(mismatch(format!("the header's seat {i} says it is seat {}", s.seat)));
        }
    }
    Ok(game)
}

/// The last line of a replay: how the match ended, with seats named by role. Made once from the
/// referee's [`MatchResult`] by [`MatchSummary::new`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchSummary {
    /// The role that won, or `None` for a draw or a shared first place.
    pub winner: Option<String>,
    /// Each seat's score.
    pub scores: Vec<f64>,
    /// Each seat's rank (1 is first).
    pub ranks: Vec<u32>,
    /// The game's reason (or the forfeit's).
    pub reason: String,
    /// How the match ended.
    pub termination: Termination,
    /// The seat whose failure ended the match.
    pub culprit: Option<Seat>,
    /// That seat's role.
    pub culprit_role: Option<String>,
    /// For a failure: what went wrong.
    pub detail: Option<String>,
    /// For a `garbage` or `illegal` ending: the culprit's line (absent from replays written
    /// before it was recorded, and for other endings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offending: Option<String>,
    /// Actions played.
    pub turns: usize,
    /// The match's wall-clock time, in milliseconds.
    pub duration_ms: f64,
    /// Per seat, the longest decision, in microseconds.
    pub max_turn_micros: Vec<u64>,
    /// Per seat, the most CPU time one decision used, in microseconds (absent from replays
    /// written before it was recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub max_turn_cpu_micros: Vec<u64>,
    #[serde(default)]
    /// Per seat, what the bot left behind (kept for the culprit only).
    pub reports: Vec<BotReport>,
}

impl MatchSummary {
    /// The summary of the referee's result; `roles` names the seats.
    pub fn new(result: &MatchResult, roles: &[String]) -> MatchSummary {
        MatchSummary {
            winner: result.outcome.winner().map(|s| roles[s].clone()),
            scores: result.outcome.scores.clone(),
            ranks: result.outcome.ranks.clone(),
            reason: result.outcome.reason.clone(),
            termination: result.termination,
            culprit: result.culprit,
            culprit_role: result.culprit.map(|s| roles[s].clone()),
            detail: result.detail.clone(),
            offending: result.offending.clone(),
            turns: result.turns(),
            duration_ms: result.duration.as_secs_f64() * 1000.0,
            max_turn_micros: result.max_turn_micros.clone(),
            max_turn_cpu_micros: result.max_turn_cpu_micros.clone(),
            // The stderr tail explains a failure; the other seats' chatter would only bloat
            // replays.
            reports: (0..roles.len())
                .map(|s| {
                    if result.culprit == Some(s) {
                        result.reports[s].clone()
                    } else {
                        BotReport::default()
                    }
                })
                .collect(),
        }
    }

    /// The game's outcome as the summary records it.
    pub fn outcome(&self) -> Outcome {
        Outcome {
            scores: self.scores.clone(),
            ranks: self.ranks.clone(),
            reason: self.reason.clone(),
        }
    }
}

/// One action line of a replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionLine {
    /// The seat that acted.
    pub seat: Seat,
    /// Its role.
    pub role: String,
    /// The action's protocol text.
    pub action: String,
    /// Wall time of the decision, in microseconds.
    pub micros: u64,
    /// CPU time of the decision, in microseconds (absent where it could not be read, and from
    /// replays written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_micros: Option<u64>,
    /// What the bot wrote to stderr during the decision, capped with the cut marked (absent
    /// when it wrote nothing, when stderr was not kept, and from earlier replays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// The metrics its `@metric` lines reported during the decision.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metrics: BTreeMap<String, f64>,
}

impl ActionLine {
    /// The line of a referee's step, its role named from the header.
    pub fn new(header: &Header, step: &Step) -> ActionLine {
        ActionLine {
            seat: step.seat,
            role: header.seats[step.seat].role.clone(),
            action: step.action.clone(),
            micros: step.micros,
            cpu_micros: step.cpu_micros,
            stderr: step.log.stderr.clone(),
            metrics: step.log.metrics.clone(),
        }
    }

    /// The decision's log, as the referee recorded it.
    pub fn log(&self) -> TurnLog {
        TurnLog { stderr: self.stderr.clone(), metrics: self.metrics.clone() }
    }
}

/// The last line of a replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct ResultLine {
    result: MatchSummary,
}

/// Writes a match as JSON Lines: the header, an action line per step, the result.
pub fn write(
    header: &Header,
    steps: &[Step],
    result: &MatchSummary,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    out.write_all(json(header).as_bytes())?;
    for step in steps {
        out.write_all(json(&ActionLine::new(header, step)).as_bytes())?;
    }
    out.write_all(json(&ResultLine { result: result.clone() }).as_bytes())?;
    out.flush()
}

/// Writes a replay file.
pub fn write_file(
    header: &Header,
    steps: &[Step],
    result: &MatchSummary,
    path: &Path,
) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| Error::write(path, e))?;
    let mut out = std::io::BufWriter::new(file);
    write(header, steps, result, &mut out).map_err(|e| Error::write(path, e))
}

fn json<T: Serialize>(value: &T) -> String {
    // Every record is plain data (strings, numbers, maps with string keys): it always serializes.
    let mut line = serde_json::to_string(value).expect("replay records serialize");
    line.push('\n');
    line
}

/// A replay read back from a file.
#[derive(Clone, Debug, Serialize)]
pub struct Replay {
    /// The first line.
    pub header: Header,
    /// The actions, in order.
    pub actions: Vec<ActionLine>,
    /// The last line.
    pub result: MatchSummary,
}

/// The largest replay file read (1 GiB: a Risk game of 45,000 actions is about 3 MB).
pub const MAX_REPLAY_BYTES: u64 = 1 << 30;

/// Reads a replay file, with errors naming the line.
pub fn read(path: &Path) -> Result<Replay> {
    let file = std::fs::File::open(path).map_err(|e| Error::read(path, e))?;
    let err =
        |line: usize, message: String| Error::Replay { path: path.to_path_buf(), line, message };
    let size = file.metadata().map_err(|e| Error::read(path, e))?.len();
    if size > MAX_REPLAY_BYTES {
        return Err(err(
            1,
            format!(
                "the file has {size} bytes, more than the {MAX_REPLAY_BYTES} a replay may have"
            ),
        ));
    }
    let mut header: Option<Header> = None;
    let mut actions = Vec::new();
    let mut result = None;
    let mut last_line = 1;
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let n = i + 1;
        last_line = n;
        let line = line.map_err(|e| Error::read(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        if result.is_some() {
            return Err(err(n, "a line after the result".into()));
        }
        match &header {
            None => {
                let h: Header =
                    serde_json::from_str(&line).map_err(|e| err(n, format!("bad header: {e}")))?;
                if !READABLE_VERSIONS.contains(&h.arena_replay) {
                    return Err(err(n, format!("unsupported replay version {}", h.arena_replay)));
                }
                header = Some(h);
            }
            Some(_) => {
                if line.trim_start().starts_with("{\"result\"") {
                    // A result line that does not parse is a bad result, not a bad action.
                    let r: ResultLine = serde_json::from_str(&line)
                        .map_err(|e| err(n, format!("bad result line: {e}")))?;
                    result = Some(r.result);
                } else if let Ok(r) = serde_json::from_str::<ResultLine>(&line) {
                    result = Some(r.result);
                } else {
                    let a: ActionLine = serde_json::from_str(&line)
                        .map_err(|e| err(n, format!("neither an action nor the result: {e}")))?;
                    actions.push(a);
                }
            }
        }
    }
    let header = header.ok_or_else(|| err(1, "empty replay".into()))?;
    let result = result.ok_or_else(|| {
        err(last_line, "no result line after the last action (truncated replay?)".into())
    })?;
    Ok(Replay { header, actions, result })
}

/// A header that does not set up a match (its map, variant or options): the error names the
/// replay file and its header line, where the map's own name would point at a file that may not
/// exist here.
pub fn header_error(path: &Path, header: &Header, e: crate::game::SetupError) -> Error {
    Error::Replay {
        path: path.to_path_buf(),
        line: 1,
        message: format!("the header's match (game `{}`) cannot be set up: {e}", header.game),
    }
}

/// One recorded action as a walk plays it: the record, and what the rules read in it.
pub struct WalkStep<'a, G: Game> {
    /// The action's number in the match, from 1.
    pub number: usize,
    /// The seat that acted (the rules confirmed it was that seat's turn).
    pub seat: Seat,
    /// The line as recorded. A visitor reads the fields it needs and ignores the others, so a
    /// field added to the format reaches the visitors that want it and changes no other.
    pub record: &'a ActionLine,
    /// What the seat saw when it chose.
    pub view: &'a G::View,
    /// The action the rules read from the record's text.
    pub action: &'a G::Action,
}

/// What a [`walk`] tells as it plays a replay's actions: the match as set up, then each action
/// before and after the rules play it. Every method does nothing unless a visitor says otherwise,
/// so a visitor writes only what it needs (`()` needs nothing: a walk that only checks).
pub trait Visitor<G: Game> {
    /// The match as set up, before the first action.
    fn start(&mut self, game: &G) {
        let _ = game;
    }

    /// `step` is about to be played on `game`.
    fn before(&mut self, step: &WalkStep<'_, G>, game: &G) {
        let _ = (step, game);
    }

    /// `step` was played: `game` is the state after it.
    fn after(&mut self, step: &WalkStep<'_, G>, game: &G) {
        let _ = (step, game);
    }
}

impl<G: Game> Visitor<G> for () {}

/// Where a walk ended: the state after the last action, and the rules' RNG as it was then (a
/// fault at the next turn is re-checked from it).
pub struct Walked<G> {
    /// The state after the last action.
    pub game: G,
    /// The rules' RNG after the last action.
    pub rng: ChaCha8Rng,
}

/// Plays `actions` through the rules from `game` (the match `header` sets up, as
/// [`game_of_header`] makes it) with the recorded seed, telling `visitor` about each. An action
/// the rules refuse (out of turn, by the wrong role, unreadable, illegal, after the end) is an
/// [`Error::ReplayMismatch`] naming `source` and the action's number.
pub fn walk<G: Game>(
    source: &Path,
    header: &Header,
    mut game: G,
    actions: &[ActionLine],
    visitor: &mut impl Visitor<G>,
) -> Result<Walked<G>> {
    let mismatch = |message: String| Error::ReplayMismatch { path: source.to_path_buf(), message };
    let roles = game.roles();
    let mut rng = rules_rng(header.seed);
    visitor.start(&game);
    for (i, record) in actions.iter().enumerate() {
        let number = i + 1;
        let seat = match game.status() {
            Status::ToAct(seat) => seat,
            Status::Over(_) => {
                return Err(mismatch(format!("action {number} after the game ended")));
            }
        };
        if seat != record.seat || record.role != roles[seat] {
            return Err(mismatch(format!(
                "action {number}: seat {seat} ({}) to act, not seat {} ({})",
                roles[seat], record.seat, record.role
            )));
        }
        let text = &record.action;
        let view = game.view(seat);
        let action = G::parse_action(&view, text)
            .map_err(|e| mismatch(format!("action {number} {text:?}: {e}")))?;
        let step = WalkStep { number, seat, record, view: &view, action: &action };
        visitor.before(&step, &game);
        game.play(seat, &action, &mut rng)
            .map_err(|e| mismatch(format!("action {number} {text:?} is illegal: {e}")))?;
        visitor.after(&step, &game);
    }
    Ok(Walked { game, rng })
}

/// What verifying a replay found.
#[derive(Clone, Debug, Serialize)]
pub struct Verified {
    /// Actions played again.
    pub turns: usize,
    /// The recorded result, which the rules confirmed.
    pub summary: MatchSummary,
    /// What the replay cannot show, when the match ended by a fault the rules cannot re-check
    /// (a timeout, a crash, a closed output: the moves and the forfeit's scores were checked,
    /// the fault itself is the harness's word), or by a `garbage` / `illegal` line a replay of
    /// an earlier arena did not record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unverifiable: Option<String>,
}

/// Plays a replay's actions through the rules again and checks the recorded result.
pub fn verify(path: &Path) -> Result<Verified> {
    let replay = read(path)?;
    crate::with_game!(replay.header.game, D => verify_game::<D>(path, &replay))
}

fn verify_game<D: GameDef>(path: &Path, replay: &Replay) -> Result<Verified> {
    let mismatch = |message: String| Error::ReplayMismatch { path: path.to_path_buf(), message };
    let h = &replay.header;
    let start = game_of_header::<D>(path, h)?;
    let roles = start.roles();
    let Walked { game, rng } = walk(path, h, start, &replay.actions, &mut ())?;
    let r = &replay.result;
    let unverifiable = check_fault::<D>(&game, &rng, r).map_err(mismatch)?;
    let outcome = match (game.status(), r.termination, r.culprit) {
        (Status::Over(outcome), t, None) if t == Termination::of_rules(&game) => outcome,
        (Status::ToAct(seat), t, Some(culprit)) if t.is_fault() && seat == culprit => {
            game.forfeit(culprit, r.detail.as_deref().unwrap_or_default())
        }
        (status, t, culprit) => {
            return Err(mismatch(format!(
                "the rules end in {status:?}, the replay says termination {t} with culprit {culprit:?}"
            )));
        }
    };
    if outcome.scores != r.scores || outcome.ranks != r.ranks {
        return Err(mismatch(format!(
            "the rules give scores {:?} ranks {:?}, the replay says {:?} {:?}",
            outcome.scores, outcome.ranks, r.scores, r.ranks
        )));
    }
    if !r.termination.is_fault() && outcome.reason != r.reason {
        return Err(mismatch(format!(
            "the rules say {:?}, the replay says {:?}",
            outcome.reason, r.reason
        )));
    }
    // The summary's own fields must tell the same story as the rules.
    let winner = outcome.winner().map(|s| roles[s].clone());
    let culprit_role = r.culprit.map(|s| roles[s].clone());
    if winner != r.winner || culprit_role != r.culprit_role || r.turns != replay.actions.len() {
        let shown = |role: &Option<String>| match role {
            Some(role) => format!("`{role}`"),
            None => "none".to_string(),
        };
        return Err(mismatch(format!(
            "the rules give winner {}, culprit {} after {} actions; the replay says winner {}, \
             culprit {} after {} turns",
            shown(&winner),
            shown(&culprit_role),
            replay.actions.len(),
            shown(&r.winner),
            shown(&r.culprit_role),
            r.turns
        )));
    }
    Ok(Verified { turns: replay.actions.len(), summary: r.clone(), unverifiable })
}

/// Re-checks how a fault happened where the rules can: a `garbage` line must be one the game
/// cannot read (or, read, one written between turns), an `illegal` one must be refused by the
/// rules, each with the detail the referee would have written. Returns what cannot be checked.
fn check_fault<D: GameDef>(
    game: &D::G,
    rng: &ChaCha8Rng,
    r: &MatchSummary,
) -> std::result::Result<Option<String>, String> {
    let (Some(culprit), Status::ToAct(_)) = (r.culprit, game.status()) else {
        return Ok(None);
    };
    let line = match (r.termination, &r.offending) {
        (Termination::Garbage | Termination::Illegal, Some(line)) => line,
        (Termination::Garbage | Termination::Illegal, None) => {
            return Ok(Some(format!(
                "the {} line was not recorded (a replay of an earlier arena): the moves and the \
                 forfeit were checked, not the line",
                r.termination
            )));
        }
        (t, Some(line)) => {
            return Err(format!("a {t} has no offending line, the replay records {line:?}"));
        }
        (t, None) => {
            return Ok(Some(format!(
                "a {t} is the harness's observation, which a replay cannot show: the moves and the \
                 forfeit's scores were checked, not the {t} itself"
            )));
        }
    };
    let view = game.view(culprit);
    let expected = match (r.termination, D::G::parse_action(&view, line)) {
        (Termination::Garbage, Err(bad)) => {
            BotFailure::Garbage { line: line.clone(), reason: bad.reason }.to_string()
        }
        (Termination::Garbage, Ok(_)) => BotFailure::Garbage {
            line: line.clone(),
            reason: crate::bot::external::EXTRA_LINE_REASON.into(),
        }
        .to_string(),
        (_, Err(bad)) => {
            return Err(format!(
                "the illegal action {line:?} is not even an action ({}): it was garbage",
                bad.reason
            ));
        }
        (_, Ok(action)) => match game.clone().play(culprit, &action, &mut rng.clone()) {
            Ok(()) => return Err(format!("the illegal action {line:?} is legal here")),
            Err(illegal) => format!("illegal action {line:?}: {illegal}"),
        },
    };
    if r.detail.as_deref() != Some(expected.as_str()) {
        return Err(format!(
            "the rules' detail is {expected:?}, the replay says {:?}",
            r.detail.as_deref().unwrap_or_default()
        ));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replays written by an earlier arena (see `tests/data/replays/earlier/SOURCE.md`).
    fn legacy_replays() -> Vec<std::path::PathBuf> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/replays/earlier");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("the replays folder")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        files.sort();
        files
    }

    /// The referee's steps a replay's action lines record.
    fn steps_of(replay: &Replay) -> Vec<Step> {
        replay
            .actions
            .iter()
            .map(|a| Step {
                seat: a.seat,
                action: a.action.clone(),
                micros: a.micros,
                cpu_micros: a.cpu_micros,
                log: a.log(),
            })
            .collect()
    }

    #[test]
    fn replays_of_an_earlier_version_read_verify_and_write_back_byte_for_byte() {
        let files = legacy_replays();
        assert_eq!(files.len(), 5, "{files:?}");
        for path in files {
            let replay = read(&path).unwrap_or_else(|e| panic!("{e}"));
            let verified = verify(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(verified.turns, replay.actions.len());
            let mut written = Vec::new();
            write(&replay.header, &steps_of(&replay), &replay.result, &mut written)
                .expect("in memory");
            let original = std::fs::read_to_string(&path).expect("the file");
            assert_eq!(String::from_utf8(written).expect("UTF-8"), original, "{}", path.display());
        }
    }

    #[test]
    fn a_version_1_replay_plays_under_the_defaults_of_its_day_and_a_version_2_one_under_todays() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/replays/earlier");
        let v1 = dir.join("skynet_ep1_repeated_cut.jsonl");
        assert!(verify(&v1).is_ok(), "version 1: a repeated cut loses");
        let text = std::fs::read_to_string(&v1).expect("the file");
        let tmp = tempfile::tempdir().expect("a temp dir");
        let v2 = tmp.path().join("v2.jsonl");
        std::fs::write(&v2, text.replacen("\"arena_replay\":1,", "\"arena_replay\":2,", 1))
            .expect("write");
        let err = verify(&v2).expect_err("version 2: Episode 1 lets a repeated cut pass");
        assert!(err.to_string().contains("is legal here"), "{err}");
    }

    /// Records what a walk tells it, in order.
    #[derive(Default)]
    struct Log {
        calls: Vec<String>,
    }

    impl<G: Game> Visitor<G> for Log {
        fn start(&mut self, game: &G) {
            self.calls.push(format!("start {:?}", game.status()));
        }

        fn before(&mut self, step: &WalkStep<'_, G>, game: &G) {
            assert_eq!(game.status(), Status::ToAct(step.seat), "before: the seat is to act");
            assert_eq!(G::format_action(step.action), step.record.action);
            self.calls.push(format!("before {} {}", step.number, step.record.action));
        }

        fn after(&mut self, step: &WalkStep<'_, G>, game: &G) {
            assert_ne!(game.status(), Status::ToAct(step.seat), "after: the turn moved on");
            self.calls.push(format!("after {}", step.number));
        }
    }

    #[test]
    fn a_walk_tells_its_visitor_every_action_before_and_after_the_rules_play_it() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/replays/earlier");
        let path = dir.join("skynet_ep2.jsonl");
        let replay = read(&path).expect("a replay");
        let game = game_of_header::<crate::games::skynet::Skynet>(&path, &replay.header).unwrap();
        let mut log = Log::default();
        let walked = walk(&path, &replay.header, game, &replay.actions, &mut log).unwrap();
        let n = replay.actions.len();
        assert!(n >= 2, "{n} actions");
        assert_eq!(log.calls.len(), 1 + 2 * n, "{:?}", log.calls);
        assert!(log.calls[0].starts_with("start ToAct(0)"), "{:?}", log.calls);
        for (i, a) in replay.actions.iter().enumerate() {
            assert_eq!(log.calls[1 + 2 * i], format!("before {} {}", i + 1, a.action));
            assert_eq!(log.calls[2 + 2 * i], format!("after {}", i + 1));
        }
        assert_eq!(walked.game.status(), Status::Over(replay.result.outcome()));
    }

    #[test]
    fn verify_view_and_analysis_refuse_a_tampered_replay_with_one_message() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/replays/earlier");
        let original = read(&dir.join("skynet_ep2.jsonl")).expect("a replay");
        let tmp = tempfile::tempdir().expect("a temp dir");
        let tampered = |name: &str, edit: &dyn Fn(&mut Replay)| {
            let mut replay = original.clone();
            edit(&mut replay);
            let path = tmp.path().join(name);
            write_file(&replay.header, &steps_of(&replay), &replay.result, &path).expect("written");
            path
        };
        type Edit = dyn Fn(&mut Replay);
        let cases: [(&str, &Edit, &str); 4] = [
            (
                "illegal.jsonl",
                &|r| r.actions[0].action = "0 99".into(),
                "action 1 \"0 99\" is illegal",
            ),
            ("garbage.jsonl", &|r| r.actions[1].action = "x".into(), "action 2 \"x\": "),
            (
                "turn.jsonl",
                &|r| r.actions.swap(0, 1),
                "action 1: seat 0 (virus) to act, not seat 1",
            ),
            ("extra.jsonl", &|r| r.actions.push(r.actions[0].clone()), "after the game ended"),
        ];
        for (name, edit, expected) in cases {
            let path = tampered(name, edit);
            let verified = verify(&path).unwrap_err().to_string();
            assert!(verified.contains(expected), "{name}: {verified}");
            let viewed = crate::view::render_replay(&path, crate::view::Analysis::Off)
                .unwrap_err()
                .to_string();
            let analysed =
                crate::analysis::analyze_file(&path, Default::default()).unwrap_err().to_string();
            assert_eq!(viewed, verified, "{name}");
            assert_eq!(analysed, verified, "{name}");
        }
    }

    #[test]
    fn the_fault_replay_keeps_its_culprit_and_stderr_report() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/replays/earlier");
        let replay = read(&dir.join("skynet_fault.jsonl")).expect("a replay");
        let r = &replay.result;
        assert_eq!(
            (r.termination, r.culprit, r.culprit_role.as_deref()),
            (Termination::Crash, Some(0), Some("virus"))
        );
        assert_eq!(r.reports.len(), 2);
        assert_eq!(replay.header.seats[0].spec, "cmd:false");
    }
}
