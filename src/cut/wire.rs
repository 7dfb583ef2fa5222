//! A [`Mail`] as bytes, as it crosses between processes: explicitly little-endian, field by
//! field (no struct's memory, whose padding would be uninitialised), each kind as a count then
//! its messages in the order sent.
//!
//! Layout: four `u32` counts (arrivals, releases, dones, records), then
//! - each arrival, 59 bytes: `ready`, `sent`, `tail` (u64), `msg`, `wire`, `src`, `dst`, `at`,
//!   `from`, `held` (u32), `aux` (u16), `held_vc`, `vc`, `dim`, `hops`, `only` (u8);
//! - each release, 17 bytes: `feeder`, `bytes` (u32), `at` (u64), `vc` (u8);
//! - each done, 5 bytes: the pool (u8: 0 a NIC message, 1 a send), `id` (u32);
//! - each record, a kind byte (0 a NIC message, 1 a transfer, 2 a send) then its fields in
//!   declaration order (`bool` as one byte, 0 or 1): 39, 42 and 46 bytes with the kind.

use super::{Arrive, Done, Mail, MsgRecord, OpRecord, P2pRecord, Pool, Record, Release};

/// Bytes of one arrival, release and done on the wire.
const ARRIVE: usize = 59;
const RELEASE: usize = 17;
const DONE: usize = 5;

/// Why bytes are not a [`Mail`] (an internal error: only this module writes them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("cut messages from another process are cut short or malformed: {0}")]
pub(crate) struct Malformed(&'static str);

/// Appends `mail` to `out` as bytes.
pub(crate) fn encode(mail: &Mail, out: &mut Vec<u8>) {
    out.reserve(
        16 + mail.arrive.len() * ARRIVE
            + mail.release.len() * RELEASE
            + mail.done.len() * DONE
            + mail.records.len() * 46,
    );
    for n in [
        mail.arrive.len(),
        mail.release.len(),
        mail.done.len(),
        mail.records.len(),
    ] {
        out.extend_from_slice(&(n as u32).to_le_bytes());
    }
    let mut w = Writer(out);
    for a in &mail.arrive {
        w.u64(a.ready);
        w.u64(a.sent);
        w.u64(a.tail);
        for x in [a.msg, a.wire, a.src, a.dst, a.at, a.from, a.held] {
            w.u32(x);
        }
        w.0.extend_from_slice(&a.aux.to_le_bytes());
        for x in [a.held_vc, a.vc, a.dim, a.hops, a.only as u8] {
            w.u8(x);
        }
    }
    for r in &mail.release {
        w.u32(r.feeder);
        w.u32(r.bytes);
        w.u64(r.at);
        w.u8(r.vc);
    }
    for d in &mail.done {
        w.u8(match d.pool {
            Pool::Msg => 0,
            Pool::P2p => 1,
        });
        w.u32(d.id);
    }
    for r in &mail.records {
        w.record(r);
    }
}

/// Appends the messages of `bytes` (made by [`encode`]) to `mail`.
pub(crate) fn decode(bytes: &[u8], mail: &mut Mail) -> Result<(), Malformed> {
    let mut r = Reader { b: bytes, at: 0 };
    let (arrive, release, done, records) = (r.count()?, r.count()?, r.count()?, r.count()?);
    // (a count larger than the bytes left could hold is malformed, before any allocation)
    let least = arrive
        .saturating_mul(ARRIVE)
        .saturating_add(release.saturating_mul(RELEASE))
        .saturating_add(done.saturating_mul(DONE))
        .saturating_add(records.saturating_mul(39));
    if least > bytes.len() - r.at {
        return Err(Malformed("counts larger than the bytes"));
    }
    mail.arrive.reserve(arrive);
    for _ in 0..arrive {
        let (ready, sent, tail) = (r.u64()?, r.u64()?, r.u64()?);
        let (msg, wire, src, dst) = (r.u32()?, r.u32()?, r.u32()?, r.u32()?);
        let (at, from, held) = (r.u32()?, r.u32()?, r.u32()?);
        let aux = u16::from_le_bytes(r.take::<2>()?);
        let (held_vc, vc, dim, hops) = (r.u8()?, r.u8()?, r.u8()?, r.u8()?);
        let only = r.bool()?;
        mail.arrive.push(Arrive {
            ready,
            sent,
            tail,
            msg,
            wire,
            src,
            dst,
            at,
            from,
            held,
            aux,
            held_vc,
            vc,
            dim,
            hops,
            only,
        });
    }
    mail.release.reserve(release);
    for _ in 0..release {
        let (feeder, bytes, at, vc) = (r.u32()?, r.u32()?, r.u64()?, r.u8()?);
        mail.release.push(Release {
            feeder,
            bytes,
            at,
            vc,
        });
    }
    mail.done.reserve(done);
    for _ in 0..done {
        let pool = match r.u8()? {
            0 => Pool::Msg,
            1 => Pool::P2p,
            _ => return Err(Malformed("a done of no pool")),
        };
        mail.done.push(Done { pool, id: r.u32()? });
    }
    mail.records.reserve(records);
    for _ in 0..records {
        let rec = r.record()?;
        mail.records.push(rec);
    }
    if r.at != bytes.len() {
        return Err(Malformed("bytes left over"));
    }
    Ok(())
}

struct Writer<'a>(&'a mut Vec<u8>);

impl Writer<'_> {
    #[inline]
    fn u8(&mut self, x: u8) {
        self.0.push(x);
    }
    #[inline]
    fn u32(&mut self, x: u32) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }
    #[inline]
    fn u64(&mut self, x: u64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }

    fn record(&mut self, r: &Record) {
        match *r {
            Record::Msg(m) => {
                self.u8(0);
                for x in [m.id, m.op, m.src, m.dst] {
                    self.u32(x);
                }
                self.u8(m.kind);
                self.u64(m.issued);
                self.u64(m.bytes);
                self.u32(m.packets);
                self.u8(m.hops);
            }
            Record::Op(o) => {
                self.u8(1);
                self.u32(o.id);
                self.u8(o.kind);
                self.u32(o.rank);
                self.u32(o.peer);
                self.u64(o.tag as u64);
                self.u32(o.seq);
                self.u64(o.bytes);
                self.u32(o.nic);
                self.u32(o.peer_nic);
            }
            Record::P2p(p) => {
                self.u8(2);
                self.u32(p.id);
                self.u32(p.src);
                self.u32(p.dst);
                self.u64(p.tag as u64);
                self.u64(p.bytes);
                self.u8(p.rendezvous as u8);
                for x in [p.send_seq, p.src_nic, p.dst_nic, p.pair_seq] {
                    self.u32(x);
                }
            }
        }
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    #[inline]
    fn take<const N: usize>(&mut self) -> Result<[u8; N], Malformed> {
        let s = self
            .b
            .get(self.at..self.at + N)
            .ok_or(Malformed("the bytes end inside a message"))?;
        self.at += N;
        Ok(s.try_into().expect("N bytes"))
    }
    fn u8(&mut self) -> Result<u8, Malformed> {
        Ok(self.take::<1>()?[0])
    }
    fn bool(&mut self) -> Result<bool, Malformed> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(Malformed("a flag neither 0 nor 1")),
        }
    }
    fn u32(&mut self) -> Result<u32, Malformed> {
        Ok(u32::from_le_bytes(self.take()?))
    }
    fn u64(&mut self) -> Result<u64, Malformed> {
        Ok(u64::from_le_bytes(self.take()?))
    }
    fn count(&mut self) -> Result<usize, Malformed> {
        Ok(self.u32()? as usize)
    }

    fn record(&mut self) -> Result<Record, Malformed> {
        Ok(match self.u8()? {
            0 => {
                let (id, op, src, dst) = (self.u32()?, self.u32()?, self.u32()?, self.u32()?);
                Record::Msg(MsgRecord {
                    id,
                    op,
                    src,
                    dst,
                    kind: self.u8()?,
                    issued: self.u64()?,
                    bytes: self.u64()?,
                    packets: self.u32()?,
                    hops: self.u8()?,
                })
            }
            1 => Record::Op(OpRecord {
                id: self.u32()?,
                kind: self.u8()?,
                rank: self.u32()?,
                peer: self.u32()?,
                tag: self.u64()? as i64,
                seq: self.u32()?,
                bytes: self.u64()?,
                nic: self.u32()?,
                peer_nic: self.u32()?,
            }),
            2 => Record::P2p(P2pRecord {
                id: self.u32()?,
                src: self.u32()?,
                dst: self.u32()?,
                tag: self.u64()? as i64,
                bytes: self.u64()?,
                rendezvous: self.bool()?,
                send_seq: self.u32()?,
                src_nic: self.u32()?,
                dst_nic: self.u32()?,
                pair_seq: self.u32()?,
            }),
            _ => return Err(Malformed("a record of no kind")),
        })
    }
}

/// What a partition receives from a partition of another process group goes through bytes:
/// the mail encoded as it would be sent, and decoded as it would be received (the buffers
/// kept from one window to the next).
#[derive(Default)]
pub(crate) struct Crossing {
    bytes: Vec<u8>,
    mail: Mail,
    /// Bytes carried in all.
    pub(crate) carried: u64,
}

impl Crossing {
    /// `mail` as the receiving process reads it, after crossing as bytes.
    pub(crate) fn carry(&mut self, mail: &Mail) -> &Mail {
        self.bytes.clear();
        encode(mail, &mut self.bytes);
        self.carried += self.bytes.len() as u64;
        self.mail.empty();
        if let Err(e) = decode(&self.bytes, &mut self.mail) {
            panic!("{e}");
        }
        &self.mail
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arrive() -> impl Strategy<Value = Arrive> {
        (
            (any::<u64>(), any::<u64>(), any::<u64>()),
            (any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()),
            (any::<u32>(), any::<u32>(), any::<u32>(), any::<u16>()),
            (any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>(), any::<bool>()),
        )
            .prop_map(
                |((ready, sent, tail), (msg, wire, src, dst), (at, from, held, aux), (held_vc, vc, dim, hops, only))| Arrive {
                    ready,
                    sent,
                    tail,
                    msg,
                    wire,
                    src,
                    dst,
                    at,
                    from,
                    held,
                    aux,
                    held_vc,
                    vc,
                    dim,
                    hops,
                    only,
                },
            )
    }

    fn record() -> impl Strategy<Value = Record> {
        prop_oneof![
            (
                (any::<u32>(), any::<u8>(), any::<u32>(), any::<u32>(), any::<u32>()),
                (any::<u64>(), any::<u64>(), any::<u32>(), any::<u8>())
            )
                .prop_map(|((id, kind, op, src, dst), (issued, bytes, packets, hops))| {
                    Record::Msg(MsgRecord {
                        id,
                        kind,
                        op,
                        src,
                        dst,
                        issued,
                        bytes,
                        packets,
                        hops,
                    })
                }),
            (
                (any::<u32>(), 0u8..2, any::<u32>(), any::<u32>(), any::<i64>()),
                (any::<u32>(), any::<u64>(), any::<u32>(), any::<u32>())
            )
                .prop_map(|((id, kind, rank, peer, tag), (seq, bytes, nic, peer_nic))| {
                    Record::Op(OpRecord {
                        id,
                        kind,
                        rank,
                        peer,
                        tag,
                        seq,
                        bytes,
                        nic,
                        peer_nic,
                    })
                }),
            (
                (any::<u32>(), any::<u32>(), any::<u32>(), any::<i64>(), any::<u64>()),
                (any::<bool>(), any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>())
            )
                .prop_map(
                    |((id, src, dst, tag, bytes), (rendezvous, send_seq, src_nic, dst_nic, pair_seq))| {
                        Record::P2p(P2pRecord {
                            id,
                            src,
                            dst,
                            tag,
                            bytes,
                            rendezvous,
                            send_seq,
                            src_nic,
                            dst_nic,
                            pair_seq,
                        })
                    }
                ),
        ]
    }

    fn mail() -> impl Strategy<Value = Mail> {
        (
            prop::collection::vec(arrive(), 0..8),
            prop::collection::vec(
                (any::<u32>(), any::<u32>(), any::<u64>(), any::<u8>()).prop_map(
                    |(feeder, bytes, at, vc)| Release {
                        feeder,
                        bytes,
                        at,
                        vc,
                    },
                ),
                0..8,
            ),
            prop::collection::vec(
                (any::<bool>(), any::<u32>()).prop_map(|(p2p, id)| Done {
                    pool: if p2p { Pool::P2p } else { Pool::Msg },
                    id,
                }),
                0..8,
            ),
            prop::collection::vec(record(), 0..8),
        )
            .prop_map(|(arrive, release, done, records)| Mail {
                arrive,
                release,
                done,
                records,
            })
    }

    /// The bytes a mail takes: the counts, then each message at its documented size.
    fn size(m: &Mail) -> usize {
        let records: usize = m
            .records
            .iter()
            .map(|r| match r {
                Record::Msg(_) => 39,
                Record::Op(_) => 42,
                Record::P2p(_) => 46,
            })
            .sum();
        16 + m.arrive.len() * 59 + m.release.len() * 17 + m.done.len() * 5 + records
    }

    proptest! {
        #[test]
        fn a_mail_crosses_as_bytes_unchanged(m in mail()) {
            let mut bytes = Vec::new();
            encode(&m, &mut bytes);
            prop_assert_eq!(bytes.len(), size(&m));
            let mut back = Mail::default();
            decode(&bytes, &mut back).unwrap();
            prop_assert_eq!(&back, &m);
            // a message cut short is malformed, never a wrong mail
            if !bytes.is_empty() {
                let mut short = Mail::default();
                prop_assert!(decode(&bytes[..bytes.len() - 1], &mut short).is_err());
            }
        }
    }

    #[test]
    fn the_bytes_are_little_endian_field_by_field() {
        let m = Mail {
            release: vec![Release {
                feeder: 0x0102_0304,
                bytes: 5,
                at: 0x1122_3344_5566_7788,
                vc: 9,
            }],
            done: vec![Done {
                pool: Pool::P2p,
                id: 0xAABB_CCDD,
            }],
            ..Mail::default()
        };
        let mut b = Vec::new();
        encode(&m, &mut b);
        assert_eq!(
            b,
            [
                0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, // counts
                4, 3, 2, 1, 5, 0, 0, 0, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 9, //
                1, 0xDD, 0xCC, 0xBB, 0xAA,
            ]
        );
        let mut bad = b.clone();
        bad[33] = 2;
        assert_eq!(
            decode(&bad, &mut Mail::default()),
            Err(Malformed("a done of no pool"))
        );
        let mut over = b.clone();
        over[4] = 200;
        assert_eq!(
            decode(&over, &mut Mail::default()),
            Err(Malformed("counts larger than the bytes"))
        );
    }
}
