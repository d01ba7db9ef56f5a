//! Proportional Rate Reduction (RFC 6937): the window during loss recovery.
//!
//! Instead of halving at once (and then bursting, or stalling until half the window
//! is acknowledged), PRR spreads the reduction to ssthresh over the recovery round
//! trip: while more than ssthresh is in flight, the sender sends ssthresh/RecoverFS of
//! what the receiver reports delivered; once the flight falls below ssthresh
//! (burst losses), slow-start reduction bound (PRR-SSRB, the RFC's recommendation)
//! lets it grow back towards ssthresh by at most the data delivered plus one segment
//! per ACK. All quantities are bytes; the sender owns pipe and DeliveredData and asks
//! [`Prr::window`] for cwnd on every ACK of the recovery.

/// PRR's state for one recovery episode (RFC 6937 §3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prr {
    /// The ssthresh the congestion control set on entry (the target flight).
    ssthresh: u64,
    /// RecoverFS: the flight at the start of recovery (snd.nxt - snd.una).
    recover_fs: u64,
    /// prr_delivered: data delivered to the receiver since recovery began.
    delivered: u64,
    /// prr_out: data sent since recovery began.
    out: u64,
}

impl Prr {
    /// RFC 6937 §3, on entering recovery: prr_delivered = prr_out = 0,
    /// RecoverFS = snd.nxt - snd.una.
    pub fn start(ssthresh: u64, recover_fs: u64) -> Self {
        Prr {
            ssthresh,
            recover_fs: recover_fs.max(1),
            delivered: 0,
            out: 0,
        }
    }

    /// RFC 6937 §3, on any data transmission or retransmission: prr_out += data sent.
    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }

    /// RFC 6937 §3, on every ACK during recovery: adds `delivered` (DeliveredData) to
    /// prr_delivered and returns sndcnt, the bytes the sender may send now with `pipe`
    /// bytes in flight.
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, smss: u64) -> u64 {
        self.delivered += delivered;
        if pipe > self.ssthresh {
            // Proportional rate reduction: CEIL(prr_delivered * ssthresh / RecoverFS)
            // - prr_out.
            let num = self.delivered as u128 * self.ssthresh as u128;
            let allowed = num.div_ceil(self.recover_fs as u128) as u64;
            allowed.saturating_sub(self.out)
        } else {
            // PRR-SSRB: limit = MAX(prr_delivered - prr_out, DeliveredData) + MSS;
            // sndcnt = MIN(ssthresh - pipe, limit).
            let limit = self.delivered.saturating_sub(self.out).max(delivered) + smss;
            (self.ssthresh - pipe).min(limit)
        }
    }

    /// RFC 6937 §3: cwnd = pipe + sndcnt, after [`Self::on_ack`].
    pub fn window(&mut self, delivered: u64, pipe: u64, smss: u64) -> u64 {
        pipe + self.on_ack(delivered, pipe, smss)
    }

    /// prr_delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// prr_out so far.
    pub fn out(&self) -> u64 {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// Drives PRR as the sender does: one ACK per delivered segment, each send raising
    /// pipe, and returns what was sent on each ACK (segments).
    fn run(prr: &mut Prr, mut pipe: u64, acks: &[(u64, u64)]) -> Vec<u64> {
        acks.iter()
            .map(|&(delivered, left)| {
                // `left`: bytes that left the network with this ACK (delivered or
                // deemed lost).
                pipe -= left;
                let cwnd = prr.window(delivered, pipe, MSS);
                let mut sent = 0;
                while cwnd >= pipe + MSS {
                    prr.on_sent(MSS);
                    pipe += MSS;
                    sent += 1;
                }
                sent
            })
            .collect()
    }

    #[test]
    fn one_loss_sends_one_segment_per_two_acks_and_ends_at_ssthresh() {
        // RFC 6937 §5's first example: a window of 20 segments, one lost, Reno's
        // ssthresh of 10; the lost segment and each ACKed one leave the network.
        let (ssthresh, recover_fs) = (10 * MSS, 20 * MSS);
        let mut prr = Prr::start(ssthresh, recover_fs);
        let mut pipe = 19 * MSS;
        let mut sent = vec![];
        for _ in 0..19 {
            let before = pipe - MSS;
            sent.extend(run(&mut prr, before, &[(MSS, 0)]));
            pipe = before + sent.last().unwrap() * MSS;
            if before > ssthresh {
                // The sent-during-recovery bound: prr_out <= ceil(prr_delivered *
                // ssthresh / RecoverFS).
                let bound = (prr.delivered() * ssthresh).div_ceil(recover_fs);
                assert!(prr.out() <= bound, "{} > {bound}", prr.out());
            }
        }
        // Byte-counted, sndcnt reaches a segment on every other ACK (the RFC's
        // segment-counted table sends on the odd ones: there the first is the fast
        // retransmission, which the sender sends regardless); once pipe is down to
        // ssthresh, PRR-SSRB sends one for one and holds it there.
        assert_eq!(
            sent,
            vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1]
        );
        assert_eq!(pipe, ssthresh);
        assert_eq!(prr.delivered(), 19 * MSS);
    }

    #[test]
    fn cubic_beta_sends_seven_per_ten_delivered() {
        // The same loss with ssthresh = 0.7 * 20 = 14 segments.
        let mut prr = Prr::start(14 * MSS, 20 * MSS);
        let sent = run(&mut prr, 19 * MSS, &[(MSS, MSS); 10]);
        assert_eq!(sent.iter().sum::<u64>(), 7);
        assert_eq!(prr.out(), (10 * MSS * 14).div_ceil(20));
    }

    #[test]
    fn burst_loss_below_ssthresh_grows_back_by_ssrb() {
        // A window of 20 with 12 lost: pipe falls to 8, below ssthresh 10. PRR-SSRB
        // sends at most DeliveredData + 1 MSS per ACK (slow-start-like), never past
        // ssthresh.
        let mut prr = Prr::start(10 * MSS, 20 * MSS);
        // The ACK reporting the losses: one segment delivered, 12 + 1 left the network
        // (pipe 7).
        let sent = run(&mut prr, 20 * MSS, &[(MSS, 13 * MSS)]);
        assert_eq!(sent, vec![2], "DeliveredData + 1 MSS");
        // pipe 9 - 1 = 8: limit = max(prr_delivered - prr_out = 0, 1 MSS) + MSS = 2 =
        // ssthresh - pipe; then pipe 9: ssthresh - pipe = 1 caps it.
        let sent = run(&mut prr, 9 * MSS, &[(MSS, MSS), (MSS, MSS)]);
        assert_eq!(sent, vec![2, 1], "capped at ssthresh - pipe");
    }

    #[test]
    fn nothing_sent_when_nothing_delivered_above_ssthresh() {
        let mut prr = Prr::start(10 * MSS, 20 * MSS);
        assert_eq!(prr.on_ack(0, 19 * MSS, MSS), 0);
        assert_eq!(prr.window(0, 19 * MSS, MSS), 19 * MSS);
    }
}
