//! What the replay viewer draws of Risk: territories placed like the classic world map (by name;
//! a seeded force-directed layout for maps with other names), continents as coloured regions,
//! owners and armies after every decision, and a log of reinforcements, battles with their dice,
//! conquests and cards traded. A card a seat draws or takes is hidden information: its event is
//! private to that seat, and so is the seat's turn input, which lists its hand.

use serde_json::{Value, json};

use super::cards::{self, Card, Symbol};
use super::map::RiskMap;
use super::rules::{Phase, Risk, RiskAction, UNCLAIMED};
use crate::game::MapText;
use crate::game::Seat;
use crate::registry::{Drawing, Event};
use crate::view::layout::{self, Point};

/// The drawing's size for the classic coordinates.
const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 560.0;

/// The classic board, by territory name, on a 1000 x 560 canvas (y down), laid out like the
/// printed world map.
const CLASSIC: &[(&str, f64, f64)] = &[
    ("Alaska", 55.0, 75.0),
    ("Northwest Territory", 160.0, 70.0),
    ("Greenland", 335.0, 45.0),
    ("Alberta", 130.0, 140.0),
    ("Ontario", 215.0, 145.0),
    ("Quebec", 295.0, 135.0),
    ("Western United States", 135.0, 215.0),
    ("Eastern United States", 235.0, 225.0),
    ("Central America", 165.0, 295.0),
    ("Venezuela", 240.0, 345.0),
    ("Peru", 215.0, 425.0),
    ("Brazil", 305.0, 405.0),
    ("Argentina", 245.0, 505.0),
    ("Iceland", 420.0, 85.0),
    ("Scandinavia", 515.0, 70.0),
    ("Great Britain", 410.0, 165.0),
    ("Northern Europe", 500.0, 160.0),
    ("Ukraine", 590.0, 125.0),
    ("Western Europe", 420.0, 250.0),
    ("Southern Europe", 515.0, 235.0),
    ("North Africa", 450.0, 345.0),
    ("Egypt", 545.0, 320.0),
    ("East Africa", 600.0, 400.0),
    ("Congo", 520.0, 430.0),
    ("South Africa", 545.0, 510.0),
    ("Madagascar", 640.0, 495.0),
    ("Ural", 690.0, 105.0),
    ("Siberia", 765.0, 65.0),
    ("Yakutsk", 860.0, 50.0),
    ("Kamchatka", 945.0, 80.0),
    ("Irkutsk", 845.0, 125.0),
    ("Mongolia", 860.0, 195.0),
    ("Japan", 955.0, 205.0),
    ("Afghanistan", 680.0, 195.0),
    ("China", 800.0, 255.0),
    ("Middle East", 625.0, 270.0),
    ("India", 720.0, 310.0),
    ("Siam", 815.0, 340.0),
    ("Indonesia", 820.0, 425.0),
    ("New Guinea", 925.0, 410.0),
    ("Western Australia", 845.0, 510.0),
    ("Eastern Australia", 945.0, 495.0),
];

/// The classic continents' colours (as on the printed board, lightened for a background).
const CLASSIC_COLOURS: &[(&str, &str)] = &[
    ("north-america", "#f3df8a"),
    ("south-america", "#f2b58c"),
    ("europe", "#a9c6ee"),
    ("africa", "#d9b99b"),
    ("asia", "#b5dba6"),
    ("oceania", "#d7b8e6"),
];

/// Colours for the continents of other maps.
const OTHER_COLOURS: &[&str] =
    &["#f3df8a", "#a9c6ee", "#b5dba6", "#f2b58c", "#d7b8e6", "#d9b99b", "#9fd8d3", "#e6b3c3"];

/// How the viewer draws Risk ([`Drawing`]).
pub struct RiskDrawing;

impl Drawing<Risk> for RiskDrawing {
    const PRIVATE_INPUTS: bool = true;

    fn board(game: &Risk, map: &MapText) -> Value {
        let m = &game.map;
        let n = m.len();
        let classic: Option<Vec<Point>> = m
            .territories
            .iter()
            .map(|t| CLASSIC.iter().find(|c| c.0 == t.name).map(|c| (c.1, c.2)))
            .collect();
        let (pos, width, layout_name) = match classic {
            Some(pos) => (pos, WIDTH, "classic"),
            None => {
                let edges: Vec<(u32, u32)> =
                    m.borders.iter().map(|&(a, b)| (a as u32, b as u32)).collect();
                let pos = layout::force_layout(n, &edges, layout::text_seed(&map.text));
                (pos, 0.0, "force-directed layout")
            }
        };
        // On the world map a border longer than half the width goes round the back (Alaska to
        // Kamchatka): the page draws it leaving both edges of the map.
        let borders: Vec<[usize; 3]> = m
            .borders
            .iter()
            .map(|&(a, b)| {
                let wraps = width > 0.0 && (pos[a].0 - pos[b].0).abs() > width / 2.0;
                [a, b, usize::from(wraps)]
            })
            .collect();
        let continents: Vec<Value> = m
            .continents
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let colour = CLASSIC_COLOURS
                    .iter()
                    .find(|(name, _)| *name == c.name)
                    .map(|(_, colour)| *colour)
                    .unwrap_or(OTHER_COLOURS[i % OTHER_COLOURS.len()]);
                json!({"name": c.name, "bonus": c.bonus, "colour": colour})
            })
            .collect();
        let card_list: Vec<Value> = cards::full_deck(n)
            .into_iter()
            .map(|c| json!({"territory": cards::territory(c, n), "symbol": symbol_name(c, n)}))
            .collect();
        json!({
            "territories": m.territories.iter().zip(&pos).map(|(t, &(x, y))| json!({
                "name": t.name, "continent": t.continent, "x": x.round(), "y": y.round(),
            })).collect::<Vec<_>>(),
            "continents": continents,
            "borders": borders,
            "width": if width > 0.0 { width } else { 0.0 },
            "height": if width > 0.0 { HEIGHT } else { 0.0 },
            "radius": if width > 0.0 { 17.0 } else { layout::node_radius(&pos).round().min(30.0) },
            "layout": layout_name,
            "players": game.seats(),
            "neutral": game.neutral(),
            "cards": card_list,
        })
    }

    fn state(game: &Risk) -> Value {
        let owners: Vec<i64> =
            game.owner.iter().map(|&o| if o == UNCLAIMED { -1 } else { i64::from(o) }).collect();
        let hands: Vec<Vec<u16>> =
            game.hands.iter().map(|h| h.iter().map(|c| c.0).collect()).collect();
        json!({
            "owner": owners,
            "armies": game.armies,
            "hands": hands,
            "hand_sizes": game.hand_sizes,
            "current": game.current,
            "to_act": if game.over.is_some() { None } else { Some(game.to_act()) },
            "asked": if game.over.is_some() { "the game is over".to_string() } else { game.asked() },
            "phase": phase_name(game.phase),
            "round": game.round,
            "pool": game.pool,
            "reserve": game.reserve,
            "trades": game.trades,
            "next_value": game.next_set_value(),
            "deck": game.deck_size,
            "alive": game.alive,
        })
    }

    fn events(before: &Risk, after: &Risk, seat: Seat, action: &RiskAction) -> Vec<Event> {
        let m = &after.map;
        let name = |t: usize| m.territories[t].name.as_str();
        let player = |s: usize| format!("player{}", s + 1);
        let me = player(seat);
        let mut events = Vec::new();
        match *action {
            RiskAction::Claim(t) => {
                events.push(Event::new("claim", format!("{me} claims {}", name(t))));
            }
            RiskAction::Place { territory: t, armies } => {
                let text = match before.phase {
                    Phase::SetupPlace { own_left: 0, .. } => {
                        format!("{me} places a neutral army on {}", name(t))
                    }
                    Phase::SetupPlace { .. } => format!("{me} places an army on {}", name(t)),
                    _ => format!(
                        "{me} reinforces {} with {armies} ({} left to place)",
                        name(t),
                        after.pool
                    ),
                };
                events.push(Event::new("place", text));
            }
            RiskAction::Trade(set) => {
                let shown: Vec<String> = set.iter().map(|&c| card_name(c, m)).collect();
                let bonus = if after.bonus_taken && !before.bonus_taken {
                    let t = set
                        .iter()
                        .filter_map(|&c| cards::territory(c, m.len()))
                        .find(|&t| after.armies[t] == before.armies[t] + 2);
                    t.map(|t| format!(", +2 on {}", name(t))).unwrap_or_default()
                } else {
                    String::new()
                };
                events.push(Event::new(
                    "trade",
                    format!(
                        "{me} trades {} for {} armies{bonus}",
                        shown.join(", "),
                        after.pool - before.pool
                    ),
                ));
            }
            RiskAction::Attack { from, to, dice } => {
                if matches!(after.phase, Phase::Defend { .. }) {
                    events.push(Event::new(
                        "attack",
                        format!(
                            "{me} attacks {} from {} with {dice} dice; {} chooses its defence",
                            name(to),
                            name(from),
                            player(after.to_act())
                        ),
                    ));
                } else {
                    events.push(battle(before, after, &player));
                }
            }
            RiskAction::Defend(_) => events.push(battle(before, after, &player)),
            RiskAction::Occupy(total) => {
                if let Phase::Occupy { from, to, .. } = before.phase {
                    events.push(Event::new(
                        "move",
                        format!(
                            "{me} occupies {} with {total} armies from {}",
                            name(to),
                            name(from)
                        ),
                    ));
                }
            }
            RiskAction::Fortify { from, to, armies } => events.push(Event::new(
                "fortify",
                format!("{me} fortifies {} with {armies} from {}", name(to), name(from)),
            )),
            RiskAction::End => {
                let what = match before.phase {
                    Phase::Trade { .. } => "trading",
                    Phase::Attack => "attacking",
                    _ => "the turn",
                };
                events.push(Event::new("phase", format!("{me} ends {what}")));
            }
        }
        for s in 0..after.seats() {
            if before.alive[s] && !after.alive[s] {
                events.push(Event::new(
                    "eliminated",
                    format!(
                        "{} is eliminated by {}; its {} card(s) go to {}",
                        player(s),
                        player(after.current),
                        before.hand_sizes[s],
                        player(after.current)
                    ),
                ));
            }
            let new: Vec<Card> =
                after.hands[s].iter().copied().filter(|c| !before.hands[s].contains(c)).collect();
            if new.is_empty() {
                continue;
            }
            let taken = before.alive.iter().zip(&after.alive).any(|(b, a)| *b && !*a);
            if !taken {
                events.push(Event::new("card", format!("{} draws a card", player(s))));
            }
            let shown: Vec<String> = new.iter().map(|&c| card_name(c, m)).collect();
            events.push(Event::private(
                "card",
                s,
                format!("{} receives {}", player(s), shown.join(", ")),
            ));
        }
        let new_turn = after.current != before.current || after.round != before.round;
        if after.over.is_none()
            && new_turn
            && matches!(after.phase, Phase::Trade { forced: false } | Phase::Reinforce)
        {
            let phase = if before.round == 0 { "the first turn" } else { "turn" };
            events.push(Event::new(
                "turn",
                format!(
                    "round {}, {phase} of {}: {} reinforcements",
                    after.round,
                    player(after.current),
                    after.base_reinforcements(after.current)
                ),
            ));
        }
        if let (None, Some(outcome)) = (&before.over, &after.over) {
            events.push(Event::new("end", outcome.reason.clone()));
        }
        events
    }
}

/// The battle `after` records, as an event with the dice for the page to draw.
fn battle(before: &Risk, after: &Risk, player: &dyn Fn(usize) -> String) -> Event {
    let Some(b) = &after.last_battle else {
        return Event::new("battle", "a battle without a report");
    };
    let m = &after.map;
    let attacker = player(after.current);
    let defender = match before.owner[b.to] {
        o if Some(o) == before.neutral() => "the neutral".to_string(),
        o => player(o as usize),
    };
    // The dice go in the event's data, which the page draws as dice.
    let mut text = format!(
        "{attacker} attacks {} ({defender}) from {}: losses {}–{}",
        m.territories[b.to].name, m.territories[b.from].name, b.losses.attacker, b.losses.defender
    );
    if b.conquered {
        text.push_str(&format!("; {} conquered", m.territories[b.to].name));
    }
    Event::new("battle", text).with_data(json!({
        "from": b.from,
        "to": b.to,
        "attack": b.attack,
        "defence": b.defence,
        "conquered": b.conquered,
    }))
}

fn card_name(card: Card, map: &RiskMap) -> String {
    let territories = map.len();
    match cards::territory(card, territories) {
        Some(t) => format!(
            "card {} ({}, {})",
            card.0,
            map.territories[t].name,
            symbol_name(card, territories)
        ),
        None => format!("card {} (wild)", card.0),
    }
}

fn symbol_name(card: Card, territories: usize) -> &'static str {
    match cards::symbol(card, territories) {
        Symbol::Infantry => "infantry",
        Symbol::Cavalry => "cavalry",
        Symbol::Artillery => "artillery",
        Symbol::Wild => "wild",
    }
}

fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Claim => "claim",
        Phase::SetupPlace { .. } => "setup",
        Phase::Trade { .. } => "trade",
        Phase::Reinforce => "reinforce",
        Phase::Attack => "attack",
        Phase::Defend { .. } => "defend",
        Phase::Occupy { .. } => "occupy",
        Phase::Fortify => "fortify",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_classic_territory_has_a_place_and_no_two_crowd() {
        let map = super::super::map::builtin("classic").unwrap();
        for t in &map.territories {
            assert!(CLASSIC.iter().any(|c| c.0 == t.name), "{} has no coordinates", t.name);
        }
        assert_eq!(CLASSIC.len(), map.len());
        for (i, a) in CLASSIC.iter().enumerate() {
            for b in &CLASSIC[..i] {
                let d = (a.1 - b.1).hypot(a.2 - b.2);
                assert!(d >= 60.0, "{} and {} are {d} apart", a.0, b.0);
            }
        }
    }
}
