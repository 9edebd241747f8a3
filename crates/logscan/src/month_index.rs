//! One index of key hashes per month, so that the keys being looked up are few and close together.

use rustc_hash::FxHashMap;

use crate::index::Index;

/// One index of key hashes per month. Logs run mostly in time order, so the keys being looked up are those of
/// the current month: in an index of their own they fit the CPU's caches, where one index for all months made
/// nearly every lookup a trip to main memory. (Out-of-order logs give the same result, more slowly.)
#[derive(Default)]
pub struct MonthIndexes {
    indexes: Vec<Index>,
    pub position: FxHashMap<i32, usize>,
    /// The month last asked for and its index's position.
    last: Option<(i32, usize)>,
}

impl MonthIndexes {
    /// The index of `month`, if it has one, without making one.
    #[inline]
    pub fn peek(&self, month: i32) -> Option<&Index> {
        match self.last {
            Some((m, k)) if m == month => Some(&self.indexes[k]),
            _ => self.position.get(&month).map(|&k| &self.indexes[k]),
        }
    }

    #[inline]
    pub fn get(&mut self, month: i32) -> &mut Index {
        let k = match self.last {
            Some((m, k)) if m == month => k,
            _ => {
                let next = self.indexes.len();
                let k = *self.position.entry(month).or_insert(next);
                if k == next {
                    self.indexes.push(Index::default());
                }
                self.last = Some((month, k));
                k
            }
        };
        &mut self.indexes[k]
    }
}
