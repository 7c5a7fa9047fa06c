//! WAL writer and reader: group commit, replay, torn tails, corruption and
//! gaps, segment removal.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nestor_common::{Csn, Lsn, Xid};
use nestor_wal::{replay, segments, RecordKind, Wal, WalError, RECORD_PAYLOAD_BYTES_MAX};

/// A test's WAL directory, removed when the test ends (passing or not), so
/// repeated runs do not leave segments (tens of MB each) in the temp dir.
struct TmpDir(PathBuf);

impl std::ops::Deref for TmpDir {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl AsRef<Path> for TmpDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TmpDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn tmpdir(name: &str) -> TmpDir {
    let d = std::env::temp_dir().join(format!("nestor-wal-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    TmpDir(d)
}

fn read_all(dir: &Path, from: Lsn) -> (Vec<(u64, u64, Vec<u8>)>, nestor_wal::ReplayEnd) {
    let mut out = Vec::new();
    let end = replay(dir, from, |r| {
        out.push((r.xid, r.csn, r.payload));
        Ok(())
    })
    .unwrap();
    (out, end)
}

/// Group commit, made deterministic with the flusher hold: in each round
/// eight threads commit one transaction each while the flusher is held, so
/// all eight are appended and waiting before it may write. None may be
/// acknowledged before an fdatasync covered it, and on release one write and
/// one fdatasync must cover all eight (a flusher that syncs per commit, or
/// that takes only part of what is waiting, needs more).
#[test]
fn waiting_committers_share_one_fsync() {
    const THREADS: u64 = 8;
    const ROUNDS: u64 = 25;
    let dir = tmpdir("group");
    let wal = Wal::open(&dir, Lsn(0), 1, 1 << 20).unwrap();
    let next = Mutex::new(2u64);
    for round in 0..ROUNDS {
        let before = wal.stats();
        let acked = AtomicU64::new(0);
        std::thread::scope(|sc| {
            let hold = wal.hold_flusher();
            for t in 0..THREADS {
                let (wal, next, acked) = (&wal, &next, &acked);
                sc.spawn(move || {
                    // CSN assignment and append are one critical section,
                    // as under the transaction manager's sequencer.
                    let csn = {
                        let mut n = next.lock().unwrap();
                        let c = *n;
                        *n += 1;
                        wal.append_commit(
                            Xid(round * 1000 + t),
                            Csn(c),
                            format!("redo {round} {t}").as_bytes(),
                        );
                        c
                    };
                    wal.wait_for_csn(Csn(csn));
                    acked.fetch_add(1, Ordering::SeqCst);
                });
            }
            let deadline = Instant::now() + Duration::from_secs(20);
            while wal.stats().commits < before.commits + THREADS {
                assert!(Instant::now() < deadline, "round {round}: appends stalled");
                std::thread::sleep(Duration::from_millis(1));
            }
            // Give a (broken) flusher the chance to write anyway.
            std::thread::sleep(Duration::from_millis(20));
            assert_eq!(
                acked.load(Ordering::SeqCst),
                0,
                "round {round}: a commit was acknowledged before an fdatasync covered it"
            );
            assert_eq!(wal.stats().fsyncs, before.fsyncs, "round {round}");
            drop(hold);
        });
        assert_eq!(acked.load(Ordering::SeqCst), THREADS);
        let after = wal.stats();
        assert_eq!(
            after.fsyncs - before.fsyncs,
            1,
            "round {round}: {THREADS} commits waiting together took {} fdatasyncs",
            after.fsyncs - before.fsyncs
        );
    }
    let stats = wal.stats();
    assert_eq!((stats.commits, stats.fsyncs), (THREADS * ROUNDS, ROUNDS));
    drop(wal);
    let (recs, end) = read_all(&dir, Lsn(0));
    let csns: Vec<u64> = recs.iter().map(|r| r.1).collect();
    assert_eq!(csns, (2..2 + THREADS * ROUNDS).collect::<Vec<_>>());
    assert!(end.cut.is_none());
}

/// Free-running committers (no hold): the log is in CSN order, every byte
/// appended is written exactly once, and every commit replays.
#[test]
fn concurrent_commits_replay_in_csn_order() {
    let dir = tmpdir("concurrent");
    let wal = Arc::new(Wal::open(&dir, Lsn(0), 1, 1 << 20).unwrap());
    let next = Mutex::new(2u64);
    std::thread::scope(|sc| {
        for t in 0..8u64 {
            let (wal, next) = (wal.clone(), &next);
            sc.spawn(move || {
                for i in 0..50u64 {
                    let csn = {
                        let mut n = next.lock().unwrap();
                        let c = *n;
                        *n += 1;
                        wal.append_commit(
                            Xid(t * 1000 + i),
                            Csn(c),
                            format!("redo {t} {i}").as_bytes(),
                        );
                        c
                    };
                    wal.wait_for_csn(Csn(csn));
                }
            });
        }
    });
    let stats = wal.stats();
    assert_eq!(stats.commits, 400);
    assert!((1..=400).contains(&stats.fsyncs), "{stats:?}");
    eprintln!(
        "400 free-running commits from 8 threads used {} fsyncs",
        stats.fsyncs
    );
    let written = stats.bytes_written;
    drop(wal);
    let (recs, end) = read_all(&dir, Lsn(0));
    assert_eq!(recs.len(), 400);
    let csns: Vec<u64> = recs.iter().map(|r| r.1).collect();
    assert_eq!(csns, (2..402).collect::<Vec<_>>(), "log order is CSN order");
    let want: std::collections::HashSet<(u64, Vec<u8>)> = (0..8u64)
        .flat_map(|t| (0..50u64).map(move |i| (t * 1000 + i, format!("redo {t} {i}").into_bytes())))
        .collect();
    let got: std::collections::HashSet<(u64, Vec<u8>)> = recs
        .into_iter()
        .map(|(xid, _, payload)| (xid, payload))
        .collect();
    assert_eq!(got, want, "every commit replays with its own redo");
    assert_eq!(
        end.end_lsn,
        Lsn(written),
        "every appended byte written once"
    );
    assert!(end.cut.is_none());
}

#[test]
fn large_redo_is_split_and_reopen_continues_the_log() {
    let dir = tmpdir("large");
    let big = vec![7u8; RECORD_PAYLOAD_BYTES_MAX * 2 + 10];
    let end1 = {
        let wal = Wal::open(&dir, Lsn(0), 1, 1 << 20).unwrap();
        wal.append_commit(Xid(5), Csn(2), &big);
        wal.flush()
    };
    let mut kinds = Vec::new();
    let end = replay(&dir, Lsn(0), |r| {
        kinds.push(r.kind);
        Ok(())
    })
    .unwrap();
    assert_eq!(
        kinds,
        vec![
            RecordKind::TxnChunk,
            RecordKind::TxnChunk,
            RecordKind::TxnCommit
        ]
    );
    assert_eq!(end.end_lsn, end1);
    let wal = Wal::open(&dir, end.end_lsn, 2, 1 << 20).unwrap();
    wal.append_commit(Xid(6), Csn(3), b"after reopen");
    wal.flush();
    drop(wal);
    let (recs, _) = read_all(&dir, end1);
    assert_eq!(recs, vec![(6, 3, b"after reopen".to_vec())]);
    assert!(segments(&dir).unwrap().len() >= 2, "rolled to new segments");
}

#[test]
fn torn_tail_is_cut_and_everything_before_it_survives() {
    for damage in ["truncate", "garbage", "flip"] {
        let dir = tmpdir(&format!("torn-{damage}"));
        {
            let wal = Wal::open(&dir, Lsn(0), 1, 1 << 20).unwrap();
            for i in 0..10u64 {
                wal.append_commit(Xid(i + 10), Csn(i + 2), b"0123456789abcdef");
                wal.wait_for_csn(Csn(i + 2));
            }
        }
        let (_, path) = segments(&dir).unwrap().pop().unwrap();
        let len = fs::metadata(&path).unwrap().len();
        match damage {
            "truncate" => OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(len - 5)
                .unwrap(),
            "garbage" => OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap()
                .write_all(&[0xAB; 100])
                .unwrap(),
            _ => {
                let mut data = fs::read(&path).unwrap();
                let n = data.len();
                data[n - 3] ^= 1;
                fs::write(&path, data).unwrap();
            }
        }
        let (recs, end) = read_all(&dir, Lsn(0));
        let want = if damage == "garbage" { 10 } else { 9 };
        assert_eq!(recs.len(), want, "{damage}");
        assert!(end.cut.is_some(), "{damage}: tail reported");
        assert_eq!(
            fs::metadata(&path).unwrap().len(),
            end.end_lsn.0,
            "{damage}: file cut"
        );
        // A second recovery finds a clean log.
        let (recs2, end2) = read_all(&dir, Lsn(0));
        assert_eq!((recs2.len(), end2.cut), (want, None));
    }
}

fn two_segments(name: &str) -> TmpDir {
    let dir = tmpdir(name);
    let wal = Wal::open(&dir, Lsn(0), 1, 256).unwrap();
    for i in 0..20u64 {
        wal.append_commit(Xid(i + 1), Csn(i + 2), &[i as u8; 100]);
        wal.wait_for_csn(Csn(i + 2));
    }
    drop(wal);
    assert!(segments(&dir).unwrap().len() >= 3);
    dir
}

#[test]
fn corruption_before_the_end_stops_recovery_naming_the_file() {
    let dir = two_segments("corrupt");
    let (_, path) = segments(&dir).unwrap().remove(0);
    let mut data = fs::read(&path).unwrap();
    data[50] ^= 0xFF;
    fs::write(&path, data).unwrap();
    let err = replay(&dir, Lsn(0), |_| Ok(())).unwrap_err();
    assert!(
        matches!(&err, WalError::Corrupt { file, .. } if *file == path),
        "{err}"
    );
    assert!(err.to_string().contains(&path.display().to_string()));
}

#[test]
fn a_missing_segment_is_a_gap() {
    let dir = two_segments("gap");
    let (_, path) = segments(&dir).unwrap().remove(1);
    fs::remove_file(&path).unwrap();
    let err = replay(&dir, Lsn(0), |_| Ok(())).unwrap_err();
    assert!(matches!(err, WalError::Gap { .. }), "{err}");
}

#[test]
fn segments_before_a_checkpoint_are_removed() {
    let dir = two_segments("remove");
    let segs = segments(&dir).unwrap();
    let (_, end) = read_all(&dir, Lsn(0));
    let wal = Wal::open(&dir, end.end_lsn, 21, 256).unwrap();
    let keep_from = segs[2].0;
    let removed = wal.remove_before(keep_from).unwrap();
    assert_eq!(removed, 2);
    drop(wal);
    let (recs, _) = read_all(&dir, keep_from);
    assert!(!recs.is_empty());
    assert!(matches!(
        replay(&dir, Lsn(0), |_| Ok(())),
        Err(WalError::Gap { .. })
    ));
}

fn redo_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".redo"))
        .collect();
    names.sort();
    names
}

/// A redo buffer of `mib` MiB of `byte`, past a 1 MiB memory limit.
fn spilled_redo(dir: &Path, xid: u64, mib: usize, byte: u8) -> nestor_wal::SpillBuffer {
    use nestor_txn::RedoBuffer;
    let mut buf = nestor_wal::SpillBuffer::with_limit(dir, Xid(xid), 1 << 20);
    let piece = vec![byte; 64 * 1024];
    for _ in 0..(mib * 16) {
        buf.write(&piece);
    }
    assert!(buf.spilled());
    buf
}

/// A transaction past its redo memory limit goes to its own redo file;
/// sealed, it joins the log through one small `TxnFile` record and replay
/// hands its content on as one commit, between the commits around it.
#[test]
fn a_large_transaction_commits_through_its_redo_file() {
    use nestor_txn::{CommitLog, RedoBuffer};
    let dir = tmpdir("spill");
    let wal = Wal::open(&dir, Lsn(0), 1, 1 << 30).unwrap();
    wal.append_commit(Xid(8), Csn(2), b"before");
    let mut buf = spilled_redo(&dir, 9, 40, 42);
    assert_eq!(redo_files(&dir), ["0000000000000009.redo"]);
    buf.seal();
    let boxed: Box<dyn RedoBuffer> = Box::new(buf);
    wal.append(Xid(9), Csn(3), boxed);
    wal.append_commit(Xid(10), Csn(4), b"after");
    wal.wait_durable(Csn(4));
    let log_bytes = wal.next_lsn().0;
    assert!(log_bytes < 1024, "the 40 MiB were copied into the log");
    assert_eq!(wal.redo_file_bytes_from(Lsn(0)), 40 << 20);
    drop(wal);
    assert_eq!(
        redo_files(&dir),
        ["0000000000000009.redo"],
        "kept at commit"
    );
    let mut seen = Vec::new();
    let end = replay(&dir, Lsn(0), |r| {
        assert_eq!(r.kind, RecordKind::TxnCommit);
        seen.push((r.xid, r.payload.len(), r.payload.iter().all(|&b| b == 42)));
        Ok(())
    })
    .unwrap();
    assert_eq!(seen, [(8, 6, false), (9, 40 << 20, true), (10, 5, false)]);
    assert_eq!(end.redo_files.len(), 1);
    assert_eq!(
        (end.redo_files[0].1, end.redo_files[0].2),
        (Xid(9), 40 << 20)
    );
}

/// A transaction that never commits leaves no redo file behind; one left
/// by a crash before its commit record was durable is removed at start-up,
/// and a checkpoint's cut removes the files of the commits before it.
#[test]
fn redo_files_live_exactly_as_long_as_the_log_needs_them() {
    use nestor_txn::{CommitLog, RedoBuffer};
    let dir = tmpdir("spill-life");
    let wal = Wal::open(&dir, Lsn(0), 1, 1 << 30).unwrap();
    let aborted = spilled_redo(&dir, 5, 2, 1);
    assert_eq!(redo_files(&dir).len(), 1);
    drop(aborted);
    assert!(redo_files(&dir).is_empty(), "a rolled-back spill removed");

    let mut committed = spilled_redo(&dir, 6, 2, 2);
    committed.seal();
    wal.append(Xid(6), Csn(2), Box::new(committed));
    wal.wait_durable(Csn(2));
    // A crash after this file was sealed but before its commit was logged.
    let mut orphan = spilled_redo(&dir, 7, 2, 3);
    orphan.seal();
    std::mem::forget(orphan);
    drop(wal);
    assert_eq!(redo_files(&dir).len(), 2);

    let (recs, end) = read_all(&dir, Lsn(0));
    assert_eq!(recs.len(), 1);
    let wal = Wal::open(&dir, end.end_lsn, 2, 1 << 30).unwrap();
    assert_eq!(wal.adopt_redo_files(&end.redo_files).unwrap(), 1);
    assert_eq!(redo_files(&dir), ["0000000000000006.redo"]);
    wal.append_commit(Xid(8), Csn(3), b"later");
    wal.wait_durable(Csn(3));
    let cut = end.end_lsn;
    assert_eq!(wal.redo_file_bytes_from(cut), 0);
    wal.remove_before(cut).unwrap();
    assert!(
        redo_files(&dir).is_empty(),
        "removed with the checkpoint's cut"
    );
}

/// A damaged or missing redo file is damage to an acknowledged commit:
/// replay refuses, naming the file.
#[test]
fn a_damaged_or_missing_redo_file_stops_replay() {
    use nestor_txn::{CommitLog, RedoBuffer};
    let dir = tmpdir("spill-bad");
    let wal = Wal::open(&dir, Lsn(0), 1, 1 << 30).unwrap();
    let mut buf = spilled_redo(&dir, 4, 2, 9);
    buf.seal();
    wal.append(Xid(4), Csn(2), Box::new(buf));
    wal.wait_durable(Csn(2));
    drop(wal);
    let path = dir.join("0000000000000004.redo");
    let mut bytes = fs::read(&path).unwrap();
    bytes[12345] ^= 1;
    fs::write(&path, &bytes).unwrap();
    let err = replay(&dir, Lsn(0), |_| Ok(())).unwrap_err().to_string();
    assert!(
        err.contains("0000000000000004.redo") && err.contains("checksum"),
        "{err}"
    );
    fs::remove_file(&path).unwrap();
    let err = replay(&dir, Lsn(0), |_| Ok(())).unwrap_err().to_string();
    assert!(err.contains("cannot be read"), "{err}");
}
