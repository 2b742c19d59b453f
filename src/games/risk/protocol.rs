//! The line protocol of Risk, so external bots can play every decision (docs/risk.md has an
//! example exchange).
//!
//! Players are numbered 1..N on the wire (player1 is 1), the neutral of the two-player game is
//! N+1 and an unclaimed territory 0. Territories and cards are written by id.
//!
//! Init (once): `players N`, `you K`, `options ...`, then the map: `territories T` and T lines
//! `id continent name`, `continents C` and C lines `id bonus name count ids...`, `borders B` and
//! B lines `a b`. Names have their spaces replaced by `_`.
//!
//! Each decision: exactly nine lines, ending with `ask ...` (what is asked); the answer is one
//! line: `claim T`, `place T N`, `trade C1 C2 C3`, `attack F T D`, `defend D`, `move N`,
//! `fortify F T N` or `end`.

use std::fmt::Write as _;

use super::cards::{self, Card};
use super::rules::{Defence, FortifyRule, Phase, RiskAction, RiskView, UNCLAIMED};
use crate::game::BadLine;

fn owner_number(owner: u32) -> u32 {
    if owner == UNCLAIMED { 0 } else { owner + 1 }
}

pub(crate) fn init_input(view: &RiskView) -> String {
    let g = &view.game;
    let m = &g.map;
    let mut s = String::new();
    let _ = writeln!(s, "players {}", g.seats());
    let _ = writeln!(s, "you {}", view.seat + 1);
    let _ = writeln!(
        s,
        "options deal={} defence={} fortify={} max_rounds={}",
        if g.seats() == 2 || g.opts.random_deal { "random" } else { "claim" },
        match g.opts.defence {
            Defence::Choose => "choose",
            Defence::Auto => "auto",
        },
        match g.opts.fortify {
            FortifyRule::Chain => "chain",
            FortifyRule::Adjacent => "adjacent",
        },
        g.opts.max_rounds
    );
    let _ = writeln!(s, "territories {}", m.len());
    for (i, t) in m.territories.iter().enumerate() {
        let _ = writeln!(s, "{i} {} {}", t.continent, t.name.replace(' ', "_"));
    }
    let _ = writeln!(s, "continents {}", m.continents.len());
    for (i, c) in m.continents.iter().enumerate() {
        let ids: Vec<String> = c.territories.iter().map(std::string::ToString::to_string).collect();
        let _ = writeln!(
            s,
            "{i} {} {} {} {}",
            c.bonus,
            c.name.replace(' ', "_"),
            ids.len(),
            ids.join(" ")
        );
    }
    let _ = writeln!(s, "borders {}", m.borders.len());
    for (a, b) in &m.borders {
        let _ = writeln!(s, "{a} {b}");
    }
    s
}

fn join<T: ToString>(items: impl IntoIterator<Item = T>) -> String {
    items.into_iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" ")
}

fn card_text(card: Card, territories: usize) -> String {
    format!("{}:{}", card.0, cards::symbol(card, territories).letter())
}

pub(crate) fn turn_input(view: &RiskView) -> String {
    let g = &view.game;
    let n = g.map.len();
    let mut s = String::new();
    let phase = match g.phase {
        Phase::Claim | Phase::SetupPlace { .. } => "setup",
        Phase::Trade { .. } => "trade",
        Phase::Reinforce => "reinforce",
        Phase::Attack | Phase::Defend { .. } | Phase::Occupy { .. } => "attack",
        Phase::Fortify => "fortify",
    };
    let _ = writeln!(s, "round {} current {} phase {phase}", g.round, g.current + 1);
    let _ = writeln!(s, "owners {}", join(g.owner.iter().map(|&o| owner_number(o))));
    let _ = writeln!(s, "armies {}", join(&g.armies));
    let _ = writeln!(s, "cards {}", join(&g.hand_sizes));
    let hand = &g.hands[view.seat];
    let _ = writeln!(
        s,
        "hand {}{}{}",
        hand.len(),
        if hand.is_empty() { "" } else { " " },
        join(hand.iter().map(|&c| card_text(c, n)))
    );
    let _ = writeln!(
        s,
        "trades {} next_value {} deck {} bonus_taken {}",
        g.trades,
        g.next_set_value(),
        g.deck_size,
        u8::from(g.bonus_taken)
    );
    let _ = writeln!(s, "reserve {}", join(&g.reserve));
    match &g.last_battle {
        None => {
            let _ = writeln!(s, "last none");
        }
        Some(b) => {
            let dice = |d: &[u8]| join(d.iter()).replace(' ', ",");
            let _ = writeln!(
                s,
                "last {} {} {} {} {} {} {}",
                b.from,
                b.to,
                dice(&b.attack),
                dice(&b.defence),
                b.losses.attacker,
                b.losses.defender,
                u8::from(b.conquered)
            );
        }
    }
    let ask = match g.phase {
        Phase::Claim => "claim".to_string(),
        Phase::SetupPlace { own_left, neutral_left } if own_left > 0 => {
            format!("place 1 own {own_left} neutral {neutral_left}")
        }
        Phase::SetupPlace { neutral_left, .. } => format!("place-neutral 1 neutral {neutral_left}"),
        Phase::Trade { forced: true } => format!("trade-forced {}", hand.len()),
        Phase::Trade { forced: false } => format!("trade {}", hand.len()),
        Phase::Reinforce => format!("reinforce {}", g.pool),
        Phase::Attack => "attack".to_string(),
        Phase::Defend { from, to, dice } => {
            format!("defend {from} {to} {dice} {}", g.armies[to].min(2))
        }
        Phase::Occupy { from, to, min } => {
            format!("occupy {from} {to} {min} {}", min + g.armies[from] - 1)
        }
        Phase::Fortify => "fortify".to_string(),
    };
    let _ = writeln!(s, "ask {ask}");
    s
}

fn numbers<const K: usize>(words: &[&str], what: &str) -> Result<[usize; K], String> {
    if words.len() != K + 1 {
        return Err(format!("`{}` takes {K} number(s): {what}", words[0]));
    }
    let mut out = [0usize; K];
    for (i, w) in words[1..].iter().enumerate() {
        out[i] = w.parse().map_err(|_| format!("`{w}` is not a number ({what})"))?;
    }
    Ok(out)
}

pub(crate) fn parse_action(_view: &RiskView, line: &str) -> Result<RiskAction, BadLine> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(&verb) = words.first() else {
        return Err("an empty line".into());
    };
    let n32 = |x: usize| u32::try_from(x).map_err(|_| format!("{x} is too large"));
    Ok(match verb.to_ascii_lowercase().as_str() {
        "claim" => RiskAction::Claim(numbers::<1>(&words, "territory")?[0]),
        "place" => {
            if words.len() == 2 {
                RiskAction::Place { territory: numbers::<1>(&words, "territory")?[0], armies: 1 }
            } else {
                let [t, a] = numbers::<2>(&words, "territory armies")?;
                RiskAction::Place { territory: t, armies: n32(a)? }
            }
        }
        "trade" => {
            let [a, b, c] = numbers::<3>(&words, "three card ids")?;
            let card = |x: usize| u16::try_from(x).map(Card).map_err(|_| format!("no card {x}"));
            RiskAction::Trade([card(a)?, card(b)?, card(c)?])
        }
        "attack" => {
            let [from, to, dice] = numbers::<3>(&words, "from to dice")?;
            RiskAction::Attack { from, to, dice: n32(dice)? }
        }
        "defend" => RiskAction::Defend(n32(numbers::<1>(&words, "dice")?[0])?),
        "move" => RiskAction::Occupy(n32(numbers::<1>(&words, "armies")?[0])?),
        "fortify" => {
            let [from, to, armies] = numbers::<3>(&words, "from to armies")?;
            RiskAction::Fortify { from, to, armies: n32(armies)? }
        }
        "end" if words.len() == 1 => RiskAction::End,
        _ => {
            return Err(BadLine::from(format!(
                "unknown command `{verb}` (claim, place, trade, attack, defend, move, fortify, end)"
            )));
        }
    })
}

pub(crate) fn format_action(action: &RiskAction) -> String {
    match *action {
        RiskAction::Claim(t) => format!("claim {t}"),
        RiskAction::Place { territory, armies } => format!("place {territory} {armies}"),
        RiskAction::Trade([a, b, c]) => format!("trade {a} {b} {c}"),
        RiskAction::Attack { from, to, dice } => format!("attack {from} {to} {dice}"),
        RiskAction::Defend(d) => format!("defend {d}"),
        RiskAction::Occupy(n) => format!("move {n}"),
        RiskAction::Fortify { from, to, armies } => format!("fortify {from} {to} {armies}"),
        RiskAction::End => "end".to_string(),
    }
}
