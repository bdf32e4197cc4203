//! Values for a few of many numbered events (the lifecycle steps, the merge's edge ends), found by rank: a
//! bit per event says which have one, a count per 64 events says how many come before, and the values lie
//! densely in event order. Read in event order (the replay, the merge's chains), a lookup reads memory near
//! the one before it, where a hash map from event number to value missed the cache on every lookup once it
//! held a few hundred thousand entries.

use fixedbitset::FixedBitSet;

/// Events per count in [`Ranked::before`].
const SPAN: usize = 64;

#[derive(Debug, Clone)]
pub struct Ranked<T> {
    /// Bit `i`: event `i` has a value.
    has: FixedBitSet,
    /// Per [`SPAN`] events, how many values the events before them have.
    before: Vec<u32>,
    /// The values, in the order of their events.
    values: Vec<T>,
}

impl<T> Default for Ranked<T> {
    fn default() -> Self {
        Ranked {
            has: FixedBitSet::default(),
            before: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<T> Ranked<T> {
    /// Gives event `index` a value. Events are given in increasing order: `false` (and nothing kept) for an
    /// event at or before the last one given.
    pub fn push(&mut self, index: usize, value: T) -> bool {
        let span = index / SPAN;
        let span_end = self.has.len().min((span + 1) * SPAN);
        if self.before.len() > span + 1 || self.has.count_ones(index.min(span_end)..span_end) > 0 {
            return false;
        }
        // Every span up to this event's starts after the values so far.
        while self.before.len() <= span {
            self.before.push(self.values.len() as u32);
        }
        if index >= self.has.len() {
            self.has.grow((index + 1).next_power_of_two());
        }
        self.has.insert(index);
        self.values.push(value);
        true
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Does event `index` have a value?
    pub fn contains(&self, index: usize) -> bool {
        self.has.contains(index)
    }

    /// Where event `index`'s value lies, if it has one.
    fn rank(&self, index: usize) -> Option<usize> {
        if !self.has.contains(index) {
            return None;
        }
        let span = index / SPAN;
        Some(self.before[span] as usize + self.has.count_ones(span * SPAN..index))
    }

    pub fn get(&self, index: usize) -> Option<&T> {
        self.rank(index).map(|r| &self.values[r])
    }

    pub fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        self.rank(index).map(|r| &mut self.values[r])
    }

    /// The events that have a value, in order.
    pub fn indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.has.ones()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_event_reads_its_own_value_wherever_it_falls_among_the_spans() {
        let at = [
            0, 1, 63, 64, 65, 127, 128, 1_000, 1_001, 4_095, 4_096, 70_000,
        ];
        let mut ranked = Ranked::default();
        for &i in &at {
            assert!(ranked.push(i, i * 10));
        }
        assert_eq!(ranked.len(), at.len());
        assert_eq!(ranked.indices().collect::<Vec<_>>(), at.to_vec());
        for i in 0..80_000 {
            let want = at.contains(&i).then_some(i * 10);
            assert_eq!(ranked.get(i).copied(), want, "event {i}");
            assert_eq!(ranked.contains(i), want.is_some());
        }
        *ranked.get_mut(1_000).unwrap() = 7;
        assert_eq!(ranked.get(1_000), Some(&7));
        assert_eq!(ranked.get(1_001), Some(&10_010));
        assert_eq!(Ranked::<u32>::default().get(5), None);
    }

    #[test]
    fn an_event_given_out_of_order_is_refused_and_changes_nothing() {
        let mut ranked = Ranked::default();
        assert!(ranked.push(100, 'a'));
        assert!(!ranked.push(100, 'b'), "the same event again");
        assert!(!ranked.push(99, 'c'), "an event before it, in its span");
        assert!(!ranked.push(3, 'd'), "an event of a span before");
        assert!(ranked.push(101, 'e'));
        assert_eq!(ranked.indices().collect::<Vec<_>>(), vec![100, 101]);
        assert_eq!((ranked.get(100), ranked.get(101)), (Some(&'a'), Some(&'e')));
    }
}
