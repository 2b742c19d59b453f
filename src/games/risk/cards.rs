//! The Risk cards: one card per territory, each with a symbol (infantry, cavalry, artillery),
//! plus two wilds; the sets that may be traded; the growing value of a set.
//!
//! The printed cards' symbols differ between editions, so a territory's symbol here is its id
//! modulo 3 (14 of each on the classic map), as documented in docs/risk.md.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Symbol {
    Infantry,
    Cavalry,
    Artillery,
    Wild,
}

impl Symbol {
    pub(crate) fn letter(self) -> char {
        match self {
            Symbol::Infantry => 'I',
            Symbol::Cavalry => 'C',
            Symbol::Artillery => 'A',
            Symbol::Wild => 'W',
        }
    }
}

/// A card by id: `0..n` are the territory cards of an `n`-territory map (the card of territory
/// `t` has id `t`), `n` and `n + 1` the two wilds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(pub u16);

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The deck of a map with `territories` territories.
pub(crate) fn full_deck(territories: usize) -> Vec<Card> {
    (0..territories as u16 + 2).map(Card).collect()
}

/// A card's symbol on a map with `territories` territories.
pub(crate) fn symbol(card: Card, territories: usize) -> Symbol {
    if usize::from(card.0) >= territories {
        return Symbol::Wild;
    }
    match card.0 % 3 {
        0 => Symbol::Infantry,
        1 => Symbol::Cavalry,
        _ => Symbol::Artillery,
    }
}

/// The territory a card shows, if it is not a wild.
pub(crate) fn territory(card: Card, territories: usize) -> Option<usize> {
    (usize::from(card.0) < territories).then_some(usize::from(card.0))
}

/// Three alike, one of each, or any two with a wild.
pub(crate) fn is_set(cards: [Card; 3], territories: usize) -> bool {
    let s = cards.map(|c| symbol(c, territories));
    if s.contains(&Symbol::Wild) {
        return true;
    }
    (s[0] == s[1] && s[1] == s[2]) || (s[0] != s[1] && s[1] != s[2] && s[0] != s[2])
}

/// Every set in a hand, each in hand order (hands are small).
pub(crate) fn sets_in(hand: &[Card], territories: usize) -> Vec<[Card; 3]> {
    let mut sets = Vec::new();
    for i in 0..hand.len() {
        for j in i + 1..hand.len() {
            for k in j + 1..hand.len() {
                let set = [hand[i], hand[j], hand[k]];
                if is_set(set, territories) {
                    sets.push(set);
                }
            }
        }
    }
    sets
}

/// The armies the `n`-th set traded in the game is worth (`n` from 0): 4, 6, 8, 10, 12, 15,
/// then 5 more each time.
pub(crate) fn set_value(n: u32) -> u32 {
    match n {
        0..=4 => 4 + 2 * n,
        _ => 15 + 5 * (n - 5),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_values_follow_the_rules() {
        let v: Vec<u32> = (0..9).map(set_value).collect();
        assert_eq!(v, vec![4, 6, 8, 10, 12, 15, 20, 25, 30]);
    }

    #[test]
    fn the_classic_deck_has_14_of_each_symbol_and_2_wilds() {
        let deck = full_deck(42);
        assert_eq!(deck.len(), 44);
        for s in [Symbol::Infantry, Symbol::Cavalry, Symbol::Artillery] {
            assert_eq!(deck.iter().filter(|&&c| symbol(c, 42) == s).count(), 14);
        }
        assert_eq!(deck.iter().filter(|&&c| symbol(c, 42) == Symbol::Wild).count(), 2);
    }

    #[test]
    fn sets_are_three_alike_one_of_each_or_two_and_a_wild() {
        assert!(is_set([Card(0), Card(3), Card(6)], 42));
        assert!(is_set([Card(0), Card(1), Card(2)], 42));
        assert!(is_set([Card(0), Card(1), Card(42)], 42));
        assert!(!is_set([Card(0), Card(3), Card(1)], 42));
    }

    #[test]
    fn every_hand_of_five_holds_a_set() {
        // The rule "trade at five or more" relies on it; check every 5-card symbol multiset.
        let reps = [Card(0), Card(1), Card(2), Card(42)];
        for a in 0..4 {
            for b in a..4 {
                for c in b..4 {
                    for d in c..4 {
                        for e in d..4 {
                            let hand: Vec<Card> =
                                [a, b, c, d, e].iter().map(|&i| reps[i]).collect();
                            if hand.iter().filter(|c| c.0 == 42).count() > 2 {
                                continue;
                            }
                            assert!(!sets_in(&hand, 42).is_empty(), "{hand:?}");
                        }
                    }
                }
            }
        }
    }
}
