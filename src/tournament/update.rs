//! A results folder that grows with its arena file: rerunning an edited arena plays only what
//! the edit asks for. A bot added gets its pairings played; a bot whose program, files, limits
//! or settings changed has its matches played again; a bot removed leaves the tables. Every other
//! row stays in `matches.csv` as it was, byte for byte, since a match's id, map and seed come from
//! its identity (its game and its seats' bots by name: [`super::schedule`]), not from the bot list.
//!
//! Nothing is deleted: the rows that leave `matches.csv` (of a changed bot, of a bot removed, or
//! no longer planned: fewer games per pairing, narrower roles, another candidate) go with their
//! replays to `archive/NNN/`, itself a results folder (`meta.json` of the inputs they were played
//! with, `matches.csv`, `replays/`) that `arena report` reads, and `update.json` saying which
//! update moved them. The update is idempotent: killed half way, the next run finishes it
//! (the archive's rows are matched by id, so none is archived twice), and `meta.json` is
//! written last, so a folder is never left claiming inputs its rows do not have.
//!
//! What cannot be carried over is refused as before (`super::results::admit`): another game,
//! variant, options, maps, master seed or seed key change every match.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::inputs::{BotInputs, INPUTS_VERSION, RunInputs};
use super::results::matches::{drop_torn_line, format_header, read_rows};
use super::results::meta::Kind;
use super::results::replays::{kept_ids, link_or_copy, replay_path};
use super::results::{
    DirLock, Folder, MATCHES_FILE, META_FILE, Meta, REPLAYS_DIR, RESULTS_VERSION, admit, lock_dir,
    write_atomically,
};
use super::schedule::Shard;
use super::stats::tally::Tally;
use crate::error::{Error, Result};
use crate::seed::SeedKey;

/// The folder of a results folder's archives.
pub(crate) const ARCHIVE_DIR: &str = "archive";
/// In an archive: which update moved its rows.
const UPDATE_FILE: &str = "update.json";

/// A bot whose part of the inputs changed: its matches are played again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChangedBot {
    pub bot: String,
    /// What changed: `spec`, `files`, `limits`, `external`.
    pub what: Vec<&'static str>,
}

/// What an update of a results folder did before the run played.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Update {
    /// Bots new to the folder: their matches are new.
    pub added: Vec<String>,
    /// Bots whose program, files, limits or settings changed.
    pub changed: Vec<ChangedBot>,
    /// Bots no longer in the arena: their rows are archived, out of the tables.
    pub retired: Vec<String>,
    /// Rows kept in `matches.csv`, as they were.
    pub kept: u64,
    /// Rows archived because a bot of theirs changed (their matches are played again).
    pub replaced: u64,
    /// Rows archived because a bot of theirs was retired.
    pub of_retired: u64,
    /// Rows archived because the plan no longer has their match (fewer games, narrower roles,
    /// another candidate or format).
    pub unplanned: u64,
    /// Where the archived rows went (none when nothing was archived).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive: Option<PathBuf>,
}

/// `update.json` in an archive folder.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
struct ArchiveNote {
    /// The fingerprint of the folder before the update, and after.
    from: String,
    to: String,
}

/// Why a row leaves `matches.csv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leaves {
    Replaced,
    Retired,
    Unplanned,
}

/// Whether a bot's rows stand for the bot in `new`: the same program, files, limits and
/// settings (its roles only choose which matches are planned). What changed if not.
fn bot_changes(old: &BotInputs, new: &BotInputs) -> Vec<&'static str> {
    [
        ("spec", old.spec != new.spec),
        ("files", (&old.arena_version, &old.files) != (&new.arena_version, &new.files)),
        ("limits", old.limits != new.limits),
        ("external", old.external != new.external),
    ]
    .into_iter()
    .filter_map(|(what, differs)| differs.then_some(what))
    .collect()
}

/// Whether the folder's rows can be carried over to `new`: the same results format, a
/// tournament of the same shard, inputs recorded in this version, and the same game, variant,
/// options, roles, maps, master seed and seed key (everything every match shares).
fn carries_over(old: &Meta, new: &Meta) -> Option<(RunInputs, RunInputs)> {
    let (Some(o), Some(n)) = (&old.inputs, &new.inputs) else { return None };
    let same_setting = (&o.plan.game, &o.plan.variant, &o.plan.options, &o.plan.roles)
        == (&n.plan.game, &n.plan.variant, &n.plan.options, &n.plan.roles)
        && (&o.plan.maps, o.plan.seed, &o.plan.seed_key)
            == (&n.plan.maps, n.plan.seed, &n.plan.seed_key);
    let updatable = old.arena_results == RESULTS_VERSION
        && old.kind == new.kind
        && new.kind != Kind::Sprt
        && old.shard == new.shard
        && o.version == INPUTS_VERSION
        && n.version == INPUTS_VERSION
        && same_setting;
    updatable.then(|| (o.clone(), n.clone()))
}

/// Prepares a tournament's results folder: locks it, and either carries its rows over to `meta`
/// (archiving those that cannot be) or checks it as [`admit`] does. The update says what moved;
/// `None` when the folder was fresh, cleared, or of the same inputs.
pub(crate) fn prepare(
    dir: &Path,
    meta: &Meta,
    fresh: bool,
    shard: Shard,
    key: &SeedKey,
) -> Result<(DirLock, Option<Update>)> {
    std::fs::create_dir_all(dir).map_err(|e| Error::write(dir, e))?;
    let lock = lock_dir(dir)?;
    if !fresh && dir.join(META_FILE).exists() {
        let old = Meta::read(dir)?;
        if old != *meta
            && let Some((from, to)) = carries_over(&old, meta)
        {
            let update = carry_over(dir, &old, meta, &from, &to, shard, key)?;
            meta.write(dir)?;
            return Ok((lock, Some(update)));
        }
    }
    admit(dir, meta, fresh)?;
    Ok((lock, None))
}

/// Moves the rows `to` does not keep from `matches.csv` to a new archive, and says what moved.
fn carry_over(
    dir: &Path,
    old: &Meta,
    new: &Meta,
    from: &RunInputs,
    to: &RunInputs,
    shard: Shard,
    key: &SeedKey,
) -> Result<Update> {
    let mut update = Update::default();
    let mut replaced_bots = BTreeSet::new();
    let mut retired_bots = BTreeSet::new();
    for b in &to.bots {
        match from.bots.iter().find(|o| o.name == b.name) {
            None => update.added.push(b.name.clone()),
            Some(o) => {
                let what = bot_changes(o, b);
                if !what.is_empty() {
                    replaced_bots.insert(b.name.clone());
                    update.changed.push(ChangedBot { bot: b.name.clone(), what });
                }
            }
        }
    }
    for o in &from.bots {
        if !to.bots.iter().any(|b| b.name == o.name) {
            retired_bots.insert(o.name.clone());
            update.retired.push(o.name.clone());
        }
    }

    // Which rows leave, by line number: one pass over the rows, holding only those that leave.
    let matches = dir.join(MATCHES_FILE);
    let seats = new.roles.len();
    let schedule = to.schedule(key);
    let mut leaving: Vec<(u64, u64, Leaves)> = Vec::new();
    if matches.exists() {
        drop_torn_line(&matches)?;
        read_rows(&matches, seats, |line, row| {
            let names: Vec<&str> = row.seats.iter().map(|s| s.bot.as_str()).collect();
            let leaves = if names.iter().any(|n| replaced_bots.contains(*n)) {
                Some(Leaves::Replaced)
            } else if names.iter().any(|n| retired_bots.contains(*n)) {
                Some(Leaves::Retired)
            } else {
                // A league plans no fixed set: what its bots played stays.
                match schedule.find(row.game, &names) {
                    _ if new.kind == Kind::League => None,
                    Some(index) if schedule.shard_holds(shard, index) => None,
                    _ => Some(Leaves::Unplanned),
                }
            };
            match leaves {
                Some(why) => leaving.push((line, row.id, why)),
                None => update.kept += 1,
            }
            Ok(())
        })?;
    }
    for &(_, _, why) in &leaving {
        match why {
            Leaves::Replaced => update.replaced += 1,
            Leaves::Retired => update.of_retired += 1,
            Leaves::Unplanned => update.unplanned += 1,
        }
    }
    if leaving.is_empty() {
        return Ok(update);
    }

    // The archive: the last one if an update from and to these inputs was cut short, else a new
    // one. Rows it already holds (by id) are not written twice.
    let note = ArchiveNote { from: old.fingerprint.clone(), to: new.fingerprint.clone() };
    let archives = dir.join(ARCHIVE_DIR);
    let numbers = archive_numbers(&archives)?;
    let resumed = numbers.last().map(|n| archives.join(format!("{n:03}"))).filter(|a| {
        std::fs::read_to_string(a.join(UPDATE_FILE))
            .ok()
            .and_then(|t| serde_json::from_str::<ArchiveNote>(&t).ok())
            .is_some_and(|n| n == note)
    });
    let archive = match resumed {
        Some(a) => a,
        None => {
            let next = numbers.last().map_or(1, |n| n + 1);
            let a = archives.join(format!("{next:03}"));
            std::fs::create_dir_all(&a).map_err(|e| Error::write(&a, e))?;
            Meta { shard: old.shard.clone(), ..old.clone() }.write(&a)?;
            let text = serde_json::to_string_pretty(&note).expect("a note serializes") + "\n";
            write_atomically(&a.join(UPDATE_FILE), text.as_bytes())?;
            a
        }
    };
    let archived_path = archive.join(MATCHES_FILE);
    let mut already = BTreeSet::new();
    if archived_path.exists() {
        drop_torn_line(&archived_path)?;
        read_rows(&archived_path, seats, |_, row| {
            already.insert(row.id);
            Ok(())
        })?;
    }

    // Replays first (linked into the archive), then the rows, then the new `matches.csv`; the
    // replays left in `replays/` go last, once no row names them.
    let kept_replays = kept_ids(dir)?;
    let leaving_ids: BTreeSet<u64> = leaving.iter().map(|&(_, id, _)| id).collect();
    let with_replay: Vec<u64> = leaving_ids.intersection(&kept_replays).copied().collect();
    if !with_replay.is_empty() {
        let folder = archive.join(REPLAYS_DIR);
        std::fs::create_dir_all(&folder).map_err(|e| Error::write(&folder, e))?;
        for &id in &with_replay {
            let target = replay_path(&archive, id);
            if !target.exists() {
                link_or_copy(&replay_path(dir, id), &target)?;
            }
        }
    }
    let leaving_lines: BTreeMap<u64, u64> =
        leaving.iter().map(|&(line, id, _)| (line, id)).collect();
    let kept_tmp = dir.join("matches.csv.tmp");
    {
        let mut archived = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&archived_path)
            .map_err(|e| Error::write(&archived_path, e))?;
        if archived.metadata().map_err(|e| Error::read(&archived_path, e))?.len() == 0 {
            archived
                .write_all(format_header(seats).as_bytes())
                .map_err(|e| Error::write(&archived_path, e))?;
        }
        let mut kept = std::fs::File::create(&kept_tmp).map_err(|e| Error::write(&kept_tmp, e))?;
        let reader = std::io::BufReader::new(
            std::fs::File::open(&matches).map_err(|e| Error::read(&matches, e))?,
        );
        // No field holds a newline, so line `n` of the file is the row read at line `n`.
        for (i, line) in reader.split(b'\n').enumerate() {
            let mut line = line.map_err(|e| Error::read(&matches, e))?;
            line.push(b'\n');
            let number = i as u64 + 1;
            if let Some(id) = leaving_lines.get(&number).filter(|_| number > 1) {
                if !already.contains(id) {
                    archived.write_all(&line).map_err(|e| Error::write(&archived_path, e))?;
                }
            } else {
                kept.write_all(&line).map_err(|e| Error::write(&kept_tmp, e))?;
            }
        }
        archived.sync_all().map_err(|e| Error::write(&archived_path, e))?;
        kept.sync_all().map_err(|e| Error::write(&kept_tmp, e))?;
    }
    std::fs::rename(&kept_tmp, &matches).map_err(|e| Error::write(&matches, e))?;
    for &id in &with_replay {
        for path in [replay_path(dir, id), replay_path(dir, id).with_extension("html")] {
            if path.exists() {
                std::fs::remove_file(&path).map_err(|e| Error::write(&path, e))?;
            }
        }
    }
    drop_analysis_rows(dir, &leaving_ids)?;
    update.archive = Some(archive);
    Ok(update)
}

/// The numbers of the archives in `archives` (`001`, `002`, ...), in order.
fn archive_numbers(archives: &Path) -> Result<Vec<u32>> {
    let entries = match std::fs::read_dir(archives) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::read(archives, e)),
    };
    let mut numbers = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::read(archives, e))?;
        if let Ok(n) = entry.file_name().to_string_lossy().parse::<u32>() {
            numbers.push(n);
        }
    }
    numbers.sort_unstable();
    Ok(numbers)
}

/// Drops from `analysis.csv` the rows of matches that left `matches.csv` (a replayed match gets
/// its own; a retired bot's are no longer the folder's).
fn drop_analysis_rows(dir: &Path, ids: &BTreeSet<u64>) -> Result<()> {
    let path = dir.join(super::results::analysis::ANALYSIS_FILE);
    let Ok(file) = std::fs::File::open(&path) else { return Ok(()) };
    let mut out = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| Error::read(&path, e))?;
        let id = line.split(',').next().and_then(|f| f.parse::<u64>().ok());
        if i == 0 || !id.is_some_and(|id| ids.contains(&id)) {
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
    }
    write_atomically(&path, &out)
}

impl Update {
    /// Whether the update changed anything a user should hear about.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.changed.is_empty()
            && self.retired.is_empty()
            && self.replaced + self.of_retired + self.unplanned == 0
    }
}

/// The counters of a folder's rows plus the archived rows of its retired bots (`--retired`):
/// the rows of bots no longer in the arena, against bots that are (as they are now) or are
/// retired too. An archived match counts once, in its latest archive.
pub(crate) fn tally_with_retired(folder: &Folder) -> Result<Tally> {
    let current = folder.meta.inputs.as_ref();
    let archives = folder.dir.join(ARCHIVE_DIR);
    let mut retired: Vec<String> = Vec::new();
    let mut sources: Vec<(PathBuf, Meta)> = Vec::new();
    for n in archive_numbers(&archives)?.into_iter().rev() {
        let dir = archives.join(format!("{n:03}"));
        let meta = Meta::read(&dir)?;
        for bot in &meta.bots {
            if !folder.meta.bots.contains(bot) && !retired.contains(bot) {
                retired.push(bot.clone());
            }
        }
        sources.push((dir, meta));
    }
    retired.sort();
    let mut bots = folder.meta.bots.clone();
    bots.extend(retired.iter().cloned());
    let mut tally = Tally::new(bots.clone(), folder.meta.roles.clone());
    let path = folder.dir.join(MATCHES_FILE);
    folder.rows(|line, row| {
        let placing = row
            .placing(&bots)
            .map_err(|e| super::results::corrupt(&path, Some(line), e.to_string()))?;
        tally.add(&placing);
        Ok(())
    })?;
    let mut counted = BTreeSet::new();
    for (dir, meta) in sources {
        // A bot of the archive stands for itself now if it is retired, or if it is still in
        // the arena with the same program, files, limits and settings.
        let stands = |name: &str| {
            if retired.iter().any(|r| r == name) {
                return true;
            }
            let then = meta.inputs.as_ref().and_then(|i| i.bots.iter().find(|b| b.name == name));
            let now = current.and_then(|i| i.bots.iter().find(|b| b.name == name));
            matches!((then, now), (Some(t), Some(n)) if bot_changes(t, n).is_empty())
        };
        let rows = dir.join(MATCHES_FILE);
        if !rows.exists() {
            continue;
        }
        read_rows(&rows, folder.meta.roles.len(), |line, row| {
            let of_retired = row.seats.iter().any(|s| retired.contains(&s.bot));
            if of_retired && row.seats.iter().all(|s| stands(&s.bot)) && counted.insert(row.id) {
                let placing = row
                    .placing(&bots)
                    .map_err(|e| super::results::corrupt(&rows, Some(line), e.to_string()))?;
                tally.add(&placing);
            }
            Ok(())
        })?;
    }
    Ok(tally)
}
