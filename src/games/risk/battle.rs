//! One battle: the attacker rolls 1 to 3 dice, the defender 1 or 2; the highest dice are
//! compared, then the second highest; ties go to the defender. Dice come only from the RNG the
//! referee hands to the rules, so a replay re-rolls every die. The exact odds (by enumeration)
//! and the chance of conquering a territory (by dynamic programming) serve the bots and the tests.

use rand::{Rng, RngExt};

/// What one roll cost each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Losses {
    pub attacker: u32,
    pub defender: u32,
}

/// Compares sorted (descending) dice; ties go to the defender.
pub(crate) fn resolve(attack: &[u8], defence: &[u8]) -> Losses {
    let mut a: Vec<u8> = attack.to_vec();
    let mut d: Vec<u8> = defence.to_vec();
    a.sort_unstable_by(|x, y| y.cmp(x));
    d.sort_unstable_by(|x, y| y.cmp(x));
    let mut losses = Losses { attacker: 0, defender: 0 };
    for (x, y) in a.iter().zip(&d) {
        if x > y {
            losses.defender += 1;
        } else {
            losses.attacker += 1;
        }
    }
    losses
}

/// Rolls `n` dice, one `random_range(1..=6)` each, attacker's first then defender's.
pub(crate) fn roll(rng: &mut dyn Rng, n: u32) -> Vec<u8> {
    (0..n).map(|_| rng.random_range(1..=6u8)).collect()
}

/// Rolls a battle: the dice of both sides and the losses.
pub(crate) fn fight(
    rng: &mut dyn Rng,
    attack_dice: u32,
    defence_dice: u32,
) -> (Vec<u8>, Vec<u8>, Losses) {
    let a = roll(rng, attack_dice);
    let d = roll(rng, defence_dice);
    let losses = resolve(&a, &d);
    (a, d, losses)
}

/// The exact distribution of one roll: every outcome with its count out of `6^(a+d)`.
pub(crate) fn outcome_counts(attack_dice: u32, defence_dice: u32) -> Vec<(Losses, u64)> {
    let total = 6u64.pow(attack_dice + defence_dice);
    let mut counts = std::collections::BTreeMap::new();
    let n = (attack_dice + defence_dice) as usize;
    for code in 0..total {
        let mut c = code;
        let dice: Vec<u8> = (0..n)
            .map(|_| {
                let v = (c % 6) as u8 + 1;
                c /= 6;
                v
            })
            .collect();
        let (a, d) = dice.split_at(attack_dice as usize);
        *counts.entry(resolve(a, d)).or_insert(0u64) += 1;
    }
    counts.into_iter().collect()
}

/// Exact single-roll probabilities for every dice combination, cached once.
pub(crate) struct Odds {
    /// `table[a-1][d-1]` = outcomes with probabilities.
    table: Vec<Vec<Vec<(Losses, f64)>>>,
}

impl Default for Odds {
    fn default() -> Odds {
        Odds::new()
    }
}

impl Odds {
    pub(crate) fn new() -> Odds {
        let table = (1..=3)
            .map(|a| {
                (1..=2)
                    .map(|d| {
                        let total = 6f64.powi((a + d) as i32);
                        outcome_counts(a, d)
                            .into_iter()
                            .map(|(l, c)| (l, c as f64 / total))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        Odds { table }
    }

    pub(crate) fn single(&self, attack_dice: u32, defence_dice: u32) -> &[(Losses, f64)] {
        &self.table[attack_dice as usize - 1][defence_dice as usize - 1]
    }

    /// The chance that `attackers` armies on the attacking territory (one must stay behind)
    /// conquer `defenders`, both sides always rolling the most dice they may.
    #[cfg(test)]
    fn conquer(&self, attackers: u32, defenders: u32) -> f64 {
        self.conquer_table(attackers, defenders)[attackers as usize][defenders as usize]
    }

    /// `table[a][d]` = [`Odds::conquer`]`(a, d)` for every `a <= attackers`, `d <= defenders`.
    pub(crate) fn conquer_table(&self, attackers: u32, defenders: u32) -> Vec<Vec<f64>> {
        let (a_max, d_max) = (attackers as usize, defenders as usize);
        let mut p = vec![vec![0.0f64; d_max + 1]; a_max + 1];
        for row in &mut p {
            row[0] = 1.0;
        }
        for a in 2..=a_max {
            for d in 1..=d_max {
                let ad = (a as u32 - 1).min(3);
                let dd = (d as u32).min(2);
                p[a][d] = self
                    .single(ad, dd)
                    .iter()
                    .map(|(l, q)| q * p[a - l.attacker as usize][d - l.defender as usize])
                    .sum();
            }
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// `(a, d, attacker_loss, defender_loss, count, total)` from tests/data/risk/dice_tables.txt.
    fn published() -> Vec<(u32, u32, u32, u32, u64, u64)> {
        let text = include_str!("../../../tests/data/risk/dice_tables.txt");
        let mut rows = Vec::new();
        for line in text.lines() {
            // `3 2 : (0,2) -> 2890/7776 = 0.371656`
            if line.starts_with('#') {
                continue;
            }
            let Some((dice, rest)) = line.split_once(':') else { continue };
            let Some((losses, frac)) = rest.split_once("->") else { continue };
            let dice: Vec<u32> = dice.split_whitespace().filter_map(|w| w.parse().ok()).collect();
            let losses: Vec<u32> = losses
                .trim()
                .trim_matches(|c| c == '(' || c == ')')
                .split(',')
                .filter_map(|w| w.trim().parse().ok())
                .collect();
            let frac = frac.split('=').next().unwrap_or("").trim();
            let (c, t) = frac.split_once('/').unwrap();
            rows.push((
                dice[0],
                dice[1],
                losses[0],
                losses[1],
                c.parse().unwrap(),
                t.parse().unwrap(),
            ));
        }
        rows
    }

    #[test]
    fn enumeration_reproduces_every_published_single_roll_distribution() {
        let rows = published();
        assert_eq!(rows.len(), 14, "the data file lists 14 outcomes");
        for a in 1..=3 {
            for d in 1..=2 {
                let mine: Vec<(u32, u32, u64)> = outcome_counts(a, d)
                    .into_iter()
                    .map(|(l, c)| (l.attacker, l.defender, c))
                    .collect();
                let theirs: Vec<(u32, u32, u64)> = rows
                    .iter()
                    .filter(|r| r.0 == a && r.1 == d)
                    .map(|r| {
                        assert_eq!(r.5, 6u64.pow(a + d));
                        (r.2, r.3, r.4)
                    })
                    .collect();
                let mut theirs = theirs;
                theirs.sort_unstable();
                assert_eq!(mine, theirs, "{a} vs {d} dice");
            }
        }
    }

    #[test]
    fn conquest_odds_match_the_published_table() {
        let text = include_str!("../../../tests/data/risk/dice_tables.txt");
        let odds = Odds::new();
        let mut checked = 0;
        let mut in_table = false;
        for line in text.lines() {
            if line.starts_with("A\\D") {
                in_table = true;
                continue;
            }
            if !in_table {
                continue;
            }
            let nums: Vec<&str> = line.split_whitespace().collect();
            let Ok(a) = nums.first().map_or(Err(()), |w| w.parse::<u32>().map_err(|_| ())) else {
                continue;
            };
            for (i, w) in nums[1..].iter().enumerate() {
                let want: f64 = w.parse().unwrap();
                let got = odds.conquer(a, i as u32 + 1);
                assert!((got - want).abs() < 0.00006, "A={a} D={}: {got} vs {want}", i + 1);
                checked += 1;
            }
        }
        assert_eq!(checked, 100);
    }

    #[test]
    fn seeded_rolls_match_the_exact_odds() {
        // 60_000 rolls of each dice combination; every outcome's count must lie within 4.5
        // binomial standard deviations of its exact expectation, and a chi-square test
        // (at most 2 degrees of freedom) must not reject at the 0.1% level.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let n = 60_000u64;
        for a in 1..=3 {
            for d in 1..=2 {
                let exact = outcome_counts(a, d);
                let total = 6f64.powi((a + d) as i32);
                let mut seen = std::collections::BTreeMap::new();
                for _ in 0..n {
                    let (_, _, l) = fight(&mut rng, a, d);
                    *seen.entry(l).or_insert(0u64) += 1;
                }
                let mut chi2 = 0.0;
                for (l, c) in &exact {
                    let p = *c as f64 / total;
                    let expected = p * n as f64;
                    let got = *seen.get(l).unwrap_or(&0) as f64;
                    let sd = (n as f64 * p * (1.0 - p)).sqrt();
                    assert!(
                        (got - expected).abs() < 4.5 * sd,
                        "{a}v{d} {l:?}: {got} vs {expected}"
                    );
                    chi2 += (got - expected).powi(2) / expected;
                }
                assert_eq!(seen.len(), exact.len(), "no impossible outcome");
                // chi-square 0.999 quantiles: 1 dof 10.83, 2 dof 13.82.
                let limit = if exact.len() == 2 { 10.83 } else { 13.82 };
                assert!(chi2 < limit, "{a}v{d}: chi2 {chi2}");
            }
        }
    }
}
