//! Replays: one match as JSON Lines. A header (game, variant, options, the map's full text, seed,
//! seats), one line per action (seat, role, the action's exact protocol text, the time it took),
//! and the result last. `verify` plays the actions again through the rules with the recorded seed
//! and checks that they give the recorded result.

use std::io::{BufRead, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::bot::Termination;
use crate::error::{Error, Result};
use crate::game::Setup;
use crate::game::{Game, Seat, Status};
use crate::matches::{Header, MatchSummary, PlayedMatch, REPLAY_VERSION};
use crate::registry::GameDef;
use crate::seed::rules_rng;

/// One action line of a replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionLine {
    pub seat: Seat,
    pub role: String,
    pub action: String,
    pub micros: u64,
}

/// The last line of a replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultLine {
    pub result: MatchSummary,
}

/// Writes a played match as JSON Lines.
pub fn write(played: &PlayedMatch, out: &mut dyn Write) -> std::io::Result<()> {
    out.write_all(json(&played.header).as_bytes())?;
    for step in &played.steps {
        let line = ActionLine {
            seat: step.seat,
            role: played.header.seats[step.seat].role.clone(),
            action: step.action.clone(),
            micros: step.micros,
        };
        out.write_all(json(&line).as_bytes())?;
    }
    out.write_all(json(&ResultLine { result: played.summary.clone() }).as_bytes())?;
    out.flush()
}

/// Writes a replay file.
pub fn write_file(played: &PlayedMatch, path: &Path) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| Error::write(path, e))?;
    let mut out = std::io::BufWriter::new(file);
    write(played, &mut out).map_err(|e| Error::write(path, e))
}

fn json<T: Serialize>(value: &T) -> String {
    // Every record is plain data (strings, numbers, maps with string keys): it always serializes.
    let mut line = serde_json::to_string(value).expect("replay records serialize");
    line.push('\n');
    line
}

/// A replay read back from a file.
#[derive(Clone, Debug)]
pub struct Replay {
    pub header: Header,
    pub actions: Vec<ActionLine>,
    pub result: MatchSummary,
}

/// Reads a replay file, with errors naming the line.
pub fn read(path: &Path) -> Result<Replay> {
    let file = std::fs::File::open(path).map_err(|e| Error::read(path, e))?;
    let err =
        |line: usize, message: String| Error::Replay { path: path.to_path_buf(), line, message };
    let mut header: Option<Header> = None;
    let mut actions = Vec::new();
    let mut result = None;
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let n = i + 1;
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
                if h.arena_replay != REPLAY_VERSION {
                    return Err(err(n, format!("unsupported replay version {}", h.arena_replay)));
                }
                header = Some(h);
            }
            Some(_) => {
                if let Ok(r) = serde_json::from_str::<ResultLine>(&line) {
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
    let result = result.ok_or_else(|| err(0, "no result line (truncated replay?)".into()))?;
    Ok(Replay { header, actions, result })
}

/// What verifying a replay found.
#[derive(Clone, Debug)]
pub struct Verified {
    pub turns: usize,
    pub summary: MatchSummary,
}

/// Plays a replay's actions through the rules again and checks the recorded result.
pub fn verify(path: &Path) -> Result<Verified> {
    let replay = read(path)?;
    crate::with_game!(replay.header.game, D => verify_game::<D>(path, &replay))
}

fn verify_game<D: GameDef>(path: &Path, replay: &Replay) -> Result<Verified> {
    let mismatch = |message: String| Error::ReplayMismatch { path: path.to_path_buf(), message };
    let h = &replay.header;
    let setup = Setup {
        variant: h.variant.clone(),
        options: h.options.clone(),
        map: h.map.clone(),
        seed: h.seed,
    };
    let (mut game, _) = D::new_game(&setup)?;
    let roles = game.roles();
    let recorded_roles: Vec<String> = h.seats.iter().map(|s| s.role.clone()).collect();
    if roles != recorded_roles {
        return Err(mismatch(format!("roles {roles:?}, the replay says {recorded_roles:?}")));
    }
    let mut rng = rules_rng(h.seed);
    for (i, a) in replay.actions.iter().enumerate() {
        let seat = match game.status() {
            Status::ToAct(seat) => seat,
            Status::Over(_) => {
                return Err(mismatch(format!("action {} after the game ended", i + 1)));
            }
        };
        if seat != a.seat || a.role != roles[seat] {
            return Err(mismatch(format!(
                "action {}: seat {} ({}) to act, not seat {} ({})",
                i + 1,
                seat,
                roles[seat],
                a.seat,
                a.role
            )));
        }
        let view = game.view(seat);
        let action = D::G::parse_action(&view, &a.action)
            .map_err(|e| mismatch(format!("action {} {:?}: {e}", i + 1, a.action)))?;
        game.play(seat, &action, &mut rng)
            .map_err(|e| mismatch(format!("action {} {:?} is illegal: {e}", i + 1, a.action)))?;
    }
    let r = &replay.result;
    let outcome = match (game.status(), r.termination, r.culprit) {
        (Status::Over(outcome), Termination::Normal, None) => outcome,
        (Status::ToAct(seat), t, Some(culprit)) if t != Termination::Normal && seat == culprit => {
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
    if r.termination == Termination::Normal && outcome.reason != r.reason {
        return Err(mismatch(format!(
            "the rules say {:?}, the replay says {:?}",
            outcome.reason, r.reason
        )));
    }
    // The summary's own fields must tell the same story as the rules.
    let winner = outcome.winner().map(|s| roles[s].clone());
    let culprit_role = r.culprit.map(|s| roles[s].clone());
    if winner != r.winner || culprit_role != r.culprit_role || r.turns != replay.actions.len() {
        return Err(mismatch(format!(
            "the rules give winner {winner:?}, culprit {culprit_role:?} after {} actions; the \
             replay says {:?}, {:?} after {}",
            replay.actions.len(),
            r.winner,
            r.culprit_role,
            r.turns
        )));
    }
    Ok(Verified { turns: replay.actions.len(), summary: r.clone() })
}
