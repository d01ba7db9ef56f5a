//! The coding schemes a scenario can name: one table of per-hop schemes (`scheme.name`,
//! the interface queue), one of end-to-end coders (`scheme.intra`), one of families. A
//! family is a folder of `coding/` with its own `[scheme.<family>]` table, header and
//! counters; a scheme is a name that makes a node's layer from the family tables. Adding
//! a scheme adds a row here (and, for a new family, one line to the `families!` list).
//!
//! Compositions: every node runs the end-to-end coder (if any) above the per-hop one.
//! A per-hop scheme either codes whatever packets it is given (`Compose::Any`: the XOR
//! family codes intra-flow combinations as it codes natives, which is ComboCoding's
//! design) or owns the end-to-end coding of its flows itself (`Compose::Alone`: a
//! multipath scheme that generates and acknowledges its own combinations), and then runs
//! only with `scheme.intra = "none"`; validation refuses the rest with the reason.

use super::combocoding::{ComboCfg, XorBuffer};
use super::comp::{Comp, CompCfg, CompCounters};
use super::counters::CounterSpec;
use super::horizon::{Horizon, HorizonCfg, HorizonCounters};
use super::more::{More, MoreCfg, MoreCounters};
use super::ncaqm::{NcaqmCfg, NcaqmQueue};
use super::passthrough::PassThrough;
use super::piggycode::{PiggyCfg, PiggyCounters, PiggyScheme, Placement, WaitRule};
use super::pipeline::{PipelineCfg, PipelineCoder, PipelineCounters};
use super::rlnc::{Gf256, Gf65536};
use super::tcpnc::{NcField, TcpNcCfg, TcpNcCoder, TcpNcCounters};
use super::xor::fifo::FifoQueue;
use super::xor::queue::OutputQueue;
use super::xor::{XorCfg, XorCounters, XorScheme};
use super::{CodingScheme, FlowCoder};
use crate::check::R;
use crate::engine::{secs, Time};
use crate::scenario::{Scenario, ScenarioError};
use serde::{Deserialize, Serialize};

/// Declares the coding families: each `doc field: Table => counters,` line gives
/// `SchemeCfg` a `[scheme.<field>]` table of type `Table` (with its default), a row of
/// `FAMILIES` (its counters, result columns), its validation (`Table::validate`) and its
/// canonical text (`Table::emit`), in this order. A new family is one line here.
macro_rules! families {
    ($($(#[doc = $doc:literal])* $field:ident: $cfg:ty => $counters:expr,)*) => {
/// The network-coding schemes (values the papers leave out: docs/assumptions.md): the
        /// scheme of every node's interface queue, the end-to-end coder above it, and one table
        /// per coding family. With a scheme, per-node results gain its family's counters
        /// (`native_tx`, `coded_tx`, `coded_packets`, `decode_failures`, `coding_missed`,
        /// `coding_retransmissions`, `control_tx`, `futile_drops` for the XOR family; 0 without a scheme). Fields
        /// of earlier versions (`scheme.two_hop`, `scheme.encode_once`, ...) are refused with
        /// where they moved (`scheme.xor.*`, `scheme.ncaqm.*`).
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(test, derive(schemars::JsonSchema))]
        #[serde(deny_unknown_fields, default)]
        pub struct SchemeCfg {
            /// Network-coding scheme at the interface queue: `"none"` (a plain drop-tail FIFO),
            /// `"cope"` (COPE, Katti et al.: natives queued, coded at each transmission
            /// opportunity, pseudo-broadcast, reception reports, asynchronous acks), `"ncaqm"`
            /// (Seferoglu & Markopoulou §V: COPE's machinery with codes stored in the queue,
            /// Alg. 1 re-coding, Alg. 2 drops), `"bfly"` (BFLY, Omiwade et al.; Seferoglu &
            /// Markopoulou §VII: COPE's FIFO with two-hop butterfly codes as well), `"piggycode"`
            /// (PiggyCode: a relay XORs a TCP DATA with a queued ACK of the same session, Takimoto
            /// et al. §II), `"waittime"` (PiggyCode with Takimoto et al.'s wait time for DATA at
            /// relays, fixed or configured, §III-IV), `"pipeline"` (Pipeline coding end to end over
            /// a FIFO: the same as `intra = "pipeline"`), `"combocoding"` (ComboCoding, Chen et
            /// al.: Pipeline coding of DATA and ACKs under DATA/ACK XOR at relays with the timer
            /// T of `[scheme.combocoding]`, DATA and ACK told apart by direction), `"tcp-nc"`
            /// (TCP/NC end to end over a FIFO: the same as `intra = "tcp-nc"`), `"horizon"`
            /// (Horizon, Radunović et al.; CoMP's multipath baseline: per-flow queues,
            /// back-pressure forwarding over the flow's reinforced paths with costs advertised
            /// on every frame, delayed reordering at the destination, a window threshold as TCP's
            /// congestion signal; no coding; `[scheme.horizon]`), `"comp"` (CoMP, Gheorghiu et
            /// al.: online coding at the source over GF(2^16), relays re-encode innovative
            /// packets as credits allow, loss estimated from piggybacked counts (Alg. 1), flow
            /// and forwarder chosen by back-pressure (Alg. 2), the destination acknowledges
            /// every innovative packet; `[scheme.comp]`), `"more"` (MORE, Chachulski et
            /// al.; CoMP's batch-coding baseline: a source sends random combinations of a batch
            /// of K TCP segments until the destination acknowledges it, forwarders closer to the
            /// destination by ETX recode as their TX credits allow, losses from CoMP's Alg. 1;
            /// `[scheme.more]`).
            pub name: String,
            /// End-to-end (intra-flow) coder above it at every node: `"none"` (packets pass
            /// between transport and network as they are), `"pipeline"` (Pipeline coding, Chen
            /// et al.: a source codes each packet at once with its generation so far, relays
            /// re-encode innovative packets, the destination decodes on arrival and hands
            /// packets up in order; `[scheme.pipeline]`), `"tcp-nc"` (TCP/NC, Sundararajan et
            /// al.; CoMP's TCP-ARQ: the source sends R random combinations of its coding window
            /// per TCP packet, relays forward, the destination acknowledges every arrival with
            /// the first unseen packet and hands packets up in order;
            /// `[scheme.tcpnc]`).
            pub intra: String,
            $($(#[doc = $doc])* pub $field: $cfg,)*
        }

        impl Default for SchemeCfg {
            fn default() -> Self {
                SchemeCfg {
                    name: "none".to_string(),
                    intra: "none".to_string(),
                    $($field: <$cfg>::default(),)*
                }
            }
        }

        /// Every family.
        pub const FAMILIES: &[FamilyEntry] = &[$(FamilyEntry {
            name: stringify!($field),
            counters: $counters,
        },)*];

        /// Checks every family's table.
        fn validate_tables(k: &SchemeCfg) -> R {
            $(k.$field.validate(concat!("scheme.", stringify!($field)))?;)*
            Ok(())
        }

        /// Each family's table as `[scheme.<family>]` lines.
        fn emit_tables(k: &SchemeCfg, table: &mut dyn FnMut(&str, &dyn Fn(&mut KeyValueSink))) {
            $(table(stringify!($field), &|kv| crate::check::emit_fields(&k.$field, kv));)*
        }
    };
}

families! {
    /// The XOR-coding family (COPE, Encode Once, BFLY; NCAQM runs inside it).
    xor: XorCfg => XorCounters::SPECS,
    /// NCAQM's queue management.
    ncaqm: NcaqmCfg => &[],
    /// DATA/ACK coding (PiggyCode, wait time).
    piggycode: PiggyCfg => PiggyCounters::SPECS,
    /// Pipeline coding (intra-flow random linear coding).
    pipeline: PipelineCfg => PipelineCounters::SPECS,
    /// ComboCoding's inter-flow timer.
    combocoding: ComboCfg => &[],
    /// TCP/NC (end-to-end coding between TCP and IP).
    tcpnc: TcpNcCfg => TcpNcCounters::SPECS,
    /// Horizon (back-pressure multipath forwarding, no coding).
    horizon: HorizonCfg => HorizonCounters::SPECS,
    /// CoMP (multipath online coding with hybrid credits and back-pressure).
    comp: CompCfg => CompCounters::SPECS,
    /// MORE (opportunistic routing with batch coding).
    more: MoreCfg => MoreCounters::SPECS,
}

/// A node's XOR-family layer: COPE's machinery over `queue` (with BFLY's two-hop codes
/// if `two_hop`), its queue's pass every `tick` (0: none).
fn xor_layer(
    s: &Scenario,
    two_hop: bool,
    queue: Box<dyn OutputQueue>,
    tick: Time,
) -> Box<dyn CodingScheme> {
    Box::new(XorScheme::new(s.scheme.xor.params(two_hop), queue, tick))
}

/// One scheme: its name in `scheme.name`, what it is, and how a node's layer is made.
pub struct SchemeEntry {
    /// The value of `scheme.name`.
    pub name: &'static str,
    /// One line for listings and docs.
    pub help: &'static str,
    /// The `[scheme.<family>]` tables it reads.
    pub families: &'static [&'static str],
    /// Which end-to-end coders it runs under.
    pub compose: Compose,
    /// Makes a node's layer from the scenario (`[scheme.<family>]` read from it).
    pub make: fn(&Scenario) -> Box<dyn CodingScheme>,
}

/// Which end-to-end coders a per-hop scheme runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compose {
    /// Any: it codes whatever packets the network layer gives it.
    Any,
    /// None: it does the end-to-end coding of its flows itself (the reason, for errors).
    Alone(&'static str),
    /// This one: the scheme is a composition that includes it (`scheme.intra` may name
    /// it or be left `"none"`).
    With(&'static str),
}

/// One end-to-end (intra-flow) coder: its name in `scheme.intra`.
pub struct IntraEntry {
    /// The value of `scheme.intra`.
    pub name: &'static str,
    /// One line for listings and docs.
    pub help: &'static str,
    /// The `[scheme.<family>]` tables it reads.
    pub families: &'static [&'static str],
    make: fn(&Scenario) -> Option<Box<dyn FlowCoder>>,
}

/// Every end-to-end coder ("none": packets pass between transport and network as they
/// are).
pub const INTRA: &[IntraEntry] = &[
    IntraEntry {
        name: "none",
        help: "no end-to-end coding",
        families: &[],
        make: |_| None,
    },
    IntraEntry {
        name: "pipeline",
        help: "Pipeline coding (Chen et al.): each packet coded at once with its generation so far, relays re-encode, the destination decodes on arrival",
        families: &["pipeline"],
        // ComboCoding codes the ACK flow with the DATA flow's redundancy (Chen et al.).
        make: |s| {
            let combo = s.scheme.name == "combocoding";
            Some(Box::new(PipelineCoder::new(s.scheme.pipeline.params(combo))))
        },
    },
    IntraEntry {
        name: "tcp-nc",
        help: "TCP/NC (Sundararajan et al.; CoMP's TCP-ARQ): R random combinations of the coding window per TCP packet, relays forward, the destination acknowledges every arrival with the first unseen packet",
        families: &["tcpnc"],
        make: |s| {
            let p = s.scheme.tcpnc.params(s.tcp.rcv_buffer_bytes);
            Some(match s.scheme.tcpnc.field {
                NcField::Gf256 => Box::new(TcpNcCoder::<Gf256>::new(p)),
                NcField::Gf65536 => Box::new(TcpNcCoder::<Gf65536>::new(p)),
            })
        },
    },
];

/// Why the coding set-up `k` needs static routing, if it does: its per-hop decisions
/// read what on-demand routing (AODV) does not hold at the node: another node's next hop
/// or candidates, or every node's ETX distance. What a scheme asks of its own node (its
/// next hops with their costs, its hop count to either end of a flow, the routing's loss
/// estimate, which AODV does not have) it gets from AODV's table (`net::RouteView`).
pub fn needs_static_routes(k: &SchemeCfg) -> Option<&'static str> {
    let why = match k.name.as_str() {
        "more" => "scheme.name = \"more\" (MORE's forwarder list: every node's ETX distance to the destination)",
        "cope" => "scheme.name = \"cope\" (it reads its next hop's next hop, which AODV keeps only at that node)",
        "ncaqm" => "scheme.name = \"ncaqm\" (it reads its next hop's next hop, which AODV keeps only at that node)",
        "bfly" => "scheme.name = \"bfly\" (it reads its next hop's next hop, which AODV keeps only at that node)",
        "comp" => "scheme.name = \"comp\" (a node that overhears a combination reads the sender's candidate next hops, which AODV keeps only at the sender)",
        _ => return None,
    };
    Some(why)
}

/// One family: its table's name and its counters (result columns).
pub struct FamilyEntry {
    /// `[scheme.<name>]`.
    pub name: &'static str,
    /// The family's counters (result columns), in order.
    pub counters: &'static [CounterSpec],
}

/// Every scheme.
pub const SCHEMES: &[SchemeEntry] = &[
    SchemeEntry {
        name: "none",
        help: "no coding: a drop-tail FIFO interface queue, native frames",
        families: &[],
        compose: Compose::Any,
        make: |s| Box::new(PassThrough::new(s.mac.queue_packets as usize)),
    },
    SchemeEntry {
        name: "cope",
        help: "COPE (Katti et al.): natives queued, XOR-coded at each transmission opportunity",
        families: &["xor"],
        compose: Compose::Any,
        make: |s| xor_layer(s, false, Box::new(FifoQueue::new()), 0),
    },
    SchemeEntry {
        name: "ncaqm",
        help: "NCAQM (Seferoglu & Markopoulou): codes stored in the queue, re-coding pass, coding-aware drops",
        families: &["xor", "ncaqm"],
        compose: Compose::Any,
        make: |s| {
            let (p, tick) = s.scheme.ncaqm.params();
            xor_layer(s, false, Box::new(NcaqmQueue::new(&p)), tick)
        },
    },
    SchemeEntry {
        name: "bfly",
        help: "BFLY (Omiwade et al.): COPE's queue with two-hop (butterfly) codes",
        families: &["xor"],
        compose: Compose::Any,
        make: |s| xor_layer(s, true, Box::new(FifoQueue::new()), 0),
    },
    SchemeEntry {
        name: "piggycode",
        help: "PiggyCode (Scalia et al.; Takimoto et al. §II): relays XOR a TCP DATA with a queued ACK of the same session",
        families: &["piggycode"],
        compose: Compose::Any,
        make: |s| Box::new(PiggyScheme::new(s.scheme.piggycode.params(false))),
    },
    SchemeEntry {
        name: "waittime",
        help: "PiggyCode with wait-time insertion (Takimoto et al. §III-IV): DATA waits at relays for an ACK to code with",
        families: &["piggycode"],
        compose: Compose::Any,
        make: |s| Box::new(PiggyScheme::new(s.scheme.piggycode.params(true))),
    },
    SchemeEntry {
        name: "pipeline",
        help: "Pipeline coding (Chen et al.) end to end over a drop-tail FIFO: the same as scheme.intra = \"pipeline\"",
        families: &["pipeline"],
        compose: Compose::With("pipeline"),
        make: |s| Box::new(PassThrough::new(s.mac.queue_packets as usize)),
    },
    SchemeEntry {
        name: "combocoding",
        help: "ComboCoding (Chen et al.): Pipeline coding of DATA and ACKs, XORed DATA/ACK at relays with timer T",
        families: &["pipeline", "piggycode", "combocoding"],
        compose: Compose::With("pipeline"),
        make: |s| {
            // PiggyCode's machinery with the direction rule and the timer T
            // (docs/assumptions.md, ComboCoding); the paper's network-layer buffer is
            // its lower-layer placement.
            let mut p = s.scheme.piggycode.params(true);
            p.wait = WaitRule::Fixed(secs(s.scheme.combocoding.timer_s));
            if s.scheme.combocoding.xor_buffer == XorBuffer::Network {
                p.placement = Placement::LowerLayer;
            }
            p.data_sources = Some(s.flows.iter().map(|f| f.src).collect());
            Box::new(PiggyScheme::new(p))
        },
    },
    SchemeEntry {
        name: "tcp-nc",
        help: "TCP/NC (Sundararajan et al.) end to end over a drop-tail FIFO: the same as scheme.intra = \"tcp-nc\"",
        families: &["tcpnc"],
        compose: Compose::With("tcp-nc"),
        make: |s| Box::new(PassThrough::new(s.mac.queue_packets as usize)),
    },
    SchemeEntry {
        name: "horizon",
        help: "Horizon (Radunović et al.; CoMP's baseline): back-pressure multipath forwarding of TCP over the reinforced paths, delayed reordering at the destination, no coding",
        families: &["horizon"],
        compose: Compose::Alone(
            "it forwards TCP's own segments and reorders them at the destination itself",
        ),
        make: |s| Box::new(Horizon::new(s.scheme.horizon.params())),
    },
    SchemeEntry {
        name: "comp",
        help: "CoMP (Gheorghiu et al.): multipath online coding, relays re-encode with hybrid credits, Alg. 1 loss estimation, back-pressure forwarding",
        families: &["comp"],
        compose: Compose::Alone(
            "it codes at the source, re-encodes at relays and acknowledges at the destination itself",
        ),
        make: |s| Box::new(Comp::new(s.scheme.comp.params(s.tcp.rcv_buffer_bytes))),
    },
    SchemeEntry {
        name: "more",
        help: "MORE (Chachulski et al.; CoMP's baseline): batches of K TCP segments coded at the source until acknowledged, forwarders closer by ETX recode by TX credit, the destination decodes and acknowledges each batch",
        families: &["more"],
        compose: Compose::Alone("it codes and acknowledges its own batches end to end"),
        make: |s| Box::new(More::new(s.scheme.more.params())),
    },
];

/// The scheme called `name`.
pub fn scheme(name: &str) -> Option<&'static SchemeEntry> {
    SCHEMES.iter().find(|e| e.name == name)
}

/// The names of every scheme, in table order.
pub fn scheme_names() -> Vec<&'static str> {
    SCHEMES.iter().map(|e| e.name).collect()
}

/// The end-to-end coder called `name`.
pub fn intra(name: &str) -> Option<&'static IntraEntry> {
    INTRA.iter().find(|e| e.name == name)
}

/// Checks the `[scheme]` table: known names, a meaningful composition, and every family
/// table's values.
pub fn validate(k: &SchemeCfg) -> R {
    let Some(hop) = scheme(&k.name) else {
        return Err(ScenarioError::new(
            "scheme.name",
            format!(
                "\"{}\" is not a coding scheme: expected one of {}",
                k.name,
                scheme_names().join(", ")
            ),
        ));
    };
    let Some(flow) = intra(&k.intra) else {
        let names: Vec<&str> = INTRA.iter().map(|e| e.name).collect();
        return Err(ScenarioError::new(
            "scheme.intra",
            format!(
                "\"{}\" is not an end-to-end coder: expected one of {}",
                k.intra,
                names.join(", ")
            ),
        ));
    };
    compose(hop, flow)?;
    validate_tables(k)?;
    // Loss adaptation reads the counts the opposite direction carries: it must be coded.
    let pipeline = k.intra == "pipeline" || matches!(hop.compose, Compose::With("pipeline"));
    if pipeline && k.pipeline.adaptive && !k.pipeline.code_acks && k.name != "combocoding" {
        return Err(ScenarioError::new(
            "scheme.pipeline.adaptive",
            "true needs the ACK flow coded too (its packets carry the loss counts): set scheme.pipeline.code_acks = true or use scheme.name = \"combocoding\"",
        ));
    }
    // Eq. 3's M counts what goes on the air; the XOR family re-sends a native that was
    // not acknowledged in a new frame, which would count again while the next hop, which
    // drops the duplicate, counts it once: every re-send would read as loss.
    if pipeline && k.pipeline.adaptive && hop.families.contains(&"xor") {
        return Err(ScenarioError::new(
            "scheme.pipeline.adaptive",
            format!(
                "true cannot run with scheme.name = \"{}\": its re-sends of unacknowledged packets would count as loss in the estimate; use a scheme without re-sends (\"none\", \"piggycode\", \"waittime\", \"combocoding\")",
                k.name
            ),
        ));
    }
    Ok(())
}

/// Can `flow` run above `hop`?
fn compose(hop: &SchemeEntry, flow: &IntraEntry) -> R {
    match hop.compose {
        Compose::With(own) if flow.name != "none" && flow.name != own => Err(ScenarioError::new(
            "scheme.intra",
            format!(
                "\"{}\" cannot run with scheme.name = \"{}\", which includes \"{own}\"; use scheme.intra = \"none\" or \"{own}\"",
                flow.name, hop.name
            ),
        )),
        Compose::Alone(why) if flow.name != "none" => Err(ScenarioError::new(
            "scheme.intra",
            format!(
                "\"{}\" cannot run with scheme.name = \"{}\": {why}; use scheme.intra = \"none\"",
                flow.name, hop.name
            ),
        )),
        _ => Ok(()),
    }
}

/// The per-hop coding layer of one node of scenario `s`.
pub fn make_scheme(s: &Scenario) -> Result<Box<dyn CodingScheme>, ScenarioError> {
    validate(&s.scheme)?;
    let e = scheme(&s.scheme.name).expect("validated");
    Ok((e.make)(s))
}

/// The end-to-end coder of one node of scenario `s`, if it names one.
pub fn make_flow(s: &Scenario) -> Result<Option<Box<dyn FlowCoder>>, ScenarioError> {
    validate(&s.scheme)?;
    let name = match scheme(&s.scheme.name).expect("validated").compose {
        Compose::With(own) => own,
        _ => s.scheme.intra.as_str(),
    };
    let e = intra(name).expect("validated");
    Ok((e.make)(s))
}

/// Every counter of every coding family, in result-column order: each node reports all
/// of them (0 where its scheme does not count one), so result tables of different
/// schemes share their columns.
pub fn counter_names() -> Vec<&'static str> {
    FAMILIES
        .iter()
        .flat_map(|f| f.counters.iter().map(|c| c.name))
        .collect()
}

/// Where a family's config table writes its `key = value` lines.
type KeyValueSink<'a> = dyn FnMut(&str, String) + 'a;

/// The body of the `[scheme]` table and each family's table, as canonical TOML;
/// `string` quotes a TOML string.
pub fn emit(k: &SchemeCfg, out: &mut String, string: fn(&str) -> String) {
    let names: Vec<String> = scheme_names().into_iter().map(string).collect();
    out.push_str(&format!("name = {}\n", string(&k.name)));
    out.push_str(&format!("# name = {}\n", names.join(", ")));
    let intra: Vec<String> = INTRA.iter().map(|e| string(e.name)).collect();
    out.push_str(&format!("intra = {}\n", string(&k.intra)));
    out.push_str(&format!("# intra = {}\n", intra.join(", ")));
    let mut table = |name: &str, emit: &dyn Fn(&mut KeyValueSink)| {
        out.push_str(&format!("\n[scheme.{name}]\n"));
        emit(&mut |key, v| out.push_str(&format!("{key} = {v}\n")));
    };
    emit_tables(k, &mut table);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One bad value per rule of every family's table, read from TOML as a user writes
    /// it: the one-line error names the field, the value and what is allowed; the value
    /// just inside each bound passes.
    #[test]
    fn each_family_table_refuses_bad_values_in_one_line() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "comp",
                "loss_alpha = 0.0",
                "0.0 is not allowed: expected a number in (0, 1]",
            ),
            (
                "comp",
                "max_redundancy = 0.5",
                "0.5 is not allowed: expected a number in [1, 10]",
            ),
            (
                "comp",
                "headroom = 2.5",
                "2.5 is not allowed: expected a number in [1, 2]",
            ),
            (
                "comp",
                "advert_timeout_s = nan",
                "NaN is not allowed: expected a number of seconds in (0, 10]",
            ),
            (
                "horizon",
                "hold_s = -1.0",
                "-1.0 is not allowed: expected a number of seconds in [0, 10]",
            ),
            (
                "horizon",
                "window_threshold = 1001",
                "1001 is not allowed: expected a whole number of segments in [0, 1000]",
            ),
            (
                "more",
                "batch = 0",
                "0 is not allowed: expected a whole number of packets in [1, 128]",
            ),
            (
                "more",
                "prune_share = 1.0",
                "1.0 is not allowed: expected a share in [0, 1)",
            ),
            (
                "more",
                "fifo_tries = 17",
                "17 is not allowed: expected a whole number of attempts in [1, 16]",
            ),
            (
                "ncaqm",
                "split_window = 0",
                "0 is not allowed: expected an integer >= 1",
            ),
            (
                "piggycode",
                "configured_max_hops = 65",
                "65 is not allowed: expected an integer in [1, 64]",
            ),
            (
                "piggycode",
                "configured_long_wait_3hop_s = -0.1",
                "-0.1 is not allowed: expected a finite number >= 0 (seconds)",
            ),
            (
                "piggycode",
                "encoding_queue = 0",
                "0 is not allowed: expected an integer in [1, 10000]",
            ),
            (
                "pipeline",
                "generation_size = 0",
                "0 is not allowed: expected an integer in [1, 64]",
            ),
            (
                "pipeline",
                "forward_redundancy = 11.0",
                "11.0 is not allowed: expected a number in [1, 10]",
            ),
            (
                "pipeline",
                "give_up_s = 0.0",
                "0.0 is not allowed: expected a finite number > 0 (seconds)",
            ),
            (
                "pipeline",
                "report_lag = 5",
                "5 is not allowed: expected an integer in [1, 4]",
            ),
            (
                "tcpnc",
                "min_redundancy = 6.0",
                "6.0 is not allowed: expected at most scheme.tcpnc.max_redundancy (5.0)",
            ),
            (
                "tcpnc",
                "loss_alpha = 1.5",
                "1.5 is not allowed: expected a number in (0, 1]",
            ),
            (
                "xor",
                "max_code = 1",
                "1 is not allowed: expected 0 (no limit) or an integer >= 2",
            ),
            (
                "xor",
                "threshold = 1.5",
                "1.5 is not allowed: expected a probability in [0, 1]",
            ),
            (
                "combocoding",
                "timer_s = -1.0",
                "-1.0 is not allowed: expected a finite number >= 0 (seconds)",
            ),
        ];
        let read = |family: &str, line: &str| -> SchemeCfg {
            toml::from_str(&format!("[{family}]\n{line}\n")).expect(line)
        };
        for (family, line, message) in cases {
            let e = validate_tables(&read(family, line)).unwrap_err();
            let key = line.split(" = ").next().unwrap();
            assert_eq!(e.field, format!("scheme.{family}.{key}"), "{line}");
            assert_eq!(e.message, *message, "{family}.{line}");
        }
        for (family, line) in [
            ("comp", "loss_alpha = 1.0"),
            ("more", "prune_share = 0.0"),
            ("horizon", "window_threshold = 1000"),
            ("pipeline", "report_lag = 4"),
            ("pipeline", "report_lag = 1"),
            ("tcpnc", "min_redundancy = 5.0"),
        ] {
            assert!(
                validate_tables(&read(family, line)).is_ok(),
                "{family}.{line}"
            );
        }
        assert!(validate_tables(&SchemeCfg::default()).is_ok());
    }

    /// Each table's canonical text is every field in declaration order (`None` left out),
    /// and it reads back to the same table.
    #[test]
    fn each_family_table_emits_every_field_in_order_and_reads_back() {
        let mut k = SchemeCfg::default();
        k.pipeline.forward_redundancy = Some(2.5);
        k.comp.loss_alpha = 1e-10;
        let mut text = String::new();
        emit(&k, &mut text, crate::check::toml_string);
        let comp = text.split("[scheme.comp]\n").nth(1).unwrap();
        let keys: Vec<&str> = comp
            .lines()
            .take(3)
            .map(|l| l.split(" = ").next().unwrap())
            .collect();
        assert_eq!(keys, ["loss", "prior", "loss_alpha"]);
        assert!(comp.contains("loss_alpha = 1e-10\n"), "{comp}");
        assert!(text.contains("forward_redundancy = 2.5\n"));
        let without = text.replace("forward_redundancy = 2.5\n", "");
        assert!(!without.contains("forward_redundancy"), "None is left out");
        let tables: String = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("name") && !l.starts_with("intra"))
            .map(|l| l.replace("[scheme.", "[") + "\n")
            .collect();
        let back: SchemeCfg = toml::from_str(&tables).unwrap();
        assert_eq!(back, k);
    }

    #[test]
    fn every_family_a_scheme_reads_is_registered() {
        for s in SCHEMES {
            for f in s.families {
                assert!(
                    FAMILIES.iter().any(|x| x.name == *f),
                    "{}: family {f}",
                    s.name
                );
            }
        }
        let mut names = scheme_names();
        names.dedup();
        assert_eq!(names.len(), SCHEMES.len(), "names are unique");
    }

    #[test]
    fn a_scheme_that_codes_its_flows_itself_refuses_an_end_to_end_coder() {
        let alone = SchemeEntry {
            name: "multipath",
            help: "",
            families: &[],
            compose: Compose::Alone("it generates and acknowledges its own combinations"),
            make: |s| Box::new(PassThrough::new(s.mac.queue_packets as usize)),
        };
        let none = intra("none").unwrap();
        assert!(compose(&alone, none).is_ok());
        let other = IntraEntry {
            name: "pipeline",
            help: "",
            families: &[],
            make: |_| None,
        };
        let e = compose(&alone, &other).unwrap_err();
        assert_eq!(e.field, "scheme.intra");
        assert_eq!(
            e.message,
            "\"pipeline\" cannot run with scheme.name = \"multipath\": it generates and \
             acknowledges its own combinations; use scheme.intra = \"none\""
        );
        // Every scheme but a composition with another end-to-end coder codes it.
        for hop in SCHEMES {
            let other_composition = matches!(hop.compose, Compose::With(own) if own != "pipeline")
                || matches!(hop.compose, Compose::Alone(_));
            assert_eq!(
                compose(hop, &other).is_ok(),
                !other_composition,
                "{} codes any packet",
                hop.name
            );
        }
    }

    #[test]
    fn the_scheme_fields_doc_names_every_registered_scheme() {
        let src = include_str!("registry.rs");
        let doc = &src[src.find("pub struct SchemeCfg").unwrap() - 1200..];
        for s in SCHEMES {
            assert!(
                doc.contains(&format!("`\"{}\"`", s.name)),
                "{} not documented",
                s.name
            );
        }
        for s in INTRA {
            assert!(
                doc.contains(&format!("`\"{}\"`", s.name)),
                "{} not documented",
                s.name
            );
        }
    }

    #[test]
    fn unknown_scheme_is_one_clear_line() {
        let k = SchemeCfg {
            name: "xor".into(),
            ..SchemeCfg::default()
        };
        let e = validate(&k).unwrap_err();
        assert_eq!(e.field, "scheme.name");
        assert_eq!(
            e.message,
            "\"xor\" is not a coding scheme: expected one of none, cope, ncaqm, bfly, piggycode, waittime, pipeline, combocoding, tcp-nc, horizon, comp, more"
        );
    }

    #[test]
    fn a_composition_runs_its_own_coder_and_refuses_another() {
        // scheme.intra may be left "none" or name the composition's own coder.
        for intra in ["none", "pipeline"] {
            let k = SchemeCfg {
                name: "combocoding".into(),
                intra: intra.into(),
                ..SchemeCfg::default()
            };
            assert!(validate(&k).is_ok(), "{intra}");
        }
        let combo = scheme("combocoding").unwrap();
        let other = IntraEntry {
            name: "tcp-nc",
            help: "",
            families: &[],
            make: |_| None,
        };
        let e = compose(combo, &other).unwrap_err();
        assert_eq!(e.field, "scheme.intra");
        assert!(e.message.contains("includes \"pipeline\""), "{}", e.message);
    }
}
