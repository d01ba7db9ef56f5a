//! Embeds the build identity of the simulator (`ncmesh_core::BUILD_ID`): a hash of
//! everything that decides what a simulation computes, so that stored results can tell
//! which simulator made them (the sweep store recomputes runs made by another build).
//!
//! Hashed: every file under `src/` (path and content, in path order), this crate's
//! `Cargo.toml`, and the locked versions of the crate's dependencies (its closure in the
//! workspace's `Cargo.lock`; other crates' dependencies do not count). The hash changes
//! whenever one of those changes, and only then: not with the commit, the date, the
//! machine or the Python side.

use std::fs;
use std::path::{Path, PathBuf};

/// 64-bit FNV-1a: a stable, dependency-free hash (identity, not security).
struct Fnv(u64);

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// A length-prefixed field, so that ("ab", "c") and ("a", "bc") differ.
    fn field(&mut self, bytes: &[u8]) {
        self.write(&(bytes.len() as u64).to_le_bytes());
        self.write(bytes);
    }
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The `name version` lines of `root` and of every package it depends on, from Cargo.lock.
fn locked_closure(lock: &str, root: &str) -> Vec<String> {
    // [[package]] blocks: name, version, dependencies = ["a", "b 1.2.3", ...]
    let mut packages: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut in_deps = false;
    for line in lock.lines().map(str::trim) {
        if line == "[[package]]" {
            packages.push((String::new(), String::new(), Vec::new()));
            in_deps = false;
        } else if let Some(p) = packages.last_mut() {
            if let Some(v) = line.strip_prefix("name = ") {
                p.0 = v.trim_matches('"').to_string();
            } else if let Some(v) = line.strip_prefix("version = ") {
                p.1 = v.trim_matches('"').to_string();
            } else if line.starts_with("dependencies = [") {
                in_deps = !line.ends_with(']');
            } else if in_deps {
                if line == "]" {
                    in_deps = false;
                } else {
                    let dep = line.trim_end_matches(',').trim_matches('"');
                    p.2.push(dep.split(' ').next().unwrap_or(dep).to_string());
                }
            }
        }
    }
    let mut seen: Vec<String> = Vec::new();
    let mut todo = vec![root.to_string()];
    while let Some(name) = todo.pop() {
        for (n, v, deps) in packages.iter().filter(|p| p.0 == name) {
            let line = format!("{n} {v}");
            if !seen.contains(&line) {
                seen.push(line);
                todo.extend(deps.iter().cloned());
            }
        }
    }
    seen.sort();
    seen
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    let mut paths = Vec::new();
    files(&root.join("src"), &mut paths);
    paths.push(root.join("Cargo.toml"));
    paths.sort();
    for p in &paths {
        let rel = p.strip_prefix(&root).unwrap_or(p);
        h.field(rel.to_string_lossy().replace('\\', "/").as_bytes());
        h.field(&fs::read(p).unwrap_or_default());
    }
    let lock = root.join("../../Cargo.lock");
    if let Ok(text) = fs::read_to_string(&lock) {
        for line in locked_closure(&text, "ncmesh-core") {
            h.field(line.as_bytes());
        }
        println!("cargo:rerun-if-changed={}", lock.display());
    }
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rustc-env=NCMESH_CORE_BUILD={:016x}", h.0);
}
