//! The circuit simulator's round-robin flow lists (SelectorNet: the flows of a source whose route starts with
//! one hop; Opera: a source's low-latency datagram flows), stored flat in flow order: a flow keeps its position for the round robin, and a datagram flow
//! that has handed out its last byte is skipped by a pointer to the next flow still listed, so an uplink looking
//! for work walks the flows that may still send (docs/circuit-engine.md, "How it runs fast").

use std::cell::Cell;

#[derive(Debug, Default)]
pub(crate) struct RoundLists {
    /// Per list, where its flows start in `items` (one more entry: the end of the last list).
    start: Vec<u32>,
    items: Vec<u32>,
    /// Per flow: its index in `items` (u32::MAX, or beyond the end: in no list).
    pos: Vec<u32>,
    /// Per item and one past the last: an index at or before the first item still listed from there on
    /// (itself while listed), followed and shortened as it is read (a union-find's path compression).
    skip: Vec<Cell<u32>>,
    /// Per list: its flows' start times never decrease along it.
    in_order: Vec<bool>,
}

impl RoundLists {
    /// `lists[k]`: the flows of list k in flow order (each flow in one list at most); `flows`: how many flows
    /// the run has; `start(f)`: flow f's start time.
    pub(crate) fn new(lists: Vec<Vec<u32>>, flows: usize, start: impl Fn(u32) -> u64) -> Self {
        let mut starts = Vec::with_capacity(lists.len() + 1);
        let mut items = Vec::new();
        let mut pos = vec![u32::MAX; flows];
        let mut in_order = Vec::with_capacity(lists.len());
        starts.push(0);
        for l in lists {
            in_order.push(l.windows(2).all(|w| start(w[0]) <= start(w[1])));
            for f in l {
                pos[f as usize] = items.len() as u32;
                items.push(f);
            }
            starts.push(items.len() as u32);
        }
        let skip = (0..=items.len() as u32).map(Cell::new).collect();
        RoundLists {
            start: starts,
            items,
            pos,
            skip,
            in_order,
        }
    }

    /// List `list`'s items as a range of indices into the flat store.
    #[inline]
    pub(crate) fn span(&self, list: usize) -> (u32, u32) {
        (self.start[list], self.start[list + 1])
    }

    /// The flow at item `k`.
    #[inline]
    pub(crate) fn item(&self, k: u32) -> u32 {
        self.items[k as usize]
    }

    #[inline]
    pub(crate) fn in_order(&self, list: usize) -> bool {
        self.in_order[list]
    }

    /// The first item at or after `k` still listed (in any list: a caller compares it with its list's end).
    #[inline]
    pub(crate) fn listed_from(&self, k: u32) -> u32 {
        let mut root = k;
        while self.skip[root as usize].get() != root {
            root = self.skip[root as usize].get();
        }
        let mut x = k;
        while x != root {
            let next = self.skip[x as usize].get();
            self.skip[x as usize].set(root);
            x = next;
        }
        root
    }

    /// Flow `f` leaves its list (it keeps its position: the round robin goes on after it as before).
    pub(crate) fn remove(&mut self, f: u32) {
        match self.pos.get(f as usize) {
            Some(&k) if k != u32::MAX => self.skip[k as usize].set(k + 1),
            _ => {}
        }
    }

    /// Within list `list`, the first item whose flow starts after `now`, if its flows start in order (else the
    /// list's end): no flow from there on has started.
    pub(crate) fn started_end(&self, list: usize, now: u64, start: impl Fn(u32) -> u64) -> u32 {
        let (s, e) = self.span(list);
        if !self.in_order[list] {
            return e;
        }
        s + self.items[s as usize..e as usize].partition_point(|&f| start(f) <= now) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(l: &RoundLists, list: usize) -> Vec<u32> {
        let (s, e) = l.span(list);
        let mut out = Vec::new();
        let mut k = l.listed_from(s);
        while k < e {
            out.push(l.item(k));
            k = l.listed_from(k + 1);
        }
        out
    }

    #[test]
    fn removed_flows_are_skipped_and_the_others_keep_their_places() {
        let starts = [0u64, 5, 3, 7, 9, 9];
        let mut l = RoundLists::new(vec![vec![0, 2, 3], vec![1, 4, 5]], 6, |f| {
            starts[f as usize]
        });
        l.remove(2);
        assert_eq!(listed(&l, 0), vec![0, 3]);
        l.remove(3);
        l.remove(0);
        assert_eq!(listed(&l, 0), Vec::<u32>::new());
        assert_eq!(listed(&l, 1), vec![1, 4, 5]);
        l.remove(4);
        assert_eq!(listed(&l, 1), vec![1, 5]);
        assert_eq!((l.span(1), l.item(5)), ((3, 6), 5));
        assert_eq!(l.started_end(1, 8, |f| starts[f as usize]), 4);
        assert_eq!(l.started_end(1, 9, |f| starts[f as usize]), 6);
        let late_first = RoundLists::new(vec![vec![1, 2]], 3, |f| starts[f as usize]);
        assert!(!late_first.in_order(0));
        assert_eq!(late_first.started_end(0, 0, |f| starts[f as usize]), 2);
    }
}
