//! The rules of classic Risk ("world domination", Hasbro), for 2 to 6 players, as a sequence of
//! single decisions: every claim, placement, trade, attack, choice of defence dice, occupation,
//! fortification and end of a phase is one action of one seat. `docs/risk.md` lists every choice
//! made where the printed rules leave room.
//!
//! Each action is validated completely before anything changes ([`Risk::validate`]), so a refused
//! action leaves the state as it was. Chance (dice, the card drawn) comes only from the RNG passed
//! to [`Game::play`](crate::game::Game::play); the deal of the two-player game and of the random-deal option comes from the
//! match seed, which the replay records.

use std::sync::Arc;

use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

use serde::Deserialize;

use super::battle;
use super::cards::{self, Card};
use super::map::RiskMap;
use super::paths::Board;
use crate::game::{Illegal, Outcome, Seat, SetupError, bounded};

/// The owner of a territory nobody has claimed yet.
pub(crate) const UNCLAIMED: u32 = u32::MAX;

/// Who decides the defence dice (option `defence`, alias `defense`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Defence {
    /// The defender chooses 1 or 2 dice (a decision of the defending seat).
    Choose,
    /// The defender always rolls the most dice it may.
    #[serde(alias = "max")]
    Auto,
}

/// Where a fortification may go (option `fortify`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FortifyRule {
    /// Modern rules: along any chain of the player's own territories.
    #[serde(alias = "modern")]
    Chain,
    /// 1993 rules: to an adjacent own territory only.
    #[serde(alias = "1993")]
    Adjacent,
}

/// The game options (`--opt key=value`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// 2 to 6.
    #[serde(deserialize_with = "bounded::<_, 2, 6>")]
    pub players: usize,
    /// Deal the territories at random (from the match seed) instead of claiming them: option
    /// `deal`, `claim` or `random`.
    #[serde(rename = "deal", deserialize_with = "deal")]
    pub random_deal: bool,
    #[serde(alias = "defense")]
    pub defence: Defence,
    pub fortify: FortifyRule,
    /// Rounds before the game stops and ranks players by territories, then armies; 0 = none
    /// (alias `turns`).
    #[serde(alias = "turns")]
    pub max_rounds: u32,
}

/// Option `deal`: `claim` (one army at a time) or `random`.
fn deal<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    match String::deserialize(d)?.as_str() {
        "claim" => Ok(false),
        "random" => Ok(true),
        other => Err(serde::de::Error::custom(format!(
            "`{other}` is not `claim` (one army at a time) or `random`"
        ))),
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            players: 4,
            random_deal: false,
            defence: Defence::Choose,
            fortify: FortifyRule::Chain,
            max_rounds: 200,
        }
    }
}

/// The starting armies of each player (the neutral too, with two players).
pub(crate) fn starting_armies(players: usize) -> u32 {
    match players {
        2 => 40,
        3 => 35,
        4 => 30,
        5 => 25,
        _ => 20,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Setup: the current seat claims an unclaimed territory with one army.
    Claim,
    /// Setup: the current seat places `own_left` armies on its territories, then `neutral_left`
    /// on neutral ones (two players), one army per action.
    SetupPlace {
        own_left: u32,
        neutral_left: u32,
    },
    /// Trading cards: at the start of a turn (`forced` false), or after taking the cards of an
    /// eliminated player (`forced`: trade until 4 or fewer cards remain).
    Trade {
        forced: bool,
    },
    /// Placing the `pool` of reinforcements.
    Reinforce,
    Attack,
    /// The defender of `to` chooses its dice against `dice` attacking dice from `from`.
    Defend {
        from: usize,
        to: usize,
        dice: u32,
    },
    /// `to` was just conquered with `min` armies moved in; the attacker may move more.
    Occupy {
        from: usize,
        to: usize,
        min: u32,
    },
    Fortify,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RiskAction {
    Claim(usize),
    Place {
        territory: usize,
        armies: u32,
    },
    Trade([Card; 3]),
    Attack {
        from: usize,
        to: usize,
        dice: u32,
    },
    Defend(u32),
    /// Occupation: the total number of armies moved into the conquered territory.
    Occupy(u32),
    Fortify {
        from: usize,
        to: usize,
        armies: u32,
    },
    /// Ends the current phase (trading, attacking, fortifying).
    End,
}

/// The last battle, for the views (who rolled what).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BattleReport {
    pub from: usize,
    pub to: usize,
    pub attack: Vec<u8>,
    pub defence: Vec<u8>,
    pub losses: battle::Losses,
    pub conquered: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Risk {
    pub map: Arc<RiskMap>,
    pub opts: Options,
    /// Owner of each territory: a seat, [`Risk::neutral`] or [`UNCLAIMED`].
    pub owner: Vec<u32>,
    pub armies: Vec<u32>,
    /// Setup armies still to place, per seat and then the neutral.
    pub reserve: Vec<u32>,
    /// Cards in each seat's hand (a view hides the others').
    pub hands: Vec<Vec<Card>>,
    /// The number of cards in each seat's hand (public).
    pub hand_sizes: Vec<usize>,
    /// Cards not in any hand (a view holds none of them).
    pub deck: Vec<Card>,
    pub deck_size: usize,
    /// Sets traded so far by everyone.
    pub trades: u32,
    /// The seat whose turn (or setup step) it is.
    pub current: Seat,
    pub phase: Phase,
    /// Reinforcements left to place this turn.
    pub pool: u32,
    /// The current seat conquered a territory this turn (it draws a card at the end).
    pub conquered: bool,
    /// The +2 armies for a traded card's territory were given this turn.
    pub bonus_taken: bool,
    /// Rounds played: 0 during setup, then 1, 2, ... (a round is one turn of every living seat).
    pub round: u32,
    pub alive: Vec<bool>,
    /// The seats in the order they were eliminated.
    pub eliminated: Vec<Seat>,
    pub last_battle: Option<BattleReport>,
    pub over: Option<Outcome>,
}

impl Risk {
    /// A new game: claim phase, or the deal (two players, or the random-deal option) already
    /// made from `seed`.
    pub fn new(map: Arc<RiskMap>, opts: Options, seed: u64) -> Result<Risk, SetupError> {
        let seats = opts.players;
        if !(2..=6).contains(&seats) {
            return Err(SetupError::option(
                "players",
                format!("Risk is for 2 to 6 players, not {seats}"),
            ));
        }
        let n = map.len();
        let holders = if seats == 2 { 3 } else { seats };
        let start = starting_armies(seats);
        let map_error = |message: String| SetupError::map(&map.name, None, message);
        if n < holders {
            return Err(map_error(format!(
                "the map has {n} territories, fewer than the {holders} holders"
            )));
        }
        if n.div_ceil(holders) as u32 > start {
            return Err(map_error(format!(
                "the map has {n} territories: more than the {start} starting armies of each of {holders} holders can claim"
            )));
        }
        let mut game = Risk {
            owner: vec![UNCLAIMED; n],
            armies: vec![0; n],
            reserve: vec![start; holders.max(seats + 1)],
            hands: vec![Vec::new(); seats],
            hand_sizes: vec![0; seats],
            deck: cards::full_deck(n),
            deck_size: n + 2,
            trades: 0,
            current: 0,
            phase: Phase::Claim,
            pool: 0,
            conquered: false,
            bonus_taken: false,
            round: 0,
            alive: vec![true; seats],
            eliminated: Vec::new(),
            last_battle: None,
            over: None,
            map,
            opts,
        };
        if seats > 2 {
            game.reserve[seats] = 0;
        }
        if seats == 2 || opts.random_deal {
            // Shuffle the territory cards and deal them round-robin: player1, player2, (neutral).
            let mut rng = crate::seed::deal_rng(seed);
            let mut order: Vec<usize> = (0..n).collect();
            order.shuffle(&mut rng);
            for (i, t) in order.into_iter().enumerate() {
                let holder = i % holders;
                game.owner[t] = holder as u32;
                game.armies[t] = 1;
                game.reserve[holder] -= 1;
            }
            game.current = 0;
            game.phase = game.setup_turn_of(0);
            if game.phase == Phase::Reinforce {
                game.finish_setup();
            }
        }
        Ok(game)
    }

    pub fn seats(&self) -> usize {
        self.opts.players
    }

    /// The neutral's owner id, with two players.
    pub fn neutral(&self) -> Option<u32> {
        (self.seats() == 2).then_some(2)
    }

    pub fn board(&self) -> Board<'_> {
        Board::new(&self.map, &self.owner, &self.armies)
    }

    pub fn territories_of(&self, owner: u32) -> usize {
        self.owner.iter().filter(|&&o| o == owner).count()
    }

    pub fn armies_of(&self, owner: u32) -> u64 {
        (0..self.map.len())
            .filter(|&t| self.owner[t] == owner)
            .map(|t| u64::from(self.armies[t]))
            .sum()
    }

    /// Reinforcements at the start of a turn: max(3, territories / 3) plus continent bonuses.
    pub fn base_reinforcements(&self, seat: Seat) -> u32 {
        let me = seat as u32;
        let base = (self.territories_of(me) as u32 / 3).max(3);
        let bonus: u32 = self
            .map
            .continents
            .iter()
            .filter(|c| c.territories.iter().all(|&t| self.owner[t] == me))
            .map(|c| c.bonus)
            .sum();
        base + bonus
    }

    /// The value of the next set traded.
    pub fn next_set_value(&self) -> u32 {
        cards::set_value(self.trades)
    }

    /// The seat that decides the defence of `to` (the attacker's opponent for the neutral).
    pub fn defender_seat(&self, to: usize) -> Seat {
        let o = self.owner[to];
        if Some(o) == self.neutral() { 1 - self.current } else { o as usize }
    }

    /// The seat that must act now, if the game is not over.
    pub fn to_act(&self) -> Seat {
        match self.phase {
            Phase::Defend { to, .. } => self.defender_seat(to),
            _ => self.current,
        }
    }

    /// What the setup asks of `seat` on its setup turn, or `Reinforce` as "setup is over".
    fn setup_turn_of(&self, seat: Seat) -> Phase {
        let own = self.reserve[seat];
        if self.seats() == 2 {
            let own_left = own.min(2);
            let neutral_left = self.reserve[2].min(1);
            if own_left + neutral_left > 0 {
                return Phase::SetupPlace { own_left, neutral_left };
            }
        } else if own > 0 {
            return Phase::SetupPlace { own_left: 1, neutral_left: 0 };
        }
        Phase::Reinforce
    }

    /// Passes the setup to the next seat with something to place, or starts the first turn.
    fn next_setup_turn(&mut self) {
        for step in 1..=self.seats() {
            let seat = (self.current + step) % self.seats();
            let phase = self.setup_turn_of(seat);
            if phase != Phase::Reinforce {
                self.current = seat;
                self.phase = phase;
                return;
            }
        }
        self.finish_setup();
    }

    fn finish_setup(&mut self) {
        self.round = 1;
        self.start_turn(0);
    }

    fn start_turn(&mut self, seat: Seat) {
        self.current = seat;
        self.conquered = false;
        self.bonus_taken = false;
        self.pool = self.base_reinforcements(seat);
        self.phase = if cards::sets_in(&self.hands[seat], self.map.len()).is_empty() {
            Phase::Reinforce
        } else {
            Phase::Trade { forced: false }
        };
    }

    /// Checks `action` for `seat` without changing anything.
    pub fn validate(&self, seat: Seat, action: &RiskAction) -> Result<(), Illegal> {
        if self.over.is_some() {
            return Err(Illegal::new("the game is over"));
        }
        if seat != self.to_act() {
            return Err(Illegal::new(format!(
                "it is player{}'s decision, not player{}'s",
                self.to_act() + 1,
                seat + 1
            )));
        }
        let n = self.map.len();
        let me = seat as u32;
        let territory = |t: usize| -> Result<(), Illegal> {
            if t < n { Ok(()) } else { Err(Illegal::new(format!("no territory {t} (0..{n})"))) }
        };
        let name = |t: usize| &self.map.territories[t].name;
        let refuse = |what: &str| Err(Illegal::new(format!("{what} now: {}", self.asked())));
        match (*action, self.phase) {
            (RiskAction::Claim(t), Phase::Claim) => {
                territory(t)?;
                if self.owner[t] != UNCLAIMED {
                    return Err(Illegal::new(format!("{} is already claimed", name(t))));
                }
                Ok(())
            }
            (RiskAction::Place { territory: t, armies }, Phase::SetupPlace { own_left, .. }) => {
                territory(t)?;
                if armies != 1 {
                    return Err(Illegal::new("setup armies are placed one at a time"));
                }
                let want = if own_left > 0 { me } else { 2 };
                if self.owner[t] != want {
                    return Err(Illegal::new(if own_left > 0 {
                        format!("{} is not yours", name(t))
                    } else {
                        format!("{} is not neutral (this army is the neutral's)", name(t))
                    }));
                }
                Ok(())
            }
            (RiskAction::Place { territory: t, armies }, Phase::Reinforce) => {
                territory(t)?;
                if self.owner[t] != me {
                    return Err(Illegal::new(format!("{} is not yours", name(t))));
                }
                if armies == 0 || armies > self.pool {
                    return Err(Illegal::new(format!(
                        "place 1 to {} armies, not {armies}",
                        self.pool
                    )));
                }
                Ok(())
            }
            (RiskAction::Trade(set), Phase::Trade { .. }) => {
                let hand = &self.hands[seat];
                for (i, c) in set.iter().enumerate() {
                    if !hand.contains(c) {
                        return Err(Illegal::new(format!("card {c} is not in your hand")));
                    }
                    if set[..i].contains(c) {
                        return Err(Illegal::new(format!("card {c} is named twice")));
                    }
                }
                if !cards::is_set(set, n) {
                    return Err(Illegal::new(
                        "not a set (three alike, one of each, or two and a wild)",
                    ));
                }
                Ok(())
            }
            (RiskAction::End, Phase::Trade { forced }) => {
                let held = self.hands[seat].len();
                if forced || held >= 5 {
                    return Err(Illegal::new(format!(
                        "you hold {held} cards: you must trade{}",
                        if forced { " down to 4 or fewer" } else { "" }
                    )));
                }
                Ok(())
            }
            (RiskAction::Attack { from, to, dice }, Phase::Attack) => {
                territory(from)?;
                territory(to)?;
                if self.owner[from] != me {
                    return Err(Illegal::new(format!("{} is not yours", name(from))));
                }
                if self.owner[to] == me {
                    return Err(Illegal::new(format!("{} is yours", name(to))));
                }
                if !self.map.adjacent(from, to) {
                    return Err(Illegal::new(format!(
                        "{} does not border {}",
                        name(from),
                        name(to)
                    )));
                }
                if !(1..=3).contains(&dice) {
                    return Err(Illegal::new("attack with 1 to 3 dice"));
                }
                if self.armies[from] < dice + 1 {
                    return Err(Illegal::new(format!(
                        "{dice} dice need {} armies on {}; it has {}",
                        dice + 1,
                        name(from),
                        self.armies[from]
                    )));
                }
                Ok(())
            }
            (RiskAction::Defend(dice), Phase::Defend { to, .. }) => {
                let most = self.armies[to].min(2);
                if dice == 0 || dice > most {
                    return Err(Illegal::new(format!("defend with 1 to {most} dice")));
                }
                Ok(())
            }
            (RiskAction::Occupy(total), Phase::Occupy { from, min, .. }) => {
                let most = min + self.armies[from] - 1;
                if total < min || total > most {
                    return Err(Illegal::new(format!("move {min} to {most} armies in")));
                }
                Ok(())
            }
            (RiskAction::Fortify { from, to, armies }, Phase::Fortify) => {
                territory(from)?;
                territory(to)?;
                if self.owner[from] != me || self.owner[to] != me {
                    return Err(Illegal::new("fortify between your own territories"));
                }
                if from == to {
                    return Err(Illegal::new("fortify to another territory"));
                }
                if armies == 0 || armies >= self.armies[from] {
                    return Err(Illegal::new(format!(
                        "move 1 to {} armies (one stays behind)",
                        self.armies[from] - 1
                    )));
                }
                let connected = match self.opts.fortify {
                    FortifyRule::Adjacent => self.map.adjacent(from, to),
                    FortifyRule::Chain => self.board().can_fortify(from, to),
                };
                if !connected {
                    return Err(Illegal::new(match self.opts.fortify {
                        FortifyRule::Adjacent => {
                            format!("{} does not border {}", name(from), name(to))
                        }
                        FortifyRule::Chain => format!(
                            "no chain of your territories joins {} to {}",
                            name(from),
                            name(to)
                        ),
                    }));
                }
                Ok(())
            }
            (RiskAction::End, Phase::Attack | Phase::Fortify) => Ok(()),
            (RiskAction::Claim(_), _) => refuse("no claiming"),
            (RiskAction::Place { .. }, _) => refuse("no placing"),
            (RiskAction::Trade(_), _) => refuse("no trading"),
            (RiskAction::Attack { .. }, _) => refuse("no attacking"),
            (RiskAction::Defend(_), _) => refuse("no defence to choose"),
            (RiskAction::Occupy(_), _) => refuse("nothing to occupy"),
            (RiskAction::Fortify { .. }, _) => refuse("no fortifying"),
            (RiskAction::End, _) => refuse("no phase to end"),
        }
    }

    /// What the seat to act is asked, in words (for error messages).
    pub fn asked(&self) -> String {
        match self.phase {
            Phase::Claim => "claim an unclaimed territory".into(),
            Phase::SetupPlace { own_left, .. } if own_left > 0 => {
                "place one army on a territory of yours".into()
            }
            Phase::SetupPlace { .. } => "place one neutral army on a neutral territory".into(),
            Phase::Trade { forced: true } => "trade sets down to 4 or fewer cards".into(),
            Phase::Trade { .. } => "trade a set, or end trading".into(),
            Phase::Reinforce => format!("place {} reinforcements", self.pool),
            Phase::Attack => "attack, or end attacking".into(),
            Phase::Defend { .. } => "choose your defence dice".into(),
            Phase::Occupy { .. } => "move armies into the conquered territory".into(),
            Phase::Fortify => "fortify once, or end the turn".into(),
        }
    }

    /// Plays a validated action.
    pub(super) fn apply(&mut self, seat: Seat, action: RiskAction, rng: &mut dyn Rng) {
        let me = seat as u32;
        match (action, self.phase) {
            (RiskAction::Claim(t), _) => {
                self.owner[t] = me;
                self.armies[t] = 1;
                self.reserve[seat] -= 1;
                if self.owner.contains(&UNCLAIMED) {
                    self.current = (self.current + 1) % self.seats();
                } else {
                    self.next_setup_turn();
                }
            }
            (
                RiskAction::Place { territory: t, .. },
                Phase::SetupPlace { own_left, neutral_left },
            ) => {
                self.armies[t] += 1;
                let holder = self.owner[t] as usize;
                self.reserve[holder] -= 1;
                let (own_left, neutral_left) =
                    if own_left > 0 { (own_left - 1, neutral_left) } else { (0, neutral_left - 1) };
                if own_left + neutral_left > 0 {
                    self.phase = Phase::SetupPlace { own_left, neutral_left };
                } else {
                    self.next_setup_turn();
                }
            }
            (RiskAction::Place { territory: t, armies }, _) => {
                self.armies[t] += armies;
                self.pool -= armies;
                if self.pool == 0 {
                    self.phase = Phase::Attack;
                }
            }
            (RiskAction::Trade(set), Phase::Trade { forced }) => {
                let n = self.map.len();
                self.hands[seat].retain(|c| !set.contains(c));
                self.hand_sizes[seat] = self.hands[seat].len();
                self.deck.extend_from_slice(&set);
                self.deck_size += 3;
                self.pool += self.next_set_value();
                self.trades += 1;
                if !self.bonus_taken
                    && let Some(t) = set
                        .iter()
                        .filter_map(|&c| cards::territory(c, n))
                        .find(|&t| self.owner[t] == me)
                {
                    self.armies[t] += 2;
                    self.bonus_taken = true;
                }
                let hand = &self.hands[seat];
                let done =
                    if forced { hand.len() <= 4 } else { cards::sets_in(hand, n).is_empty() };
                if done {
                    self.phase = Phase::Reinforce;
                }
            }
            (RiskAction::End, Phase::Trade { .. }) => self.phase = Phase::Reinforce,
            (RiskAction::Attack { from, to, dice }, _) => {
                let defender_armies = self.armies[to];
                let auto = self.opts.defence == Defence::Auto || defender_armies == 1;
                if auto {
                    self.battle(from, to, dice, defender_armies.min(2), rng);
                } else {
                    self.phase = Phase::Defend { from, to, dice };
                }
            }
            (RiskAction::Defend(d), Phase::Defend { from, to, dice }) => {
                self.phase = Phase::Attack;
                self.battle(from, to, dice, d, rng);
            }
            (RiskAction::Occupy(total), Phase::Occupy { from, to, min }) => {
                let extra = total - min;
                self.armies[from] -= extra;
                self.armies[to] += extra;
                self.after_conquest();
            }
            (RiskAction::End, Phase::Attack) => self.phase = Phase::Fortify,
            (RiskAction::Fortify { from, to, armies }, _) => {
                self.armies[from] -= armies;
                self.armies[to] += armies;
                self.end_turn(rng);
            }
            (RiskAction::End, Phase::Fortify) => self.end_turn(rng),
            (a, p) => unreachable!("validate let through {a:?} in {p:?}"),
        }
    }

    fn battle(&mut self, from: usize, to: usize, adice: u32, ddice: u32, rng: &mut dyn Rng) {
        let (attack, defence, losses) = battle::fight(rng, adice, ddice);
        self.armies[from] -= losses.attacker;
        self.armies[to] -= losses.defender;
        let conquered = self.armies[to] == 0;
        self.last_battle = Some(BattleReport { from, to, attack, defence, losses, conquered });
        self.phase = Phase::Attack;
        if !conquered {
            return;
        }
        let me = self.current as u32;
        let loser = self.owner[to];
        self.owner[to] = me;
        self.armies[from] -= adice;
        self.armies[to] = adice;
        self.conquered = true;
        if (loser as usize) < self.seats() && self.territories_of(loser) == 0 {
            let loser = loser as usize;
            self.alive[loser] = false;
            self.eliminated.push(loser);
            let taken = std::mem::take(&mut self.hands[loser]);
            self.hands[self.current].extend(taken);
            self.hand_sizes[loser] = 0;
            self.hand_sizes[self.current] = self.hands[self.current].len();
            if self.alive.iter().filter(|&&a| a).count() == 1 {
                self.over = Some(self.win_outcome());
                return;
            }
        }
        if self.armies[from] > 1 {
            self.phase = Phase::Occupy { from, to, min: adice };
        } else {
            self.after_conquest();
        }
    }

    /// Back to attacking, unless the cards of an eliminated player force a trade first.
    fn after_conquest(&mut self) {
        self.phase = if self.hands[self.current].len() >= 6 {
            self.pool = 0;
            Phase::Trade { forced: true }
        } else {
            Phase::Attack
        };
    }

    fn end_turn(&mut self, rng: &mut dyn Rng) {
        let seat = self.current;
        if self.conquered && !self.deck.is_empty() {
            let i = rng.random_range(0..self.deck.len());
            let card = self.deck.swap_remove(i);
            self.deck_size -= 1;
            self.hands[seat].push(card);
            self.hand_sizes[seat] = self.hands[seat].len();
        }
        let seats = self.seats();
        let next = (1..=seats).map(|s| (seat + s) % seats).find(|&s| self.alive[s]).unwrap_or(seat);
        if next <= seat {
            self.round += 1;
            if self.opts.max_rounds > 0 && self.round > self.opts.max_rounds {
                self.over = Some(self.cap_outcome());
                return;
            }
        }
        self.start_turn(next);
    }

    /// One seat left: it wins; the others rank by how long they lasted.
    fn win_outcome(&self) -> Outcome {
        let seats = self.seats();
        let winner = (0..seats).find(|&s| self.alive[s]).unwrap_or(self.current);
        let mut ranks = vec![1; seats];
        for (i, &s) in self.eliminated.iter().rev().enumerate() {
            ranks[s] = i as u32 + 2;
        }
        Outcome {
            scores: (0..seats).map(|s| if s == winner { 1.0 } else { 0.0 }).collect(),
            ranks,
            reason: format!("player{} holds every territory of the other players", winner + 1),
        }
    }

    /// The turn cap: living seats rank by territories, then armies; the eliminated after them.
    fn cap_outcome(&self) -> Outcome {
        let seats = self.seats();
        let key = |s: Seat| {
            if self.alive[s] {
                (1, self.territories_of(s as u32) as u64, self.armies_of(s as u32))
            } else {
                let when = self.eliminated.iter().position(|&e| e == s).unwrap_or(0);
                (0, when as u64, 0)
            }
        };
        let ranks: Vec<u32> = (0..seats)
            .map(|s| 1 + (0..seats).filter(|&o| key(o) > key(s)).count() as u32)
            .collect();
        Outcome {
            scores: (0..seats).map(|s| if ranks[s] == 1 { 1.0 } else { 0.0 }).collect(),
            ranks,
            reason: format!(
                "the turn cap ({} rounds) was reached; ranked by territories, then armies",
                self.opts.max_rounds
            ),
        }
    }

    /// The board as the seat `seat` may see it: other hands and the deck hidden.
    pub fn redacted(&self, seat: Seat) -> Risk {
        let mut g = self.clone();
        for (s, hand) in g.hands.iter_mut().enumerate() {
            if s != seat {
                hand.clear();
            }
        }
        g.deck.clear();
        g
    }
}

/// What one seat may see: the board, its own cards, the other hands' sizes.
#[derive(Clone, Debug, PartialEq)]
pub struct RiskView {
    pub seat: Seat,
    /// The game with the other seats' cards and the deck removed (sizes kept).
    pub game: Risk,
}

/// The order [`Risk::legal`] lists each phase's actions in, and how [`Risk::random_legal`]
/// draws from them without building the list where it is long.
impl Risk {
    /// Every action `seat` may play now, each once; empty when it is not `seat`'s decision.
    ///
    /// - claim: `Claim(t)` for each unclaimed territory, by id;
    /// - setup placement: `Place { t, 1 }` for each territory of the holder placing, by id;
    /// - trade: each set of three hand cards that may be traded (taken in hand order), in all
    ///   six orders (the order decides where the cards go back in the deck), then `End` when
    ///   trading may stop;
    /// - reinforce: `Place { t, armies }` for each own territory by id, armies `1..=pool`;
    /// - attack: `Attack { from, to, dice }` for each own territory by id with two or more
    ///   armies, each enemy neighbour by id, dice `1..=min(3, armies - 1)`; then `End`;
    /// - defend: `Defend(d)`, `d` in `1..=min(2, armies)`;
    /// - occupy: `Occupy(n)` for every total `n` the attacker may move in, ascending;
    /// - fortify: `Fortify { from, to, armies }` for each own territory `from` by id with two or
    ///   more armies, each own `to` it may reach under the fortify rule by id, armies
    ///   `1..armies[from]`; then `End`.
    pub fn legal(&self, seat: Seat) -> Vec<RiskAction> {
        if self.over.is_some() || seat != self.to_act() {
            return Vec::new();
        }
        let me = seat as u32;
        let n = self.map.len();
        let mine = |t: &usize| self.owner[*t] == me;
        match self.phase {
            Phase::Claim => {
                (0..n).filter(|&t| self.owner[t] == UNCLAIMED).map(RiskAction::Claim).collect()
            }
            Phase::SetupPlace { own_left, .. } => {
                let holder = if own_left > 0 { me } else { 2 };
                (0..n)
                    .filter(|&t| self.owner[t] == holder)
                    .map(|territory| RiskAction::Place { territory, armies: 1 })
                    .collect()
            }
            Phase::Trade { forced } => {
                let hand = &self.hands[seat];
                let mut out = Vec::new();
                for i in 0..hand.len() {
                    for j in i + 1..hand.len() {
                        for k in j + 1..hand.len() {
                            let (a, b, c) = (hand[i], hand[j], hand[k]);
                            if cards::is_set([a, b, c], n) {
                                for set in [
                                    [a, b, c],
                                    [a, c, b],
                                    [b, a, c],
                                    [b, c, a],
                                    [c, a, b],
                                    [c, b, a],
                                ] {
                                    out.push(RiskAction::Trade(set));
                                }
                            }
                        }
                    }
                }
                if !forced && hand.len() < 5 {
                    out.push(RiskAction::End);
                }
                out
            }
            Phase::Reinforce => (0..n)
                .filter(mine)
                .flat_map(|t| {
                    (1..=self.pool).map(move |armies| RiskAction::Place { territory: t, armies })
                })
                .collect(),
            Phase::Attack => {
                let mut out: Vec<RiskAction> = self
                    .attacks(me)
                    .flat_map(|(from, to)| {
                        (1..=self.armies[from].saturating_sub(1).min(3))
                            .map(move |dice| RiskAction::Attack { from, to, dice })
                    })
                    .collect();
                out.push(RiskAction::End);
                out
            }
            Phase::Defend { to, .. } => {
                (1..=self.armies[to].min(2)).map(RiskAction::Defend).collect()
            }
            Phase::Occupy { from, min, .. } => {
                (min..=min + self.armies[from] - 1).map(RiskAction::Occupy).collect()
            }
            Phase::Fortify => {
                let mut out: Vec<RiskAction> = self
                    .fortify_moves(me)
                    .into_iter()
                    .flat_map(|(from, to)| {
                        (1..self.armies[from]).map(move |armies| RiskAction::Fortify {
                            from,
                            to,
                            armies,
                        })
                    })
                    .collect();
                out.push(RiskAction::End);
                out
            }
        }
    }

    /// An action drawn uniformly from [`Risk::legal`], or `None` when `seat` has none. The long
    /// lists (placing reinforcements, attacking, fortifying) are counted, not built; the index
    /// drawn picks the same action the list would hold there.
    pub fn random_legal(&self, seat: Seat, rng: &mut dyn Rng) -> Option<RiskAction> {
        if self.over.is_some() || seat != self.to_act() {
            return None;
        }
        let me = seat as u32;
        match self.phase {
            Phase::Reinforce => {
                let mine: Vec<usize> =
                    (0..self.map.len()).filter(|&t| self.owner[t] == me).collect();
                let pool = self.pool as usize;
                let i = rng.random_range(0..mine.len() * pool);
                Some(RiskAction::Place { territory: mine[i / pool], armies: (i % pool) as u32 + 1 })
            }
            Phase::Fortify => {
                let moves = self.fortify_moves(me);
                let total: usize =
                    moves.iter().map(|&(from, _)| self.armies[from] as usize - 1).sum();
                let mut i = rng.random_range(0..=total);
                for (from, to) in moves {
                    let k = self.armies[from] as usize - 1;
                    if i < k {
                        return Some(RiskAction::Fortify { from, to, armies: i as u32 + 1 });
                    }
                    i -= k;
                }
                Some(RiskAction::End)
            }
            Phase::Attack => {
                let dice = |from: usize| self.armies[from].saturating_sub(1).min(3) as usize;
                let total: usize = self.attacks(me).map(|(from, _)| dice(from)).sum();
                let mut i = rng.random_range(0..=total);
                for (from, to) in self.attacks(me) {
                    if i < dice(from) {
                        return Some(RiskAction::Attack { from, to, dice: i as u32 + 1 });
                    }
                    i -= dice(from);
                }
                Some(RiskAction::End)
            }
            _ => {
                let actions = self.legal(seat);
                (!actions.is_empty()).then(|| actions[rng.random_range(0..actions.len())])
            }
        }
    }

    /// The attacks `me` may make: `(from, to)` with two or more armies on `from`, by ids.
    fn attacks(&self, me: u32) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.map.len())
            .filter(move |&from| self.owner[from] == me && self.armies[from] >= 2)
            .flat_map(move |from| {
                self.map.adj[from]
                    .iter()
                    .filter(move |&&to| self.owner[to] != me)
                    .map(move |&to| (from, to))
            })
    }

    /// The fortifications `me` may make: `(from, to)` with two or more armies on `from` and `to`
    /// reachable under the fortify rule, by ids.
    fn fortify_moves(&self, me: u32) -> Vec<(usize, usize)> {
        let n = self.map.len();
        // Chain: the territories `from` reaches are its component among `me`'s territories.
        let component = match self.opts.fortify {
            FortifyRule::Chain => self.board().components_of(me),
            FortifyRule::Adjacent => Vec::new(),
        };
        let mut out = Vec::new();
        for from in (0..n).filter(|&t| self.owner[t] == me && self.armies[t] >= 2) {
            match self.opts.fortify {
                FortifyRule::Adjacent => out.extend(
                    self.map.adj[from]
                        .iter()
                        .filter(|&&to| self.owner[to] == me)
                        .map(|&to| (from, to)),
                ),
                FortifyRule::Chain => out.extend(
                    (0..n)
                        .filter(|&to| to != from && component[to] == component[from])
                        .map(|to| (from, to)),
                ),
            }
        }
        out
    }
}
