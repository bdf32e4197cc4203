//! The bytes a scanned record keeps (thread, logger, message text, first line) without copying them.
//!
//! A record is scanned inside its block, which stays at hand until the record is folded into its input: the
//! record names byte ranges of the block then, and copies them only if it outlives the block (it is still
//! open at the block's end, or waits behind another stream's open record). Most records of a long log are
//! whole inside one block, so most allocate nothing for these.

/// Bytes of a record: a range of its block, or (detached from the block, or not in it) a copy.
#[derive(Debug)]
pub(crate) enum BlockBytes {
    /// `block[start..end]`.
    InBlock {
        start: u32,
        end: u32,
    },
    Owned(Vec<u8>),
}

impl BlockBytes {
    /// `part` as a range of `block` when it lies in it, else a copy (a wrapper's decoded line, joined CRI
    /// partial lines).
    pub(crate) fn of(block: &[u8], part: &[u8]) -> BlockBytes {
        match range_in(block, part) {
            Some((start, end)) => BlockBytes::InBlock { start, end },
            None => BlockBytes::Owned(part.to_vec()),
        }
    }

    /// The bytes; `block` must be the block this was made from (any block once detached).
    pub(crate) fn get<'a>(&'a self, block: &'a [u8]) -> &'a [u8] {
        match self {
            BlockBytes::InBlock { start, end } => &block[*start as usize..*end as usize],
            BlockBytes::Owned(v) => v,
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            BlockBytes::InBlock { start, end } => (end - start) as usize,
            BlockBytes::Owned(v) => v.len(),
        }
    }

    /// Appends a `\n` and `line`. A continuation line that follows the range after one newline in the block
    /// (a plain file's next line) only moves the range's end.
    pub(crate) fn push_line(&mut self, block: &[u8], line: &[u8]) {
        if let BlockBytes::InBlock { start, end } = *self {
            match range_in(block, line) {
                Some((s, e)) if s == end + 1 && block[end as usize] == b'\n' => {
                    *self = BlockBytes::InBlock { start, end: e };
                    return;
                }
                _ => self.detach(block),
            }
        }
        if let BlockBytes::Owned(v) = self {
            v.push(b'\n');
            v.extend_from_slice(line);
        }
    }

    /// Copies the range out of `block`, so that the bytes outlive it.
    pub(crate) fn detach(&mut self, block: &[u8]) {
        if let BlockBytes::InBlock { start, end } = *self {
            *self = BlockBytes::Owned(block[start as usize..end as usize].to_vec());
        }
    }
}

/// Where `part` lies in `block`, if it is a slice of it (an empty one too: a blank continuation line).
fn range_in(block: &[u8], part: &[u8]) -> Option<(u32, u32)> {
    let b = block.as_ptr_range();
    let p = part.as_ptr_range();
    if p.start < b.start || p.end > b.end {
        return None;
    }
    let start = p.start as usize - b.start as usize;
    Some((start as u32, (start + part.len()) as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_of_the_block_is_a_range_and_anything_else_a_copy() {
        let block = b"ab\ncd\r\nef".to_vec();
        let other = b"cd".to_vec();
        let mut r = BlockBytes::of(&block, &block[0..2]);
        assert!(matches!(r, BlockBytes::InBlock { start: 0, end: 2 }));
        // The next line after one `\n`: the range grows.
        r.push_line(&block, &block[3..5]);
        assert!(matches!(r, BlockBytes::InBlock { start: 0, end: 5 }));
        assert_eq!(r.get(&block), b"ab\ncd");
        // After `\r\n` (the `\r` is not the record's text): a copy that holds the same bytes as before.
        r.push_line(&block, &block[7..9]);
        assert!(matches!(r, BlockBytes::Owned(_)));
        assert_eq!(r.get(&[]), b"ab\ncd\nef");
        assert_eq!(r.len(), 8);
        assert!(matches!(
            BlockBytes::of(&block, &other),
            BlockBytes::Owned(_)
        ));
        let mut d = BlockBytes::of(&block, &block[3..5]);
        d.detach(&block);
        assert_eq!(d.get(&[]), b"cd");
        // A line that is not right after the range (not the next line) is copied in.
        let mut g = BlockBytes::of(&block, &block[0..2]);
        g.push_line(&block, &block[7..9]);
        assert_eq!(g.get(&[]), b"ab\nef");
    }
}
