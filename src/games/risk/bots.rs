//! Built-in Risk bots: `greedy` (attacks while the exact odds favour it) and `planner` (targets
//! continents along the cheapest attack paths of [`super::paths`], holds its borders and times its
//! card trades); `random` is the registry's.
//!
//! Both decide from the view alone (their own cards, the others' card counts) and every
//! answer they give is legal: the tests play thousands of their decisions through the rules.

use super::battle::Odds;
use super::cards::{self, Card};
use super::rules::{FortifyRule, Phase, Risk, RiskAction, RiskView, UNCLAIMED};
use crate::bot::{Bot, BotFailure, TurnContext};
use crate::game::Seat;

/// Attack odds for armies up to [`WinTable::MAX`]; larger stacks are scaled down in proportion.
pub(crate) struct WinTable {
    table: Vec<Vec<f64>>,
}

impl Default for WinTable {
    fn default() -> WinTable {
        WinTable::new()
    }
}

impl WinTable {
    pub(crate) const MAX: u32 = 100;

    pub(crate) fn new() -> WinTable {
        WinTable { table: Odds::new().conquer_table(WinTable::MAX, WinTable::MAX) }
    }

    /// The chance that `attackers` armies on a territory conquer `defenders`.
    pub(crate) fn conquer(&self, attackers: u32, defenders: u32) -> f64 {
        let (mut a, mut d) = (attackers, defenders);
        if a > WinTable::MAX || d > WinTable::MAX {
            let scale = f64::from(a.max(d)) / f64::from(WinTable::MAX);
            a = ((f64::from(a) / scale) as u32).clamp(1, WinTable::MAX);
            d = ((f64::from(d) / scale).ceil() as u32).clamp(1, WinTable::MAX);
        }
        self.table[a as usize][d as usize]
    }
}

#[cfg(test)]
#[test]
fn the_win_table_scales_big_stacks() {
    let w = WinTable::new();
    assert!((w.conquer(3, 1) - 0.7542).abs() < 1e-4);
    assert!(w.conquer(1000, 300) > 0.99);
    assert!(w.conquer(300, 1000) < 0.01);
    assert!(w.conquer(1000, 1000) > 0.3 && w.conquer(1000, 1000) < 0.9);
}

fn territories(g: &Risk) -> std::ops::Range<usize> {
    0..g.map.len()
}

/// The neighbours of `t` held by someone other than `t`'s owner.
fn enemy_neighbours(g: &Risk, t: usize) -> impl Iterator<Item = usize> + '_ {
    let me = g.owner[t];
    g.map.adj[t].iter().copied().filter(move |&n| g.owner[n] != me)
}

fn is_border(g: &Risk, t: usize) -> bool {
    enemy_neighbours(g, t).next().is_some()
}

/// Enemy armies next to `t`.
fn threat(g: &Risk, t: usize) -> u32 {
    enemy_neighbours(g, t).map(|n| g.armies[n]).sum()
}

fn legal_attacks(g: &Risk, me: u32) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for from in territories(g) {
        if g.owner[from] == me && g.armies[from] >= 2 {
            for to in enemy_neighbours(g, from) {
                out.push((from, to));
            }
        }
    }
    out
}

fn max_dice(g: &Risk, from: usize) -> u32 {
    (g.armies[from] - 1).min(3)
}

/// Own territories `from` may fortify, under the game's fortify rule.
fn fortify_targets(g: &Risk, from: usize) -> Vec<usize> {
    let me = g.owner[from];
    match g.opts.fortify {
        FortifyRule::Adjacent => {
            g.map.adj[from].iter().copied().filter(|&t| g.owner[t] == me).collect()
        }
        FortifyRule::Chain => {
            let mut seen = vec![false; g.map.len()];
            seen[from] = true;
            let mut stack = vec![from];
            let mut out = Vec::new();
            while let Some(t) = stack.pop() {
                for &n in &g.map.adj[t] {
                    if !seen[n] && g.owner[n] == me {
                        seen[n] = true;
                        out.push(n);
                        stack.push(n);
                    }
                }
            }
            out.sort_unstable();
            out
        }
    }
}

/// A set to trade, putting first a card whose territory `me` owns (it earns the +2 armies) and
/// preferring sets without wilds.
fn best_set(g: &Risk, seat: Seat) -> Option<[Card; 3]> {
    let n = g.map.len();
    let me = seat as u32;
    let owned = |c: Card| cards::territory(c, n).is_some_and(|t| g.owner[t] == me);
    let wilds = |s: &[Card; 3]| s.iter().filter(|&&c| cards::territory(c, n).is_none()).count();
    let mut sets = cards::sets_in(&g.hands[seat], n);
    sets.sort_by_key(|s| (wilds(s), usize::from(!s.iter().any(|&c| owned(c)))));
    sets.into_iter().next().map(|mut s| {
        if let Some(i) = s.iter().position(|&c| owned(c)) {
            s.swap(0, i);
        }
        s
    })
}

/// Reinforces the territory with the best attack, attacks while the exact odds of conquering
/// favour it, trades as soon as it can.
pub(crate) struct GreedyBot {
    odds: WinTable,
}

impl Default for GreedyBot {
    fn default() -> GreedyBot {
        GreedyBot::new()
    }
}

impl GreedyBot {
    pub(crate) fn new() -> GreedyBot {
        GreedyBot { odds: WinTable::new() }
    }

    pub(crate) fn decide(&mut self, view: &RiskView) -> RiskAction {
        let g = &view.game;
        let me = view.seat as u32;
        match g.phase {
            Phase::Claim => {
                // The unclaimed territory in the continent where it already holds the most.
                let t = territories(g)
                    .filter(|&t| g.owner[t] == UNCLAIMED)
                    .max_by_key(|&t| {
                        let c = &g.map.continents[g.map.territories[t].continent];
                        let mine = c.territories.iter().filter(|&&x| g.owner[x] == me).count();
                        (mine, std::cmp::Reverse(c.territories.len()), std::cmp::Reverse(t))
                    })
                    .expect("a claim phase has an unclaimed territory");
                RiskAction::Claim(t)
            }
            Phase::SetupPlace { own_left, .. } => {
                let t = if own_left > 0 { best_attacker(g, me) } else { neutral_blocker(g, me) };
                RiskAction::Place { territory: t, armies: 1 }
            }
            Phase::Trade { .. } => match best_set(g, view.seat) {
                Some(set) => RiskAction::Trade(set),
                None => RiskAction::End,
            },
            Phase::Reinforce => {
                RiskAction::Place { territory: best_attacker(g, me), armies: g.pool }
            }
            Phase::Attack => {
                let best = legal_attacks(g, me)
                    .into_iter()
                    .map(|(f, t)| (self.odds.conquer(g.armies[f], g.armies[t]), f, t))
                    .max_by(|a, b| a.0.total_cmp(&b.0));
                match best {
                    Some((p, from, to)) if p > 0.5 => {
                        RiskAction::Attack { from, to, dice: max_dice(g, from) }
                    }
                    _ => RiskAction::End,
                }
            }
            Phase::Defend { to, .. } => RiskAction::Defend(g.armies[to].min(2)),
            Phase::Occupy { from, to, min } => {
                let most = min + g.armies[from] - 1;
                if !is_border(g, from) {
                    RiskAction::Occupy(most)
                } else if !is_border(g, to) {
                    RiskAction::Occupy(min)
                } else {
                    RiskAction::Occupy((min + most).div_ceil(2))
                }
            }
            Phase::Fortify => interior_to_border(g, me).unwrap_or(RiskAction::End),
        }
    }
}

impl Bot<Risk> for GreedyBot {
    fn act(&mut self, view: &RiskView, _ctx: &TurnContext) -> Result<RiskAction, BotFailure> {
        Ok(self.decide(view))
    }
}

/// The own territory whose weakest enemy neighbour is weakest relative to it.
fn best_attacker(g: &Risk, me: u32) -> usize {
    territories(g)
        .filter(|&t| g.owner[t] == me && is_border(g, t))
        .max_by_key(|&t| {
            let weakest = enemy_neighbours(g, t).map(|n| g.armies[n]).min().unwrap_or(0);
            (i64::from(g.armies[t]) - i64::from(weakest), std::cmp::Reverse(t))
        })
        .or_else(|| territories(g).find(|&t| g.owner[t] == me))
        .expect("a living player owns a territory")
}

/// Two players: the neutral territory that best walls off the opponent (most opponent
/// neighbours, fewest of ours).
fn neutral_blocker(g: &Risk, me: u32) -> usize {
    territories(g)
        .filter(|&t| g.owner[t] == 2)
        .max_by_key(|&t| {
            let theirs = g.map.adj[t].iter().filter(|&&n| g.owner[n] == 1 - me).count() as i64;
            let ours = g.map.adj[t].iter().filter(|&&n| g.owner[n] == me).count() as i64;
            (theirs - ours, std::cmp::Reverse(t))
        })
        .expect("the neutral holds a territory while it has armies to place")
}

/// The largest stack with no enemy neighbour moves to the most threatened border it can reach.
fn interior_to_border(g: &Risk, me: u32) -> Option<RiskAction> {
    let from = territories(g)
        .filter(|&t| g.owner[t] == me && g.armies[t] > 1 && !is_border(g, t))
        .max_by_key(|&t| (g.armies[t], std::cmp::Reverse(t)))?;
    let to = fortify_targets(g, from)
        .into_iter()
        .filter(|&t| is_border(g, t))
        .max_by_key(|&t| (i64::from(threat(g, t)) - i64::from(g.armies[t]), std::cmp::Reverse(t)))
        .or_else(|| {
            // No border in reach (adjacent rule): step towards the nearest one.
            let board = g.board();
            fortify_targets(g, from).into_iter().min_by_key(|&t| {
                territories(g)
                    .filter(|&b| g.owner[b] == me && is_border(g, b))
                    .filter_map(|b| board.fortify_path(t, b).map(|p| p.len()))
                    .min()
                    .unwrap_or(usize::MAX)
            })
        })?;
    Some(RiskAction::Fortify { from, to, armies: g.armies[from] - 1 })
}

/// Targets the continent it can take most cheaply for its bonus, masses its reinforcements on the
/// territory with the cheapest attack path into it, attacks along that path while the odds are
/// good, keeps its held continents' borders covered, and trades cards when it must or when a set
/// is worth it.
pub(crate) struct PlannerBot {
    odds: WinTable,
}

impl Default for PlannerBot {
    fn default() -> PlannerBot {
        PlannerBot::new()
    }
}

/// What the planner aims at this turn.
struct Plan {
    /// The continent to take (or finish).
    continent: usize,
    /// The own territory to attack from (the start of the cheapest attack path into it).
    spearhead: usize,
    /// Enemy territories on cheapest attack paths from the spearhead into the continent, plus
    /// the continent's enemy territories.
    targets: Vec<bool>,
}

impl PlannerBot {
    pub(crate) fn new() -> PlannerBot {
        PlannerBot { odds: WinTable::new() }
    }

    /// Picks the continent with the best bonus per enemy army to beat (counting the armies on
    /// the way in), and the spearhead.
    fn plan(&self, g: &Risk, me: u32) -> Option<Plan> {
        let board = g.board();
        let n = g.map.len();
        let own: Vec<usize> = territories(g).filter(|&t| g.owner[t] == me).collect();
        // Multi-source attack costs: for each own border territory, Dijkstra over enemies.
        let mut best_cost = vec![u64::MAX; n];
        let mut best_source = vec![usize::MAX; n];
        let mut parents: Vec<(usize, Vec<usize>)> = Vec::new();
        for &s in own.iter().filter(|&&t| is_border(g, t)) {
            let (cost, parent) = board.attack_costs(s).expect("s is on the board");
            for t in 0..n {
                // Equal costs: the bigger stack is the better start.
                if cost[t] != u64::MAX
                    && (cost[t] < best_cost[t]
                        || (cost[t] == best_cost[t] && g.armies[s] > g.armies[best_source[t]]))
                {
                    best_cost[t] = cost[t];
                    best_source[t] = s;
                }
            }
            parents.push((s, parent));
        }
        let mut best: Option<(f64, usize, usize)> = None;
        for (c, cont) in g.map.continents.iter().enumerate() {
            let enemy: Vec<usize> =
                cont.territories.iter().copied().filter(|&t| g.owner[t] != me).collect();
            if enemy.is_empty() {
                continue;
            }
            // The cheapest way in, and the armies inside still to beat.
            let Some(&entry) = enemy.iter().min_by_key(|&&t| (best_cost[t], t)) else {
                continue;
            };
            if best_cost[entry] == u64::MAX {
                continue;
            }
            let inside: u64 = enemy.iter().map(|&t| u64::from(g.armies[t])).sum();
            let way_in = best_cost[entry] - u64::from(g.armies[entry]);
            let mine =
                (cont.territories.len() - enemy.len()) as f64 / cont.territories.len() as f64;
            let spear = best_source[entry];
            let cost = (inside + way_in) as f64 + enemy.len() as f64;
            let value = (f64::from(cont.bonus) + 1.0) * (1.0 + mine) / (cost + 1.0)
                * (1.0 + f64::from(g.armies[spear]) / (cost + 1.0));
            if best.is_none_or(|(v, _, _)| value > v) {
                best = Some((value, c, entry));
            }
        }
        let (_, continent, entry) = best?;
        let spearhead = best_source[entry];
        let parent = &parents.iter().find(|(s, _)| *s == spearhead)?.1;
        let mut targets = vec![false; n];
        for &t in &g.map.continents[continent].territories {
            if g.owner[t] != me {
                targets[t] = true;
                // The cheapest attack path from the spearhead to every enemy territory of it.
                let mut x = t;
                while parent[x] != usize::MAX && x != spearhead {
                    targets[x] = true;
                    x = parent[x];
                }
            }
        }
        Some(Plan { continent, spearhead, targets })
    }

    /// Own territories of fully held continents that border an enemy and are outnumbered.
    fn weak_held_border(&self, g: &Risk, me: u32) -> Option<(usize, u32)> {
        let mut worst: Option<(usize, u32)> = None;
        for c in &g.map.continents {
            if !c.territories.iter().all(|&t| g.owner[t] == me) {
                continue;
            }
            for &t in &c.territories {
                let danger = threat(g, t);
                let have = g.armies[t];
                if is_border(g, t) && danger + 2 > have {
                    let need = danger + 2 - have;
                    if worst.is_none_or(|(_, w)| need > w) {
                        worst = Some((t, need));
                    }
                }
            }
        }
        worst
    }

    fn claim(&self, g: &Risk, me: u32) -> usize {
        territories(g)
            .filter(|&t| g.owner[t] == UNCLAIMED)
            .max_by(|&a, &b| {
                let score = |t: usize| {
                    let c = &g.map.continents[g.map.territories[t].continent];
                    let mine = c.territories.iter().filter(|&&x| g.owner[x] == me).count() as f64;
                    let theirs = c
                        .territories
                        .iter()
                        .filter(|&&x| g.owner[x] != me && g.owner[x] != UNCLAIMED)
                        .count() as f64;
                    let size = c.territories.len() as f64;
                    let friends = g.map.adj[t].iter().filter(|&&x| g.owner[x] == me).count() as f64;
                    (f64::from(c.bonus) / size) + (mine - 1.5 * theirs) / size * 2.0 + 0.3 * friends
                        - 0.1 * g.map.adj[t].len() as f64
                };
                score(a).total_cmp(&score(b)).then(b.cmp(&a))
            })
            .expect("a claim phase has an unclaimed territory")
    }

    fn trade_now(&self, g: &Risk, seat: Seat, forced: bool) -> bool {
        let held = g.hands[seat].len();
        forced || held >= 4 || g.next_set_value() >= 10
    }

    pub(crate) fn decide(&mut self, view: &RiskView) -> RiskAction {
        let g = &view.game;
        let me = view.seat as u32;
        match g.phase {
            Phase::Claim => RiskAction::Claim(self.claim(g, me)),
            Phase::SetupPlace { own_left, .. } => {
                let t = if own_left > 0 {
                    self.plan(g, me).map_or_else(|| best_attacker(g, me), |p| p.spearhead)
                } else {
                    neutral_blocker(g, me)
                };
                RiskAction::Place { territory: t, armies: 1 }
            }
            Phase::Trade { forced } => match best_set(g, view.seat) {
                Some(set) if self.trade_now(g, view.seat, forced) => RiskAction::Trade(set),
                _ => RiskAction::End,
            },
            Phase::Reinforce => {
                if let Some((t, need)) = self.weak_held_border(g, me) {
                    let give = need.min(g.pool.div_ceil(2)).max(1).min(g.pool);
                    if give < g.pool || self.plan(g, me).is_none() {
                        return RiskAction::Place { territory: t, armies: give };
                    }
                }
                let t = self.plan(g, me).map_or_else(|| best_attacker(g, me), |p| p.spearhead);
                RiskAction::Place { territory: t, armies: g.pool }
            }
            Phase::Attack => self.attack(g, me),
            Phase::Defend { to, .. } => RiskAction::Defend(g.armies[to].min(2)),
            Phase::Occupy { from, to, min } => {
                let most = min + g.armies[from] - 1;
                let from_threat = threat(g, from);
                if from_threat == 0 {
                    RiskAction::Occupy(most)
                } else if !is_border(g, to) {
                    RiskAction::Occupy(min)
                } else {
                    // Leave behind what the remaining enemies next to `from` could throw.
                    let keep = (from_threat / 2).min(most - min);
                    RiskAction::Occupy(most - keep)
                }
            }
            Phase::Fortify => interior_to_border(g, me).unwrap_or(RiskAction::End),
        }
    }

    fn attack(&self, g: &Risk, me: u32) -> RiskAction {
        let plan = self.plan(g, me);
        let seats = g.seats();
        let duel = g.alive.iter().filter(|&&a| a).count() == 2;
        let mut best: Option<(f64, usize, usize)> = None;
        for (from, to) in legal_attacks(g, me) {
            let p = self.odds.conquer(g.armies[from], g.armies[to]);
            let o = g.owner[to];
            let mut value = 0.0;
            if !g.conquered {
                value += 1.0; // a card
            }
            if duel {
                // Face to face, every territory counts: more reinforcements, fewer for the enemy.
                value += 0.5;
            }
            if let Some(plan) = &plan {
                if plan.targets[to] {
                    value += 3.0;
                }
                if from == plan.spearhead {
                    value += 0.5;
                }
                if g.map.territories[to].continent == plan.continent {
                    value += 1.0;
                }
            }
            // Breaking an enemy's continent.
            let cont = &g.map.continents[g.map.territories[to].continent];
            if (o as usize) < seats && cont.territories.iter().all(|&t| g.owner[t] == o) {
                value += f64::from(cont.bonus) / 2.0;
            }
            // Eliminating a player (its cards come with it).
            if (o as usize) < seats && g.territories_of(o) == 1 {
                value += 4.0 + g.hand_sizes[o as usize] as f64;
            }
            let threshold = if plan.as_ref().is_some_and(|p| p.targets[to]) { 0.5 } else { 0.7 };
            if value > 0.0 && p >= threshold {
                let score = p * value;
                if best.is_none_or(|(s, _, _)| score > s) {
                    best = Some((score, from, to));
                }
            }
        }
        match best {
            Some((_, from, to)) => RiskAction::Attack { from, to, dice: max_dice(g, from) },
            None => RiskAction::End,
        }
    }
}

impl Bot<Risk> for PlannerBot {
    fn act(&mut self, view: &RiskView, _ctx: &TurnContext) -> Result<RiskAction, BotFailure> {
        Ok(self.decide(view))
    }
}

#[cfg(test)]
mod tests {
    //! The bots' strength, measured over seeded matches played by the harness itself.
    use std::collections::BTreeMap;

    use crate::bot::BotSpec;
    use crate::games::GameId;
    use crate::matches::{LimitOverrides, MapSource, MatchSpec, Player};

    /// Plays `games` matches of `bot` against `others` with the seats rotated, and returns the
    /// number `bot` won outright and the number it shared or lost.
    pub(super) fn wins(
        bot: &str,
        others: &str,
        players: usize,
        games: u64,
        seed: u64,
    ) -> (u64, u64) {
        let mut won = 0;
        for g in 0..games {
            let hero = (g as usize) % players;
            let mut seats = BTreeMap::new();
            for s in 0..players {
                let name = if s == hero { bot } else { others };
                seats
                    .insert(format!("player{}", s + 1), Player::new(BotSpec::Builtin(name.into())));
            }
            let spec = MatchSpec {
                game: GameId::Risk,
                variant: None,
                options: BTreeMap::from([("players".to_string(), players.to_string())]),
                map: MapSource::Default,
                players: seats,
                seed: seed + g,
                // In-process bots on a shared machine: generous limits, measured elsewhere.
                limits: LimitOverrides {
                    first_turn_ms: Some(60_000),
                    turn_ms: Some(60_000),
                    ..LimitOverrides::default()
                },
            };
            let supervisor = crate::bot::Supervisor::new();
            let played = crate::matches::play(&spec, &supervisor).expect("a built-in match plays");
            assert_eq!(played.summary.termination, crate::bot::Termination::Normal);
            if played.summary.winner.as_deref() == Some(&format!("player{}", hero + 1)) {
                won += 1;
            }
        }
        (won, games - won)
    }

    #[test]
    fn planner_beats_random_in_two_player_games() {
        let (won, lost) = wins("planner", "random", 2, 20, 1000);
        assert!(won >= 19, "planner won {won} of {}", won + lost);
    }

    /// The figures of docs/risk.md:
    /// `cargo test --release --lib games::risk::bots -- --ignored --nocapture`.
    #[test]
    #[ignore = "a measurement: hundreds of full games"]
    #[allow(clippy::print_stdout)] // a measurement: it prints its figures
    fn measure_strength() {
        let (w, l) = wins("planner", "random", 2, 400, 1);
        println!(
            "planner vs random, 2 players: {w} of {} won ({:.1}%)",
            w + l,
            100.0 * w as f64 / (w + l) as f64
        );
        assert!(w as f64 >= 0.95 * (w + l) as f64);
        let (w, l) = wins("planner", "greedy", 4, 400, 1);
        println!(
            "planner vs 3 greedy, 4 players: {w} of {} won ({:.1}%, fair share 25%)",
            w + l,
            100.0 * w as f64 / (w + l) as f64
        );
        assert!(w as f64 > 0.25 * (w + l) as f64);
        let (w, l) = wins("greedy", "random", 2, 400, 1);
        println!(
            "greedy vs random, 2 players: {w} of {} won ({:.1}%)",
            w + l,
            100.0 * w as f64 / (w + l) as f64
        );
        let (w, l) = wins("planner", "greedy", 2, 400, 1);
        println!(
            "planner vs greedy, 2 players: {w} of {} won ({:.1}%)",
            w + l,
            100.0 * w as f64 / (w + l) as f64
        );
        let (w, l) = wins("planner", "random", 4, 400, 1);
        println!(
            "planner vs 3 random, 4 players: {w} of {} won ({:.1}%)",
            w + l,
            100.0 * w as f64 / (w + l) as f64
        );
    }
}
