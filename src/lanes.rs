//! Chunks of records written to disk in a few bytes each: a record is `N` lanes (unsigned 64-bit values),
//! and each lane is stored as its offset from the chunk's smallest value of that lane, in as many bytes as
//! the chunk's range of the lane needs (frame of reference).
//!
//! Why: past the memory budget every event head is written to a spill file once and read back by each
//! pass, and on a virtual machine the pages a file is written into cost more than the bytes (memory the
//! host reclaimed comes back one page fault at a time: 1.4 GB took 2.4 s to write into fresh pages, 0.3 s
//! into pages just freed). The heads of one input's chunk share their input, node, thread, rule and level,
//! and their lines, offsets and times lie close together: 74 bytes a head become about 25.
//!
//! Layout: the record count (u32), then per lane its width in bytes (0 to 8) and its base (u64), then the
//! records, each lane's offset in its width, little-endian. Every record has the same size, so decoding
//! is a few loads and masks per lane.

/// Bytes of the header before the records: the count, then a width and a base per lane.
const fn header_bytes(lanes: usize) -> usize {
    4 + lanes * 9
}

/// Bytes needed for a lane whose values span `range` (its largest minus its smallest).
fn width_of(range: u64) -> usize {
    (64 - range.leading_zeros() as usize).div_ceil(8)
}

/// Appends the records, each given as its `N` lanes, to `out` in the chunk layout.
pub fn encode<const N: usize>(records: &[[u64; N]], out: &mut Vec<u8>) {
    let mut min = [u64::MAX; N];
    let mut max = [0u64; N];
    for r in records {
        for l in 0..N {
            min[l] = min[l].min(r[l]);
            max[l] = max[l].max(r[l]);
        }
    }
    let count = u32::try_from(records.len()).expect("a chunk holds fewer than 2^32 records");
    out.reserve(header_bytes(N) + records.len() * N * 8);
    out.extend_from_slice(&count.to_le_bytes());
    let mut width = [0usize; N];
    if records.is_empty() {
        min = [0; N];
    }
    for l in 0..N {
        width[l] = width_of(max[l] - min[l]);
        out.push(width[l] as u8);
        out.extend_from_slice(&min[l].to_le_bytes());
    }
    for r in records {
        for l in 0..N {
            out.extend_from_slice(&(r[l] - min[l]).to_le_bytes()[..width[l]]);
        }
    }
}

/// The chunk's records could not be read: its bytes are not a chunk of `N` lanes.
#[derive(Debug, PartialEq, Eq)]
pub struct Malformed(pub &'static str);

/// Calls `f` with the lanes of each record of a chunk [`encode`] wrote, in order.
pub fn decode<const N: usize>(bytes: &[u8], mut f: impl FnMut([u64; N])) -> Result<(), Malformed> {
    let header = bytes
        .get(..header_bytes(N))
        .ok_or(Malformed("shorter than its header"))?;
    let count = u32::from_le_bytes(header[..4].try_into().expect("4 bytes")) as usize;
    let mut base = [0u64; N];
    let mut mask = [0u64; N];
    let mut offset = [0usize; N];
    let mut row = 0;
    for l in 0..N {
        let at = 4 + l * 9;
        let width = header[at] as usize;
        if width > 8 {
            return Err(Malformed("a lane wider than 8 bytes"));
        }
        base[l] = u64::from_le_bytes(header[at + 1..at + 9].try_into().expect("8 bytes"));
        // A lane of width 0 reads nothing that counts: its mask clears it.
        mask[l] = u64::MAX.checked_shr(64 - 8 * width as u32).unwrap_or(0);
        offset[l] = row;
        row += width;
    }
    let body = &bytes[header_bytes(N)..];
    if body.len() < count * row {
        return Err(Malformed("shorter than its records"));
    }
    for r in 0..count {
        let start = r * row;
        let mut lanes = [0u64; N];
        for l in 0..N {
            let at = start + offset[l];
            // Eight bytes at once where the chunk has them (all but its last few lanes).
            let raw = match body.get(at..at + 8) {
                Some(b) => u64::from_le_bytes(b.try_into().expect("8 bytes")),
                None => {
                    let mut b = [0u8; 8];
                    let tail = body.get(at..).unwrap_or_default();
                    b[..tail.len()].copy_from_slice(tail);
                    u64::from_le_bytes(b)
                }
            };
            lanes[l] = base[l].wrapping_add(raw & mask[l]);
        }
        f(lanes);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip<const N: usize>(records: &[[u64; N]]) -> (Vec<[u64; N]>, usize) {
        let mut bytes = Vec::new();
        encode(records, &mut bytes);
        let mut back = Vec::new();
        decode::<N>(&bytes, |r| back.push(r)).expect("a chunk encode wrote");
        (back, bytes.len())
    }

    #[test]
    fn close_values_take_few_bytes_and_come_back_whole() {
        // Lines one apart, a constant, a full-range hash, and an extreme pair (0 and u64::MAX).
        let records: Vec<[u64; 4]> = (0..256u64)
            .map(|i| {
                [
                    1_000_000 + i,
                    7,
                    i.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                    if i == 3 { u64::MAX } else { 0 },
                ]
            })
            .collect();
        let (back, len) = round_trip(&records);
        assert_eq!(back, records);
        // 1 byte (a range of 255) + 0 + 8 + 8 per record.
        assert_eq!(len, header_bytes(4) + 256 * 17);
    }

    #[test]
    fn an_empty_chunk_and_a_chunk_of_one_round_trip() {
        assert_eq!(round_trip::<3>(&[]).0, Vec::<[u64; 3]>::new());
        assert_eq!(round_trip(&[[5u64, u64::MAX, 0]]).0, vec![[5, u64::MAX, 0]]);
    }

    #[test]
    fn bytes_that_are_no_chunk_are_an_error_not_a_panic() {
        let mut bytes = Vec::new();
        encode(&[[1u64, 2], [300, 4]], &mut bytes);
        for cut in 0..bytes.len() {
            assert!(decode::<2>(&bytes[..cut], |_| {}).is_err(), "cut at {cut}");
        }
        let mut wide = bytes.clone();
        wide[4] = 9;
        assert_eq!(
            decode::<2>(&wide, |_| {}),
            Err(Malformed("a lane wider than 8 bytes"))
        );
    }

    proptest! {
        #[test]
        fn any_records_round_trip(records in proptest::collection::vec(any::<[u64; 5]>(), 0..300)) {
            prop_assert_eq!(round_trip(&records).0, records);
        }

        #[test]
        fn records_near_each_other_round_trip(
            base in any::<u64>(),
            steps in proptest::collection::vec((0u64..70_000, 0u64..3), 1..300),
        ) {
            let records: Vec<[u64; 2]> = steps
                .iter()
                .map(|&(d, k)| [base.wrapping_add(d), k])
                .collect();
            prop_assert_eq!(round_trip(&records).0, records);
        }
    }
}
