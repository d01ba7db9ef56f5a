//! The `topology` builder: a Freifunk mesh snapshot imported as a link-table scenario; its
//! file reader (nodes, positions, name) also serves `roofnet-like`'s `file` option.

use super::assemble::{add_flows, base, set_nodes};
use super::graph::{hop_matrix, largest_component, pick_pairs};
use super::options::{Common, Opts};
use crate::engine::{Rng, StreamPurpose};
use crate::scenario::schema::*;
use crate::scenario::ScenarioError;
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};

pub(super) fn ferr(path: &str, msg: impl std::fmt::Display) -> ScenarioError {
    ScenarioError::new("file", format!("{path}: {msg}"))
}

/// Node ids may be integers or strings in the file.
fn id_key(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// The nodes of a topology file: the parsed document, node id -> index in file order, and
/// each node's (x_m, y_m), None where the file gives none.
pub(super) struct FileNodes {
    pub(super) doc: Value,
    pub(super) index: BTreeMap<String, usize>,
    pub(super) xy: Vec<(Option<f64>, Option<f64>)>,
}

/// Reads a topology file's nodes (ids unique, coordinates finite when given).
pub(super) fn read_nodes(path: &str) -> Result<FileNodes, ScenarioError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| ferr(path, format!("cannot read: {e}")))?;
    let doc: Value =
        serde_json::from_str(&text).map_err(|e| ferr(path, format!("not valid JSON: {e}")))?;
    let nodes_v = doc
        .get("nodes")
        .and_then(Value::as_array)
        .ok_or_else(|| ferr(path, "no \"nodes\" array"))?;
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut xy = Vec::with_capacity(nodes_v.len());
    for (i, nv) in nodes_v.iter().enumerate() {
        let id = nv
            .get("id")
            .and_then(id_key)
            .ok_or_else(|| ferr(path, format!("nodes[{i}] has no id")))?;
        if index.insert(id.clone(), i).is_some() {
            return Err(ferr(path, format!("nodes[{i}]: id {id} appears twice")));
        }
        let coord = |k: &str| -> Result<Option<f64>, ScenarioError> {
            match nv.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v
                    .as_f64()
                    .filter(|x| x.is_finite())
                    .map(Some)
                    .ok_or_else(|| {
                        ferr(path, format!("nodes[{i}].{k} = {v} is not a finite number"))
                    }),
            }
        };
        xy.push((coord("x_m")?, coord("y_m")?));
    }
    Ok(FileNodes { doc, index, xy })
}

/// The file's `name`, else its file name without the extension.
pub(super) fn label(doc: &Value, path: &str) -> String {
    doc.get("name")
        .and_then(Value::as_str)
        .map(String::from)
        .unwrap_or_else(|| {
            std::path::Path::new(path)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
}

/// `topology`: a Freifunk mesh snapshot (three ship in python/ncmesh/experiments/data/). Link table from the
/// `wifi` links (p = tq, or sqrt(tq) with tq_map = "sqrt"); the largest component of
/// the links usable in both directions (p >= routing.min_delivery); ETX routing.
pub(super) fn topology(o: &Opts, c: &Common) -> Result<Scenario, ScenarioError> {
    let Some(path) = o.string("file")? else {
        return Err(ScenarioError::new(
            "file",
            "missing: builder 'topology' needs file = path of a Freifunk topology JSON",
        ));
    };
    let tq_map = o.choice("tq_map", "linear", &["linear", "sqrt"])?;
    let flows = o.int("flows", 1, 1, 10_000)? as usize;
    let min_hops = o.int("min_hops", 2, 1, 1000)? as u32;
    let max_nodes = o.int("max_nodes", 0, 0, 1_000_000)? as usize;
    if max_nodes == 1 {
        return Err(ScenarioError::new(
            "max_nodes",
            "1 is not allowed: expected 0 (no limit) or at least 2 nodes",
        ));
    }
    let FileNodes { doc, index, xy } = read_nodes(&path)?;
    let links_v = doc
        .get("links")
        .and_then(Value::as_array)
        .ok_or_else(|| ferr(&path, "no \"links\" array"))?;
    let total = xy.len();
    let pos: Vec<(f64, f64)> = xy
        .iter()
        .map(|&(x, y)| (x.unwrap_or(0.0), y.unwrap_or(0.0)))
        .collect();

    let min_delivery = RoutingCfg::default().min_delivery;
    // (a, b, p_ab, p_ba) over file indices, wifi links only.
    let mut wifi: Vec<(usize, usize, f64, f64)> = Vec::new();
    let mut seen = BTreeMap::new();
    for (i, lv) in links_v.iter().enumerate() {
        if lv.get("type").and_then(Value::as_str) != Some("wifi") {
            continue;
        }
        let end = |k: &str| -> Result<usize, ScenarioError> {
            let id = lv
                .get(k)
                .and_then(id_key)
                .ok_or_else(|| ferr(&path, format!("links[{i}] has no {k}")))?;
            index
                .get(&id)
                .copied()
                .ok_or_else(|| ferr(&path, format!("links[{i}].{k} = {id} is not a node id")))
        };
        let (a, b) = (end("a")?, end("b")?);
        if a == b {
            return Err(ferr(
                &path,
                format!("links[{i}] joins node {} to itself", a),
            ));
        }
        let tq = |k: &str| -> Result<f64, ScenarioError> {
            lv.get(k)
                .and_then(Value::as_f64)
                .filter(|x| (0.0..=1.0).contains(x))
                .ok_or_else(|| {
                    ferr(
                        &path,
                        format!(
                            "links[{i}].{k} = {} is not a quality in [0, 1]",
                            lv.get(k).unwrap_or(&Value::Null)
                        ),
                    )
                })
        };
        let (tab, tba) = (tq("tq_ab")?, tq("tq_ba")?);
        let map = |t: f64| if tq_map == "sqrt" { t.sqrt() } else { t };
        if let Some(j) = seen.insert((a.min(b), a.max(b)), i) {
            return Err(ferr(
                &path,
                format!("links[{i}] repeats the wifi link of links[{j}]"),
            ));
        }
        wifi.push((a, b, map(tab), map(tba)));
    }
    if wifi.is_empty() {
        return Err(ferr(&path, "no wifi links"));
    }

    // Usable graph (both directions at least min_delivery) over file indices.
    let mut usable = vec![Vec::new(); total];
    for &(a, b, pab, pba) in &wifi {
        if pab >= min_delivery && pba >= min_delivery {
            usable[a].push(b);
            usable[b].push(a);
        }
    }
    for l in usable.iter_mut() {
        l.sort_unstable();
    }
    let mut best = largest_component(&usable);
    if best.len() < 2 {
        return Err(ferr(&path, format!("no two nodes are joined by a wifi link usable both ways (delivery >= {min_delivery})")));
    }
    let comp_size = best.len();
    if max_nodes >= 2 && best.len() > max_nodes {
        // Connected subset: breadth-first from the best-connected node.
        let root = *best
            .iter()
            .max_by_key(|&&v| (usable[v].len(), std::cmp::Reverse(v)))
            .unwrap();
        let mut order = Vec::with_capacity(max_nodes);
        let mut visited = vec![false; total];
        let mut q = VecDeque::from([root]);
        visited[root] = true;
        while let Some(u) = q.pop_front() {
            order.push(u);
            if order.len() == max_nodes {
                break;
            }
            for &v in &usable[u] {
                if !visited[v] {
                    visited[v] = true;
                    q.push_back(v);
                }
            }
        }
        order.sort_unstable();
        best = order;
    }
    let kept = best;
    let mut new_id = vec![usize::MAX; total];
    for (k, &v) in kept.iter().enumerate() {
        new_id[v] = k;
    }
    let links: Vec<LinkCfg> = wifi
        .iter()
        .filter(|&&(a, b, _, _)| new_id[a] != usize::MAX && new_id[b] != usize::MAX)
        .map(|&(a, b, p_ab, p_ba)| LinkCfg {
            a: new_id[a] as u32,
            b: new_id[b] as u32,
            p_ab,
            p_ba,
        })
        .collect();
    let kpos: Vec<(f64, f64)> = kept.iter().map(|&v| pos[v]).collect();

    let mut adj = vec![Vec::new(); kept.len()];
    for l in &links {
        if l.p_ab >= min_delivery && l.p_ba >= min_delivery {
            adj[l.a as usize].push(l.b as usize);
            adj[l.b as usize].push(l.a as usize);
        }
    }
    let hops = hop_matrix(&adj);
    let mut rng = Rng::stream(c.seed, 0, StreamPurpose::Builder);
    let cand: Vec<usize> = (0..kept.len()).collect();
    let pairs = pick_pairs(&mut rng, &cand, &hops, flows, min_hops)?;

    let label = label(&doc, &path);
    let cap = if kept.len() < comp_size {
        format!(", capped from {comp_size}")
    } else {
        String::new()
    };
    let name = format!(
        "{label} ({} of {total} nodes{cap}, {} wifi links, tq_map={tq_map}, {flows} flows, seed {})",
        kept.len(),
        links.len(),
        c.seed
    );
    let mut s = base(c, name);
    s.channel.model = ChannelModel::Linktable;
    s.channel.links = links;
    s.routing.metric = RouteMetric::Etx;
    set_nodes(&mut s, &kpos);
    add_flows(&mut s, c, &pairs, 0.0)?;
    Ok(s)
}
