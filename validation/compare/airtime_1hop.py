#!/usr/bin/env python3
"""The 1-hop TCP goodput of the anchor's 802.11b link from airtime arithmetic
(docs/validation.md, "One hop: airtime arithmetic").

802.11b DSSS, long preamble: PLCP preamble + header 192 us, slot 20 us, SIFS 10 us,
DIFS = SIFS + 2 slots = 50 us, CWmin 31. Data at 2 Mbit/s, MAC ACKs at 1 Mbit/s.

  TCP segment MPDU = 1000 payload + 20 TCP + 20 IP + 8 LLC/SNAP + 24 MAC header + 4 FCS = 1076 B
  TCP ACK MPDU     =                20 TCP + 20 IP + 8 LLC/SNAP + 24 MAC header + 4 FCS =   76 B
  MAC ACK          = 14 B at 1 Mbit/s: 192 + 112 = 304 us

1. The simple sum (what docs/validation.md tabulates): every frame exchange costs
   DIFS + mean backoff (15.5 slots) + frame + SIFS + MAC ACK; one TCP ACK per 2 segments.
2. A small Monte Carlo of the two stations' backoffs: the sender's backoff and the receiver's
   TCP-ACK backoff count down in the same idle slots (whoever reaches 0 first sends, the other
   freezes and resumes), so the idle time per cycle is less than three full mean backoffs.
   Equal counters collide (both frames lost, CW doubled, retried after the ACK timeout of
   SIFS + slot + 192 us = 222 us after the longer frame).

    python3 validation/compare/airtime_1hop.py
"""
import random

SLOT, SIFS, DIFS, PLCP = 20, 10, 50, 192
CWMIN, CWMAX = 31, 1023
DATA_US = PLCP + 1076 * 8 / 2          # 4496 us
TACK_US = PLCP + 76 * 8 / 2            # 496 us
MACK_US = PLCP + 14 * 8 / 1            # 304 us
ACK_TIMEOUT_US = SIFS + SLOT + PLCP    # after the end of the frame
SEGMENT_BITS = 1000 * 8


def simple() -> dict:
    per_data = DIFS + 15.5 * SLOT + DATA_US + SIFS + MACK_US
    per_tack = DIFS + 15.5 * SLOT + TACK_US + SIFS + MACK_US
    per_segment = per_data + per_tack / 2
    return {"data_exchange_us": per_data, "tcp_ack_exchange_us": per_tack,
            "per_segment_us": per_segment, "goodput_kbps": SEGMENT_BITS / per_segment * 1e3}


def monte_carlo(segments: int = 200_000, seed: int = 1, post_backoff: bool = False,
                immediate: bool = False) -> dict:
    """post_backoff: the receiver draws a backoff after each of its own transmissions that keeps
    counting down in idle slots while it has nothing to send; a TCP ACK enqueued while it is
    still running uses what is left of it instead of a new draw (ns-3 3.44, validation/ns3/README.md
    fact e). Without: every TCP ACK gets a new backoff in [0, 31].
    immediate: with post_backoff, a TCP ACK enqueued after the post-backoff has run out gets no
    backoff at all (the medium counts as idle at the instant the data frame's reception ends, so
    802.11's "immediate access" applies: DIFS after the MAC ACK, then send)."""
    rng = random.Random(seed)
    t = 0.0
    cw_s, b_s = CWMIN, rng.randint(0, CWMIN)
    cw_r, b_r = CWMIN, None          # receiver: backoff of the TCP ACK at the head of its queue
    r_post = 0                       # receiver's post-backoff still to count (nothing queued)
    acks_queued = 0
    delivered = 0
    collisions = 0
    while delivered < segments:
        t += DIFS
        if acks_queued and b_r is not None:
            m = min(b_s, b_r)
            t += m * SLOT
            b_s -= m
            b_r -= m
            if b_s == 0 and b_r == 0:        # both send in the same slot: both lost
                collisions += 1
                t += max(DATA_US, TACK_US) + ACK_TIMEOUT_US
                cw_s = min(2 * cw_s + 1, CWMAX)
                cw_r = min(2 * cw_r + 1, CWMAX)
                b_s, b_r = rng.randint(0, cw_s), rng.randint(0, cw_r)
                continue
            sender_wins = b_s == 0
        else:
            t += b_s * SLOT
            r_post = max(0, r_post - b_s)
            b_s = 0
            sender_wins = True
        if sender_wins:
            t += DATA_US + SIFS + MACK_US
            delivered += 1
            cw_s = CWMIN
            b_s = rng.randint(0, cw_s)
            if delivered % 2 == 0:           # delayed ACK: one TCP ACK per 2 segments
                acks_queued += 1
                if b_r is None:              # enqueued while the medium is busy: new backoff
                    cw_r = CWMIN
                    if post_backoff and r_post > 0:
                        b_r = r_post
                    else:
                        b_r = 0 if immediate else rng.randint(0, cw_r)
                    r_post = 0
        else:
            t += TACK_US + SIFS + MACK_US
            acks_queued -= 1
            cw_r = CWMIN
            b_r = rng.randint(0, cw_r)
            if not acks_queued:
                r_post, b_r = (b_r if post_backoff else 0), None
    return {"per_segment_us": t / delivered, "goodput_kbps": SEGMENT_BITS * delivered / t * 1e3,
            "collisions_per_segment": collisions / delivered}


if __name__ == "__main__":
    s = simple()
    print(f"DATA {DATA_US:.0f} us, TCP ACK {TACK_US:.0f} us, MAC ACK {MACK_US:.0f} us")
    print(f"simple sum: data exchange {s['data_exchange_us']:.0f} us + half a TCP-ACK exchange "
          f"{s['tcp_ack_exchange_us'] / 2:.0f} us = {s['per_segment_us']:.0f} us per segment "
          f"-> {s['goodput_kbps']:.1f} kbit/s")
    for post, imm, what in ((False, False, "new backoff for every TCP ACK"),
                            (True, False, "+ receiver's post-backoff reused"),
                            (True, True, "+ immediate access once it has run out")):
        m = monte_carlo(post_backoff=post, immediate=imm)
        print(f"shared backoff countdown, {what} (Monte Carlo, 200000 segments): "
              f"{m['per_segment_us']:.0f} us per segment -> {m['goodput_kbps']:.1f} kbit/s "
              f"({m['collisions_per_segment'] * 100:.2f} collisions per 100 segments)")
